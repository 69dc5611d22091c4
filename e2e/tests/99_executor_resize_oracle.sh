#!/usr/bin/env bash
# The oracle (docs/resize.md): across this minor's run, the real apiserver
# answered no /resize of Attune's with a 4xx. Each executor test (90-98)
# recorded the apiserver's own apiserver_request_total{resource="pods",
# subresource="resize"} delta while only the manager sent resizes; this
# prints the table for the minor and fails on any 4xx.
# e2e: runs after every other test
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/90_executor_lib.bash"
if [ ! -s "$ORACLE_FILE" ]; then
  # Run alone or with a filter, there may be nothing to read; after the whole
  # suite, nothing recorded means the executor tests proved nothing.
  [ -n "${E2E_FILTER:-}" ] || fail "the whole suite ran and no executor test recorded its /resize counts on $K8S_MINOR"
  skip "no executor test recorded its /resize counts on $K8S_MINOR in this run (filter '$E2E_FILTER')"
fi
ok=0 bad=0 other=0
printf '  %-34s %6s %6s %6s\n' "test (Kubernetes $K8S_MINOR)" 2xx 4xx other >&2
while IFS=$'\t' read -r name o b x; do
  printf '  %-34s %6d %6d %6d\n' "$name" "$o" "$b" "$x" >&2
  ok=$((ok + o)); bad=$((bad + b)); other=$((other + x))
done <"$ORACLE_FILE"
printf '  %-34s %6d %6d %6d\n' total "$ok" "$bad" "$other" >&2
rm -f "$ORACLE_FILE"
echo "  oracle: Kubernetes $K8S_MINOR answered $ok /resize of Attune's with 2xx and $bad with 4xx (apiserver_request_total)" >&2
[ "$bad" = 0 ] || fail "$bad /resize of Attune's were answered with a 4xx on $K8S_MINOR"
[ "$ok" -gt 0 ] || fail "no /resize was counted: the oracle saw nothing"
