#!/usr/bin/env bash
# Runs the e2e tests (e2e/tests/*.sh, or those matching $1) against the cluster
# that hack/cluster.sh brought up, and prints one closing line:
#   e2e: N passed, N failed, N skipped
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
pattern=${1:-}
# Tests that summarise the run (99's oracle) tell a whole run from a filtered one.
export E2E_FILTER=$pattern
pass=0; failn=0; skipn=0; failed=()
for t in "$here"/tests/*.sh; do
  name=$(basename "$t" .sh)
  [ -n "$pattern" ] && [[ "$name" != *$pattern* ]] && continue
  start=$(date +%s)
  bash "$t"; rc=$?
  dur=$(( $(date +%s) - start ))
  case $rc in
    0) pass=$((pass+1)); echo "ok   $name (${dur}s)";;
    77) skipn=$((skipn+1)); echo "skip $name (${dur}s)";;
    *) failn=$((failn+1)); failed+=("$name"); echo "FAIL $name (${dur}s, rc=$rc)";;
  esac
done
# A filter that matches nothing ran no test: that is a failure, not a pass.
if [ $((pass + failn + skipn)) -eq 0 ]; then
  echo "e2e: no test matches '$pattern'"
  failn=1
fi
[ ${#failed[@]} -gt 0 ] && echo "failed: ${failed[*]}"
echo "e2e: $pass passed, $failn failed, $skipn skipped"
[ "$failn" -eq 0 ]
