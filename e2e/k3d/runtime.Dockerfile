# The shared libraries attune-manager and kubectl-attune link against, as a
# Debian 12 image: the binaries are built in the workflow's debian:12 job and
# run here, next to the k3d cluster, on the GitHub runner's host network.
FROM debian:12-slim
RUN apt-get update -qq \
 && apt-get install -y -qq --no-install-recommends ca-certificates libboost-json1.81.0 libspdlog1.10 libfmt9 \
      libssl3 libyaml-cpp0.7 \
 && rm -rf /var/lib/apt/lists/*
