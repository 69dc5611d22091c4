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
# FUZZ_TARGETS="a b" runs only those (default: all five).
read -r -a targets <<<"${FUZZ_TARGETS:-fuzz_kubeconfig fuzz_watch_decoder fuzz_prometheus_response fuzz_admission_review fuzz_protobuf_pod_list}"
ninja -C build-fuzz "${targets[@]/#/fuzz/}"
rc=0
for t in "${targets[@]}"; do
  corpus="$here/fuzz/corpus/${t#fuzz_}"
  work="build-fuzz/corpus-$t"; mkdir -p "$work"
  echo "fuzz: $t for ${secs}s"
  (cd build-fuzz && "./fuzz/$t" -max_total_time="$secs" -print_final_stats=1 "$here/$work" "$corpus") \
    2> >(tee "build-fuzz/$t.log" >&2) || rc=1
done
# One line per target for bench/RESULTS.md: executions and peak RSS.
for t in "${targets[@]}"; do
  awk -v t="$t" '/stat::number_of_executed_units/ { n = $2 } /stat::peak_rss_mb/ { r = $2 }
    END { printf "fuzz: %s executions=%s peak_rss_mb=%s\n", t, n, r }' "build-fuzz/$t.log"
done
exit $rc
