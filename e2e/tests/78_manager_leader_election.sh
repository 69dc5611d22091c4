#!/usr/bin/env bash
# Leader election on a Lease (15 s / 10 s / 2 s): of two managers only the
# leader works; SIGTERM makes it stop within 10 s and release the Lease, and
# the standby takes over at once (not after the 15 s lease) and carries on
# writing the policy status.
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/70_manager_lib.bash"
require_manager
apply_policy_crd
test_namespace
le_flags=(--leader-elect --leader-election-namespace "$ns" --leader-election-id attune-e2e)

leader_of() { curl -fsS --max-time 3 "http://127.0.0.1:$1/metrics" | awk '$1 == "attune_leader" { print $2 }'; }
is_leader() { [ "$(leader_of "$1")" = 1 ]; }
holder() { k -n "$ns" get lease attune-e2e -o jsonpath='{.spec.holderIdentity}' 2>/dev/null; }

start_manager "${le_flags[@]}"
a_pid=$MGR_PID a_port=$MGR_PORT a_log=$MGR_LOG
at_exit "kill -TERM $a_pid 2>/dev/null"
wait_until 30 is_leader "$a_port" || fail "the first manager never became leader"
a_id=$(holder)
[ -n "$a_id" ] || fail "the Lease has no holder"
log "leader: $a_id"

start_manager "${le_flags[@]}"
b_port=$MGR_PORT
sleep 5
[ "$(leader_of "$b_port")" = 0 ] || fail "the second manager leads too (attune_leader=$(leader_of "$b_port"))"
expect_eq "lease holder" "$(holder)" "$a_id"

apply_web_policy
idle_deployment first
wait_eq 30 '["first"]' idle_names || fail "the leader did not write the status: $(idle_names)"
grep -q "policy status written" "$MGR_LOG" && fail "the standby wrote status while not leading"

start=$(date +%s)
kill -TERM "$a_pid"
for i in $(seq 1 100); do kill -0 "$a_pid" 2>/dev/null || break; sleep 0.1; done
kill -0 "$a_pid" 2>/dev/null && fail "the leader did not exit within 10 s of SIGTERM"
grep -q "leader election released" "$a_log" || fail "the leader did not release the Lease"
wait_until 10 is_leader "$b_port" || fail "the standby did not take over within 10 s of the release"
log "standby leads $(( $(date +%s) - start )) s after SIGTERM to the leader"
[ "$(holder)" != "$a_id" ] || fail "the Lease still names the old leader"

idle_deployment second
wait_eq 30 '["first","second"]' idle_names || fail "the new leader did not update the status: $(idle_names)"
