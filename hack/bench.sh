#!/usr/bin/env bash
# `make bench`: prints the benchmark figures recorded in bench/RESULTS.md.
# Figures, not assertions: nothing here fails on a slow machine.
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
build=${BUILD:-build}
bin="$here/$build/bench/runtime_bench"
[ -x "$bin" ] || { echo "bench: $bin is not built (make build)" >&2; exit 2; }
echo "== watch decode + transform + cache apply, and cache bytes per pod (10k pods, 3 runs)"
"$bin" "${PODS:-10000}" "${RUNS:-3}"
echo "== full resync of 1,000 workloads with one HPA each, CPU time"
"$here/$build/bench/resync_bench" 1000 5
# The real manager on a real (local) apiserver with 1,000 pods: a memory
# regression shows here first. Needs the local control plane (cached after
# the first make test); BENCH_CLUSTER=0 skips it.
if [ "${BENCH_CLUSTER:-1}" = 1 ]; then
  echo "== attune-manager memory per pod, 1,000 pods on a local 1.36 control plane"
  "$here/hack/bench-scale.sh" --pods 1000 --churn 0 --summary-only
fi
