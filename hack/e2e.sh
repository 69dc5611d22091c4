#!/usr/bin/env bash
# Brings a local cluster of one minor up, runs the e2e suite, brings it down.
#   hack/e2e.sh --k8s 1.36 [test-name-filter]
set -uo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
minor=1.36
[ "${1:-}" = --k8s ] && { minor=${2:?}; shift 2; }
filter=${1:-}
start=$(date +%s)
"$here/hack/cluster.sh" down >/dev/null 2>&1 || true
mkdir -p "$here/e2e/.run"
uplog="$here/e2e/.run/cluster-up-$minor.log"
if ! "$here/hack/cluster.sh" up --k8s "$minor" >"$uplog" 2>&1; then
  tail -n 40 "$uplog"
  echo "e2e: cluster $minor did not come up (full log: $uplog)"
  echo "e2e: 0 passed, 1 failed"
  exit 1
fi
"$here/e2e/run.sh" "$filter"; rc=$?
# Image-lane managers a failed test of this run left running (the lane labels
# each container with its run directory; other checkouts' runs are theirs).
if command -v podman >/dev/null; then
  podman ps -aq --filter "label=attune-e2e-lane=${ATTUNE_RUN:-$here/e2e/.run}" | xargs -r podman rm -f >/dev/null 2>&1 || true
fi
"$here/hack/cluster.sh" down >/dev/null 2>&1
echo "e2e: Kubernetes $minor took $(( $(date +%s) - start ))s"
exit $rc
