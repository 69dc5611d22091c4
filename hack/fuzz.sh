#!/usr/bin/env bash
# `make fuzz`: builds the libFuzzer targets with clang (ASan + UBSan) into
# build-fuzz/ and runs each for FUZZ_SECONDS (default 60) on its corpus.
# Crashes are left as crash-* files in build-fuzz/ and fail the run.
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
cd "$here"
secs=${FUZZ_SECONDS:-60}
command -v clang++ >/dev/null || { echo "fuzz: clang++ missing (hack/deps.sh fuzz installs it)" >&2; exit 2; }
if [ ! -f build-fuzz/build.ninja ]; then
  CXX=clang++ meson setup build-fuzz -Dfuzz=true -Dtests=disabled -Dbuildtype=debugoptimized >/dev/null
fi
targets=(fuzz_watch_decoder fuzz_kubeconfig fuzz_prometheus_response fuzz_admission_review fuzz_protobuf_pod_list)
ninja -C build-fuzz "${targets[@]/#/fuzz/}"
rc=0
for t in "${targets[@]}"; do
  corpus="$here/fuzz/corpus/${t#fuzz_}"
  work="build-fuzz/corpus-$t"; mkdir -p "$work"
  echo "fuzz: $t for ${secs}s"
  (cd build-fuzz && "./fuzz/$t" -max_total_time="$secs" -print_final_stats=1 "$here/$work" "$corpus") || rc=1
done
exit $rc
