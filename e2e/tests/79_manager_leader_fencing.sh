#!/usr/bin/env bash
# Leader fencing (docs/safety.md), extending 78: the leader's apiserver
# connection stalls (a proxy stops relaying without closing anything). The
# leader must stop leading within its 10 s renew deadline, strictly before
# the standby can take the Lease (15 s after it last saw a renewal), so that
# there is never a moment with two leaders; then the standby writes the
# status. Before the fix, the stuck lease read waited out the client's
# timeouts and retries and the old leader kept leading past the 15 s lease.
# Observed through kubectl (Lease holder, policy status) and the managers'
# own /metrics (attune_leader).
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/70_manager_lib.bash"
require_local "a loopback proxy in front of the local apiserver"
require_manager
apply_policy_crd
test_namespace
le_flags=(--leader-elect --leader-election-namespace "$ns" --leader-election-id attune-fence)

leader_of() { curl -fsS --max-time 1 "http://127.0.0.1:$1/metrics" 2>/dev/null | awk '$1 == "attune_leader" { print $2 }'; }
is_leader() { [ "$(leader_of "$1")" = 1 ]; }
holder() { k -n "$ns" get lease attune-fence -o jsonpath='{.spec.holderIdentity}' 2>/dev/null; }
now_ms() { date +%s%3N; }

# Manager A talks to the apiserver through the stall proxy.
server=$(k config view --minify -o jsonpath='{.clusters[0].cluster.server}')
api_host=$(sed -E 's#https://([^:/]+):([0-9]+).*#\1#' <<<"$server")
api_port=$(sed -E 's#https://([^:/]+):([0-9]+).*#\2#' <<<"$server")
proxy_log="$ATTUNE_RUN/stall-proxy-$ns.log"
python3 "$REPO_ROOT/e2e/testproxy/stall_proxy.py" "$api_host" "$api_port" >"$proxy_log" 2>&1 &
proxy_pid=$!
at_exit "kill -TERM $proxy_pid 2>/dev/null"
wait_until 10 grep -q '^port ' "$proxy_log" || fail "the stall proxy did not start"
proxy_port=$(awk '/^port /{print $2}' "$proxy_log")
kc_a="$ATTUNE_RUN/kubeconfig-stalled-$ns"
k config view --minify --flatten >"$kc_a"
KUBECONFIG="$kc_a" "$KUBECTL" config set-cluster "$(k config view --minify -o jsonpath='{.clusters[0].name}')" \
  --server "https://$api_host:$proxy_port" >/dev/null
at_exit "rm -f $kc_a $proxy_log"

KUBECONFIG="$kc_a" start_manager "${le_flags[@]}"
a_pid=$MGR_PID a_port=$MGR_PORT a_log=$MGR_LOG
at_exit "kill -TERM $a_pid 2>/dev/null"
wait_until 30 is_leader "$a_port" || fail "manager A never became leader"
a_id=$(holder)
start_manager "${le_flags[@]}"
b_port=$MGR_PORT
sleep 3
[ "$(leader_of "$b_port")" = 0 ] || fail "B leads while A holds the Lease"

apply_web_policy
idle_deployment first
wait_eq 30 '["first"]' idle_names || fail "leader A did not write the status: $(idle_names)"

# Stall A's connection; watch who leads, every 200 ms, for up to 40 s.
kill -USR1 "$proxy_pid"
stalled_at=$(now_ms)
a_stopped="" b_took=""
for i in $(seq 1 200); do
  t=$(now_ms)
  if [ -z "$a_stopped" ] && ! is_leader "$a_port"; then a_stopped=$t; fi
  if [ -z "$b_took" ] && [ "$(holder)" != "$a_id" ] && [ -n "$(holder)" ]; then b_took=$t; fi
  [ -n "$a_stopped" ] && [ -n "$b_took" ] && break
  sleep 0.2
done
[ -n "$a_stopped" ] || fail "A still leads 40 s after its apiserver connection stalled"
[ -n "$b_took" ] || fail "B never took the Lease"
log "A stopped leading $(( a_stopped - stalled_at )) ms after the stall; B took the Lease after $(( b_took - stalled_at )) ms"
[ $(( a_stopped - stalled_at )) -le 12500 ] || fail "A stopped leading only after $(( a_stopped - stalled_at )) ms (renew deadline 10 s)"
[ "$a_stopped" -lt "$b_took" ] || fail "two leaders: B took the Lease before A stopped leading"
wait_until 10 is_leader "$b_port" || fail "B holds the Lease but does not lead"

idle_deployment second
wait_eq 30 '["first","second"]' idle_names || fail "the new leader B did not write the status: $(idle_names)"
kill -USR2 "$proxy_pid"
# Whatever A still had in flight drains now; none of it may land.
sleep 5
expect_eq "status after A's connection resumed" "$(idle_names)" '["first","second"]'
[ "$(holder)" != "$a_id" ] || fail "A took the Lease back"
grep -q "lost the leader lease" "$a_log" || fail "A did not report losing the lease"
