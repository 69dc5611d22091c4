#!/usr/bin/env bash
# Which minors serve the streaming WatchList, asked of the real apiserver of
# each minor (docs/manager.md, "Initial state"): a harness check, then the
# manager's own behaviour with --watch-list=true.
#
#   hack/watchlist-probe.sh [1.32 1.33 ...]    (default: every minor in hack/k8s-versions.txt)
#
# Per minor: a one-node cluster without Prometheus; curl asks for namespaces
# with sendInitialEvents=true (HTTP status, and whether the
# k8s.io/initial-events-end bookmark arrived); attune-manager then starts
# with --watch-list=true and its log says which way each informer synced.
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
export ATTUNE_PORT_BASE=${ATTUNE_PORT_BASE:-16440}
ATTUNE_RUN=${ATTUNE_RUN:-$here/e2e/.run}
dir=$ATTUNE_RUN/cluster
manager=${ATTUNE_MANAGER:-$here/${BUILD:-build}/src/manager/attune-manager}
[ -x "$manager" ] || { echo "watchlist-probe: $manager is not built" >&2; exit 2; }
minors=("$@")
[ ${#minors[@]} -gt 0 ] || mapfile -t minors < <(awk '!/^#/ && NF {print $1}' "$here/hack/k8s-versions.txt")
trap '"$here/hack/cluster.sh" down >/dev/null 2>&1 || true' EXIT
printf '%-6s %-10s %-12s %-11s %s\n' minor version http end-bookmark "manager (--watch-list=true)"
for m in "${minors[@]}"; do
  "$here/hack/cluster.sh" up --k8s "$m" --nodes 1 --no-prometheus >/dev/null 2>&1 \
    || { printf '%-6s cluster did not come up\n' "$m"; continue; }
  . "$dir/env"
  body=$(curl -sS -N --max-time 8 --cacert "$dir/pki/ca.crt" --cert "$dir/pki/admin.crt" --key "$dir/pki/admin.key" \
    -H 'Accept: application/json' -A attune-probe -w '\nHTTP %{http_code}' \
    "$API_SERVER/api/v1/namespaces?watch=1&sendInitialEvents=true&resourceVersionMatch=NotOlderThan&allowWatchBookmarks=true&timeoutSeconds=5" 2>/dev/null || true)
  code=$(printf '%s' "$body" | sed -n 's/^HTTP //p' | tail -1)
  if printf '%s' "$body" | grep -q 'k8s.io/initial-events-end'; then end=yes; else end=no; fi
  log=$(mktemp)
  "$manager" --kubeconfig "$dir/kubeconfig" --metrics-bind-address 127.0.0.1:0 --metrics-secure=false --log-format text --watch-list=true \
    >"$log" 2>&1 &
  pid=$!
  for _ in $(seq 1 100); do grep -q "informers synced" "$log" && break; sleep 0.1; done
  kill -TERM "$pid" 2>/dev/null; wait "$pid" 2>/dev/null || true
  via=$(grep -o 'resource=deployments.apps via=[a-z-]*' "$log" | sed 's/.*via=//' | sort -u | tr '\n' ' ')
  refused=$(grep 'WatchList not served' "$log" | grep -o 'error="[^"]*' | head -1 | sed 's/error="//' | cut -c1-70 || true)
  [ -n "$refused" ] && via="$via(refused: $refused)"
  rm -f "$log"
  printf '%-6s %-10s %-12s %-11s %s\n' "$m" "$K8S_VERSION" "${code:-none}" "$end" "${via:-no sync}"
  "$here/hack/cluster.sh" down >/dev/null 2>&1 || true
done
