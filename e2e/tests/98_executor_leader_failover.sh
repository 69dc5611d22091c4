#!/usr/bin/env bash
# Faults (docs/resize.md): two managers with leader election. Exactly one
# writes: the standby sends no /resize while the leader leads. The leader is
# stopped mid-rollout (eight replicas resized one at a time); the standby takes
# over, adopts what was in flight and finishes, and nothing is applied twice:
# the two managers' logs hold one "resize sent" per pod between them, and each
# pod's generation moved by exactly one resize (1.33+).
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/70_manager_lib.bash"
. "$(dirname "$0")/90_executor_lib.bash"
require_manager
apply_policy_crd
test_namespace
oracle_begin
le_flags=(--leader-elect --leader-election-namespace "$ns" --leader-election-id attune-failover)
leader_of() { curl -fsS --max-time 3 "http://127.0.0.1:$1/metrics" | awk '$1 == "attune_leader" { print $2 }'; }
is_leader() { [ "$(leader_of "$1")" = 1 ]; }

k -n "$ns" apply -f - >/dev/null <<YAML
apiVersion: apps/v1
kind: Deployment
metadata: {name: lead}
spec:
  replicas: 8
  selector: {matchLabels: {app: lead}}
  template:
    metadata: {labels: {app: lead}}
    spec:
      containers:
      - name: app
        image: $POD_IMAGE
        resources: {requests: {cpu: 100m, memory: 64Mi}, limits: {cpu: "1", memory: 512Mi}}
YAML
at_100() { all_at lead app "100m/1/64Mi/512Mi" && [ "$(pod_names lead | wc -l)" = 8 ]; }
wait_until 90 at_100 || fail "pods never ran: $(spec_and_status lead app)"
gens0=$(pods_of lead | jq -c '[.items[] | {(.metadata.name): .metadata.generation}] | add')

start_manager "${le_flags[@]}"
a_pid=$MGR_PID a_port=$MGR_PORT a_log=$MGR_LOG
wait_until 30 is_leader "$a_port" || fail "manager A never led"
start_manager "${le_flags[@]}"
b_port=$MGR_PORT b_log=$MGR_LOG
sleep 2
[ "$(leader_of "$b_port")" = 0 ] || fail "B leads while A holds the Lease"

manual_policy lead lead Auto '[{"name":"app","resources":{"requests":{"cpu":"150m"}}}]'
done_count() { spec_and_status lead app | awk '$3 == "150m/1/64Mi/512Mi"' | wc -l; }
for _ in $(seq 1 600); do [ "$(done_count)" -ge 1 ] && break; sleep 0.1; done
[ "$(done_count)" -ge 1 ] || fail "A did not start the rollout: $(spec_and_status lead app)"
grep -q "resize sent" "$b_log" && fail "the standby sent a resize while A led"
log "stopping the leader with $(done_count) of 8 replicas resized"
kill -TERM "$a_pid"
for _ in $(seq 1 100); do kill -0 "$a_pid" 2>/dev/null || break; sleep 0.1; done
kill -0 "$a_pid" 2>/dev/null && fail "A did not exit on SIGTERM"
wait_until 20 is_leader "$b_port" || fail "B never took over"

wait_all_at 120 lead app "150m/1/64Mi/512Mi" || fail "B did not finish the rollout: $(spec_and_status lead app)"
sent_a=$(grep -c "resize sent" "$a_log" || true)
sent_b=$(grep -c "resize sent" "$b_log" || true)
log "resizes sent: A $sent_a, B $sent_b"
expect_eq "resizes sent by both managers together" "$((sent_a + sent_b))" 8
[ "$sent_b" -ge 1 ] || fail "B did not take part (the failover proved nothing)"
if [ "$K8S_MINOR" != 1.32 ]; then
  twice=$(pods_of lead | jq --argjson g0 "$gens0" '[.items[] | select(.metadata.generation != ($g0[.metadata.name] + 1))] | length')
  expect_eq "pods whose generation moved by other than one resize" "$twice" 0
fi
oracle_check
