#!/usr/bin/env bash
# Runs the e2e suite on every supported minor and prints one row per minor.
# Cold runs build each minor's control plane first (cached afterwards).
set -uo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
# Tests that need more than their own minor's binaries (the 1.35 -> 1.36
# upgrade, e2e/tests/86) run here, where every minor is built anyway.
export E2E_MATRIX=1
minors=${MINORS:-$(awk '!/^#/{print $1}' "$here/hack/k8s-versions.txt")}
rows=(); rc=0
mkdir -p "$here/e2e/.run"
for m in $minors; do
  out="$here/e2e/.run/matrix-$m.log"
  start=$(date +%s)
  "$here/hack/e2e.sh" --k8s "$m" > "$out" 2>&1; r=$?
  sum=$(grep -E '^e2e: [0-9]+ passed' "$out" | tail -1 | sed 's/^e2e: //')
  ver=$(awk -v m="$m" '$1==m {print $2}' "$here/hack/k8s-versions.txt")
  if [ $r -eq 0 ]; then res=pass; else res=FAIL; rc=1; fi
  rows+=("$(printf '| %-5s | %-8s | %-4s | %-36s | %5ss |' "$m" "$ver" "$res" "${sum:-cluster did not come up}" "$(( $(date +%s) - start ))")")
done
echo "| minor | version  | e2e  | tests                                | time   |"
echo "|-------|----------|------|--------------------------------------|--------|"
printf '%s\n' "${rows[@]}"
exit $rc
