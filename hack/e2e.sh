#!/usr/bin/env bash
# Brings local clusters of one minor up, runs the e2e suite, brings them down.
#   hack/e2e.sh --k8s 1.36 [--shards N] [test-name-filter]
# --shards N (default $E2E_SHARDS, else 2): N clusters of the same minor, each
# on its own ports (100 apart) and run directory, and the suite spread over
# them (e2e/run.sh). Never more clusters than matching tests.
# docs/local-control-plane.md, "The e2e suite on several clusters".
set -uo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
minor=1.36
shards=${E2E_SHARDS:-2}
while [ $# -gt 0 ]; do
  case $1 in
    --k8s) minor=${2:?}; shift 2;;
    --shards) shards=${2:?}; shift 2;;
    *) break;;
  esac
done
filter=${1:-}
start=$(date +%s)
run0=${ATTUNE_RUN:-$here/e2e/.run}
base0=${ATTUNE_PORT_BASE:-16440}
matched=$("$here/e2e/run.sh" --count "$filter")
[[ "$shards" =~ ^[1-9][0-9]*$ ]] || { echo "e2e: --shards wants a positive number, not '$shards'"; exit 2; }
[ "$matched" -ge 1 ] && [ "$shards" -gt "$matched" ] && shards=$matched
run_of() { if [ "$1" = 0 ]; then echo "$run0"; else echo "$run0/shard-$1"; fi; }
base_of() { echo $(( base0 + 100 * $1 )); }
cluster_of() {  # cluster_of INDEX ARGS...: hack/cluster.sh on that shard's cluster
  local i=$1; shift
  ATTUNE_RUN=$(run_of "$i") CLUSTER_DIR=$(run_of "$i")/cluster ATTUNE_PORT_BASE=$(base_of "$i") "$here/hack/cluster.sh" "$@"
}
down_all() {
  local i run
  for (( i=0; i<shards; i++ )); do
    run=$(run_of "$i")
    # Image-lane managers a failed test of this run left running (the lane labels
    # each container with its run directory; other checkouts' runs are theirs).
    if command -v podman >/dev/null; then
      podman ps -aq --filter "label=attune-e2e-lane=$run" | xargs -r podman rm -f >/dev/null 2>&1 || true
    fi
    cluster_of "$i" down >/dev/null 2>&1
  done
}
# up INDEX: one cluster; its log under its run directory.
up() {
  local run uplog
  run=$(run_of "$1"); mkdir -p "$run"; uplog="$run/cluster-up-$minor.log"
  if ! cluster_of "$1" up --k8s "$minor" >"$uplog" 2>&1; then
    tail -n 40 "$uplog"
    echo "e2e: cluster $minor (shard $1) did not come up (full log: $uplog)"
    return 1
  fi
}
down_all
# The first brings the binaries (a cold machine builds them once); the others
# come up together after it.
ok=1
up 0 || ok=0
if [ "$ok" = 1 ] && [ "$shards" -gt 1 ]; then
  pids=()
  for (( i=1; i<shards; i++ )); do up "$i" & pids+=($!); done
  for p in "${pids[@]}"; do wait "$p" || ok=0; done
fi
if [ "$ok" = 0 ]; then
  down_all
  echo "e2e: 0 passed, 1 failed"
  exit 1
fi
clusters=()
for (( i=0; i<shards; i++ )); do clusters+=("$(run_of "$i"):$(base_of "$i")"); done
if [ "$shards" -gt 1 ]; then
  E2E_CLUSTERS="${clusters[*]}" "$here/e2e/run.sh" "$filter"; rc=$?
else
  ATTUNE_RUN=$run0 ATTUNE_PORT_BASE=$base0 "$here/e2e/run.sh" "$filter"; rc=$?
fi
down_all
echo "e2e: Kubernetes $minor took $(( $(date +%s) - start ))s on $shards cluster(s)"
exit $rc
