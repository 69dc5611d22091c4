#!/usr/bin/env bash
# Certificate rotation under steady pod CREATE load, with no failed
# admission (docs/webhook.md). The manager runs with short lifetimes (serving
# certificate 30 s, CA 100 s, the next CA published 10 s before it signs), so
# within the run the serving certificate is reissued and hot-reloaded several
# times and the CA is rotated at least once. Meanwhile the ReplicaSet
# controller keeps creating pods (the test deletes them as fast as they come).
# Counted from the apiserver: every call to the webhook answered 200, none
# failed open; and every pod created in the window was sized. A second
# replica, sharing the Secret, serves the same certificate as the first
# (within one resync of a rotation).
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/70_manager_lib.bash"
. "$(dirname "$0")/51_webhook_lib.bash"
webhook_test
DURATION=${ROTATION_LOAD_SECONDS:-150}
# The cluster's free port base+2 (WEBHOOK_PORT is base+8; base+9 is the
# Pushgateway's): docs/local-control-plane.md.
REPLICA_PORT=$((WEBHOOK_PORT - 6))
deployment_with_policy load '{terminationGracePeriodSeconds: 0, containers: [{name: app, image: attune.local/pause:1, resources: {requests: {cpu: "1", memory: 512Mi}}}]}'
set_recommendation load Deployment load app 10m 16Mi
rotation=(--webhook-cert-validity=30s --webhook-ca-validity=100s --webhook-ca-overlap=10s --webhook-cert-resync=2s)
start_webhook_manager "${rotation[@]}"
MAIN_PID=$MGR_PID MAIN_PORT=$MGR_PORT MAIN_LOG=$MGR_LOG
# stop_manager at exit stops whichever MGR_PID is current: the first one too.
at_exit "kill -TERM $MAIN_PID 2>/dev/null"
wait_webhook_called
wait_until 30 replicaset_of load || fail "no ReplicaSet for load"
wait_eq 30 10m next_pod_cpu load || fail "the load's pods would not be sized: $(cat "$ATTUNE_RUN/probe.err")"

# The second replica: same Secret and configuration, its own port; it keeps
# the url the first one wrote (no --webhook-url) and only ever reads or
# rotates the shared Secret.
MGR_PID=""; MGR_PORT=""
start_manager --webhook --webhook-bind-address "127.0.0.1:$REPLICA_PORT" --webhook-namespace "$opns" \
  --webhook-configuration-name "$WH" "${rotation[@]}"
SECOND_PID=$MGR_PID SECOND_PORT=$MGR_PORT
at_exit "kill -TERM $SECOND_PID 2>/dev/null"
MGR_PID=$MAIN_PID MGR_PORT=$MAIN_PORT MGR_LOG=$MAIN_LOG
# Rotations counted over both replicas: either may be the one that writes.
both() { local m=$1 re=$2 p sum=0; for p in "$MAIN_PORT" "$SECOND_PORT"; do
  sum=$(( sum + $(MGR_PORT=$p metric_sum "$m" "$re") )); done; echo "$sum"; }

# The pods created in the window, as the apiserver stored them.
events="$ATTUNE_RUN/$ns-pod-events"
k -n "$ns" get pods -l app=load -w --output-watch-events \
  -o jsonpath='{.type} {.object.metadata.name} {.object.metadata.annotations.attune\.io/initial-sizing} {.object.spec.containers[0].resources.requests.cpu}{"\n"}' \
  > "$events" 2>/dev/null & watcher=$!
at_exit "kill $watcher 2>/dev/null; rm -f '$events'"
sleep 1

name=pods.attune.io
calls0=$(apiserver_metric apiserver_admission_webhook_request_total "name=\"$name\"")
ok0=$(apiserver_metric apiserver_admission_webhook_request_total "name=\"$name\".*code=\"200\"|code=\"200\".*name=\"$name\"")
open0=$(apiserver_metric apiserver_admission_webhook_fail_open_count "name=\"$name\"")
rej0=$(apiserver_metric apiserver_admission_webhook_rejection_count "name=\"$name\"")
serving0=$(both attune_webhook_certificate_rotations_total 'kind="serving_issued"')
promoted0=$(both attune_webhook_certificate_rotations_total 'kind="ca_promoted"')
reloads0=$(metric_sum attune_webhook_certificate_reloads_total)

log "steady CREATE load for ${DURATION}s while the certificates rotate"
k -n "$ns" scale deployment load --replicas=6 >/dev/null
end=$(( $(date +%s) + DURATION ))
served_fingerprint() {
  echo | openssl s_client -connect "127.0.0.1:$1" 2>/dev/null | openssl x509 -noout -fingerprint -sha256 2>/dev/null || true
}
same=0 compared=0 round=0
while [ "$(date +%s)" -lt "$end" ]; do
  k -n "$ns" delete pods -l app=load --wait=false --grace-period=0 --force >/dev/null 2>&1 || true
  sleep 1
  # Both replicas serve one certificate: a sample may catch them apart
  # right after a rotation, but within a resync (2 s) they must agree.
  round=$((round + 1))
  if (( round % 8 == 0 )); then
    compared=$((compared + 1))
    for try in 1 2 3; do
      a=$(served_fingerprint "$WEBHOOK_PORT") b=$(served_fingerprint "$REPLICA_PORT")
      if [ -n "$a" ] && [ "$a" = "$b" ]; then same=$((same + 1)); break; fi
      sleep 1.5
    done
  fi
done
k -n "$ns" scale deployment load --replicas=0 >/dev/null
sleep 3
kill "$watcher" 2>/dev/null || true

calls=$(( $(apiserver_metric apiserver_admission_webhook_request_total "name=\"$name\"") - calls0 ))
ok=$(( $(apiserver_metric apiserver_admission_webhook_request_total "name=\"$name\".*code=\"200\"|code=\"200\".*name=\"$name\"") - ok0 ))
open=$(( $(apiserver_metric apiserver_admission_webhook_fail_open_count "name=\"$name\"") - open0 ))
rej=$(( $(apiserver_metric apiserver_admission_webhook_rejection_count "name=\"$name\"") - rej0 ))
serving=$(( $(both attune_webhook_certificate_rotations_total 'kind="serving_issued"') - serving0 ))
promoted=$(( $(both attune_webhook_certificate_rotations_total 'kind="ca_promoted"') - promoted0 ))
reloads=$(( $(metric_sum attune_webhook_certificate_reloads_total) - reloads0 ))
created=$(awk '$1 == "ADDED" && !seen[$2]++' "$events" | wc -l)
sized=$(awk '$1 == "ADDED" && !seen[$2]++ && $3 == "applied" && $4 == "10m"' "$events" | wc -l)
log "apiserver: $calls webhook calls, $ok answered 200, $open failed open, $rej rejected; pods created $created, sized $sized"
log "managers: $serving serving certificates issued, $promoted CA promotions (both replicas), $reloads hot reloads (first replica); replicas agreed within a resync $same/$compared times"
[ "$created" -ge 100 ] || fail "the load created only $created pods"
[ "$serving" -ge 3 ] || fail "only $serving serving rotations in the window"
[ "$promoted" -ge 1 ] || fail "no CA rotation in the window"
[ "$reloads" -ge 3 ] || fail "the server reloaded its certificate only $reloads times"
expect_eq "calls answered 200" "$ok" "$calls"
expect_eq "calls that failed open" "$open" 0
expect_eq "rejected calls" "$rej" 0
expect_eq "pods sized" "$sized" "$created"
[ "$compared" -ge 1 ] && [ "$same" = "$compared" ] || fail "the replicas served different certificates ($same/$compared agreed)"
kill -0 "$MAIN_PID" && kill -0 "$SECOND_PID" || fail "a replica died"
