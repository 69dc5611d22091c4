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
core_bin="$here/$build/bench/decide_resize_bench"
[ -x "$core_bin" ] || { echo "bench: $core_bin is not built (make build)" >&2; exit 2; }
echo "== the executor's per-pod decision (plan + gates) for 1,000 workloads x 10 pods"
"$core_bin" 1000 10 5
rec="$here/$build/bench/recommender_bench"
[ -x "$rec" ] || { echo "bench: $rec is not built (make build)" >&2; exit 2; }
echo "== recommender: 1,000 workloads x 3 containers x 7 days of 5-minute samples, cpu + memory (5 rounds)"
"$rec" "${WORKLOADS:-1000}" "${ROUNDS:-5}"
wbin="$here/$build/bench/webhook_bench"
if [ -x "$wbin" ]; then
  echo "== admission webhook: handler CPU per review; 2,000 reviews/s for 20 s (open loop); max reviews/s for 15 s"
  "$wbin" handler 20000
  "$wbin" rate 2000 20 16
  "$wbin" max 15 16
fi
echo "== full resync of 1,000 workloads with one HPA each, CPU time"
"$here/$build/bench/resync_bench" 1000 5
# The real manager on a real (local) apiserver with 1,000 pods: a memory
# regression shows here first. Needs the local control plane (cached after
# the first make test); BENCH_CLUSTER=0 skips it.
if [ "${BENCH_CLUSTER:-1}" = 1 ]; then
  echo "== attune-manager memory per pod, 1,000 pods on a local 1.36 control plane"
  "$here/hack/bench-scale.sh" --pods 1000 --churn 0 --summary-only
fi
