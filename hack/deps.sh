#!/usr/bin/env bash
# Installs everything Attune needs on a Debian 12 machine, idempotently.
#   hack/deps.sh            build + test + e2e toolchain (default)
#   hack/deps.sh fuzz       adds clang and its libFuzzer runtime
#   hack/deps.sh bench      adds heaptrack, jemalloc and mimalloc (make bench-scale --heaptrack / --alloc)
# Safe to run repeatedly: every step checks before it installs.
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
want=${1:-all}
SUDO=""; [ "$(id -u)" = 0 ] || SUDO="sudo"
log() { echo "deps: $*" >&2; }

# The Debian mirror this machine already uses (never hard-code a host).
debian_mirror() {
  local m
  m=$(grep -hsE '^URIs:' /etc/apt/sources.list.d/*.sources 2>/dev/null | awk '{print $2}' | grep -E '/debian/?$' | head -1)
  [ -n "$m" ] || m=$(grep -hsE '^deb ' /etc/apt/sources.list 2>/dev/null | awk '{print $2}' | grep -E '/debian/?$' | head -1)
  [ -n "$m" ] || { log "cannot find the Debian mirror in the apt sources"; return 1; }
  echo "${m%/}"
}

apt_pkgs=(build-essential pkg-config meson ninja-build ccache cmake git curl buildah podman runc containerd ca-certificates openssl jq xz-utils
          procps psmisc iproute2 python3 python3-yaml libboost1.81-dev libboost-json1.81-dev libssl-dev libspdlog-dev libfmt-dev
          libyaml-cpp-dev libgtest-dev libgmock-dev prometheus prometheus-pushgateway clang-format clang-tidy-14
          tmux)
[ "$want" = fuzz ] && apt_pkgs+=(clang libclang-rt-14-dev)
[ "$want" = bench ] && apt_pkgs+=(heaptrack libjemalloc2 libmimalloc2.0)
apt_pkgs+=(python3-pip)  # hack/sigv4-vectors.sh downloads AWS's SigV4 test vectors with it

missing=()
for p in "${apt_pkgs[@]}"; do dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p"); done
if [ ${#missing[@]} -gt 0 ]; then
  log "apt-get install ${missing[*]}"
  $SUDO apt-get update -qq
  # The prometheus packages would start system services; we only want the binaries.
  $SUDO env DEBIAN_FRONTEND=noninteractive RUNLEVEL=1 apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
  $SUDO systemctl disable --now prometheus prometheus-node-exporter prometheus-pushgateway >/dev/null 2>&1 || true
  $SUDO pkill -x prometheus-node-exporter 2>/dev/null || true
fi

# prometheus-cpp (core only) is not packaged for Debian 12: build Debian's own
# upstream source tarball from the archive, verified by hash, into /usr/local.
if ! pkg-config --exists prometheus-cpp-core 2>/dev/null; then
  ver=1.0.2; sha=65838fed64c4667140a574b78eb9f5c995bab80d575b082c9c677c6795c3c607
  tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
  log "building prometheus-cpp $ver (core) from the Debian source archive"
  curl -fsSL -o "$tmp/src.tgz" "$(debian_mirror)/pool/main/p/prometheus-cpp/prometheus-cpp_$ver.orig.tar.gz"
  echo "$sha  $tmp/src.tgz" | sha256sum -c --quiet
  tar -xzf "$tmp/src.tgz" -C "$tmp"
  cmake -S "$tmp/prometheus-cpp-$ver" -B "$tmp/build" -G Ninja -DCMAKE_BUILD_TYPE=Release \
    -DENABLE_PULL=OFF -DENABLE_PUSH=OFF -DENABLE_COMPRESSION=OFF -DENABLE_TESTING=OFF \
    -DBUILD_SHARED_LIBS=OFF -DCMAKE_POSITION_INDEPENDENT_CODE=ON -DGENERATE_PKGCONFIG=ON \
    -DCMAKE_INSTALL_PREFIX=/usr/local >/dev/null
  cmake --build "$tmp/build" >/dev/null
  $SUDO cmake --install "$tmp/build" >/dev/null
  pkg-config --exists prometheus-cpp-core || { log "prometheus-cpp installed but pkg-config cannot see it"; exit 1; }
fi

# Go >= 1.26 builds the control plane. A fresh Debian 12 has none that new: take
# golang-1.23 from bookworm-backports and let it fetch the exact toolchain
# through the Go module proxy (GOTOOLCHAIN).
go_ok() { command -v go >/dev/null && go version | grep -qE 'go1\.(2[6-9]|[3-9][0-9])'; }
if ! go_ok; then
  if ! command -v go >/dev/null; then
    if [ ! -x /usr/lib/go-1.23/bin/go ]; then
      echo "Types: deb
URIs: $(debian_mirror)
Suites: bookworm-backports
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg" | $SUDO tee /etc/apt/sources.list.d/attune-backports.sources >/dev/null
      $SUDO apt-get update -qq
      $SUDO env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq -t bookworm-backports golang-1.23-go >/dev/null
    fi
    $SUDO ln -sf /usr/lib/go-1.23/bin/go /usr/local/bin/go
  fi
  GOTOOLCHAIN=go1.26.8 go version >/dev/null   # downloads the toolchain once
  log "Go toolchain: go1.26.8 through GOTOOLCHAIN (hack/go-env.sh selects it)"
fi
# AWS's SigV4 test vectors for test/core/aws/sigv4_suite_test.cpp (skipped without them).
"$here/hack/sigv4-vectors.sh" || log "the SigV4 test vectors could not be fetched: their test will be skipped"
log "ok"
