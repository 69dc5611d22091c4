#!/usr/bin/env bash
# kubectl attune migrate --from attune-go (docs/cli.md "migrate"): our manager
# takes over where the Go Attune ran, with no pod resized twice and no revert
# lost. The test writes with kubectl what the Go operator leaves behind:
#  - pod a: resized 500m -> 200m by "the Go operator" (kubectl's /resize), in
#    its safety period: the originals, a restart count, resized-at, the
#    tracked label, and its attune.io/policy;
#  - pod c: boosted 500m -> 800m, attune.io/startup-boost-at long past, the
#    tracked label (the Go operator's boost mark) and attune.io/policy;
#  - pod b: untouched;
#  - policy web: its finalizer attune.io/cleanup, the cooldown anchor
#    attune.io/last-resize-time (now), status.resizeHistory, status.cooldown
#    and status.canary as the Go operator writes them; policy broken: an anchor
#    that is not a time (a conflict);
#  - its leader Lease attune.attune.io, held and renewed.
# migrate refuses while the Lease is fresh; once stale, --dry-run,
# -o json and --dry-run=server change nothing (read back with kubectl); the
# real run keeps what our manager reads the same way, drops the Go-only keys,
# leaves the broken policy whole (exit 1) and holds the Lease. Then our manager
# runs, and kubectl plus the apiserver's own /resize count show: c's boost
# ends (one /resize), b waits out the Go cooldown (one /resize after it), a is
# never resized again, and a restart fault on a reverts it to the Go-recorded
# originals (one /resize): three in all.
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/70_manager_lib.bash"
. "$(dirname "$0")/87_cli_lib.bash"
. "$(dirname "$0")/90_executor_lib.bash"
require_local "kubesim's fault injection"
require_cli
require_manager
apply_policy_crd
test_namespace

# --- what the Go operator left --------------------------------------------------
web_deployment web 3
wait_all_at 90 web app "500m/1/256Mi/512Mi" || fail "pods never ran: $(spec_and_status web app)"
read -r a b c <<<"$(pod_names web | tr '\n' ' ')"
resize_cpu() {  # resize_cpu POD REQ: the Go operator's /resize, sent by the test before our manager runs
  k -n "$ns" patch pod "$1" --subresource resize --type strategic \
    -p "{\"spec\":{\"containers\":[{\"name\":\"app\",\"resources\":{\"requests\":{\"cpu\":\"$2\"}}}]}}" >/dev/null \
    || fail "the /resize of $1 to $2 was refused"
}
resize_cpu "$a" 200m
resize_cpu "$c" 800m
pod_at() { [ "$(spec_and_status web app | awk -v p="$1" '$1 == p { print $2 "|" $3 }')" = "$2|$2" ]; }
wait_until 60 pod_at "$a" "200m/1/256Mi/512Mi" || fail "$a never reached 200m: $(spec_and_status web app)"
wait_until 60 pod_at "$c" "800m/1/256Mi/512Mi" || fail "$c never reached 800m: $(spec_and_status web app)"

now=$(date -u +%Y-%m-%dT%H:%M:%SZ)
k -n "$ns" label pod "$a" "$c" attune.io/tracked=true >/dev/null
k -n "$ns" annotate pod "$a" attune.io/policy=web attune.io/resized-at="$now" attune.io/resized-workload=web \
  attune.io/resized-containers=app attune.io/original-cpu-request.app=500m attune.io/original-memory-request.app=256Mi \
  attune.io/original-cpu-limit.app=1 attune.io/original-memory-limit.app=512Mi attune.io/original-restart-count.app=0 \
  >/dev/null
k -n "$ns" annotate pod "$c" attune.io/policy=web \
  attune.io/startup-boost-at="$(date -u -d '-10 min' +%Y-%m-%dT%H:%M:%SZ)" >/dev/null

policy_json() {  # policy_json NAME TARGET
  jq -n --arg name "$1" --arg target "$2" '{
    apiVersion: "attune.io/v1alpha1", kind: "AttunePolicy",
    metadata: {name: $name, finalizers: ["attune.io/cleanup"]},
    spec: {
      targetRef: {kind: "Deployment", name: $target},
      metricsSource: {manual: {containers: [{name: "app", resources: {requests: {cpu: "200m"}}}]}},
      cpu: {controlledValues: "RequestsAndLimits", startupBoost: {multiplier: "4", duration: "1m"}},
      memory: {controlledValues: "RequestsAndLimits"},
      updateStrategy: {type: "Auto", cooldown: "2m", safetyObservationPeriod: "15m"}}}'
}
drop_finalizers() {  # so the namespace can go, whatever the test reached
  local p
  for p in web broken; do k -n "$ns" patch attunepolicy "$p" --type merge -p '{"metadata":{"finalizers":null}}' >/dev/null 2>&1; done
}
at_exit drop_finalizers
policy_json web web | k -n "$ns" apply -f - >/dev/null || fail "policy web was refused"
policy_json broken none | k -n "$ns" apply -f - >/dev/null || fail "policy broken was refused"
k -n "$ns" annotate attunepolicy web attune.io/last-resize-time="$now" >/dev/null
k -n "$ns" annotate attunepolicy broken attune.io/last-resize-time=yesterday >/dev/null
entry() {  # entry POD-TIME RESULT [REASON]
  jq -nc --arg t "$1" --arg r "$2" --arg why "${3:-}" '{timestamp: $t, workload: "web", container: "app",
    resource: "cpu", from: "500m", to: "200m", method: "InPlace", result: $r} + (if $why == "" then {} else {reason: $why} end)'
}
history=$(jq -sc . <(entry "$(date -u -d '-3 hour' +%Y-%m-%dT%H:%M:%SZ)" Reverted oomkill) <(entry "$now" Success))
k -n "$ns" patch attunepolicy web --subresource status --type merge -p "{\"status\": {\"resizeHistory\": $history,
  \"cooldown\": {\"effectiveCooldown\": \"2m0s\", \"backoffMultiplier\": 1, \"consecutiveReverts\": 0},
  \"canary\": {\"phase\": \"CanaryInProgress\"}}}" >/dev/null || fail "the Go status was refused"

micro() { date -u -d "$1" +%Y-%m-%dT%H:%M:%S.000000Z; }
k -n "$ns" apply -f - >/dev/null <<YAML || fail "the Go Lease was refused"
apiVersion: coordination.k8s.io/v1
kind: Lease
metadata: {name: attune.attune.io}
spec: {holderIdentity: attune-5d8f7c9b4-x2x9z_3f1e2d, leaseDurationSeconds: 15, acquireTime: "$(micro '-1 hour')",
       renewTime: "$(micro now)", leaseTransitions: 2}
YAML

# What migrate may change, as kubectl reads it.
state() {
  { k -n "$ns" get pods -o json | jq -c '[.items[] | {n: .metadata.name, l: .metadata.labels, a: .metadata.annotations,
      r: [.spec.containers[].resources]}] | sort_by(.n)'
    k -n "$ns" get attunepolicy -o json | jq -c '[.items[] | {n: .metadata.name, f: .metadata.finalizers,
      a: .metadata.annotations, s: (.status | {resizeHistory, cooldown, canary})}] | sort_by(.n)'
    k -n "$ns" get lease attune.attune.io -o json | jq -c .spec; } | sha256sum
}
go=(migrate --from attune-go -n "$ns" --go-namespace "$ns")

# --- the Go operator still leads: refused, nothing changed ----------------------
before=$(state)
cli_rc "${go[@]}"
expect_eq "exit while the Go Lease is fresh" "$cli_status" 1
grep -q "the Go operator leads: lease $ns/attune.attune.io is held by attune-5d8f7c9b4-x2x9z_3f1e2d" <<<"$cli_err" \
  || fail "the refusal does not say the Go operator leads: $cli_err"
expect_eq "objects after the refusal" "$(state)" "$before"

# --- stopped (its Lease no longer renewed): dry runs change nothing ---------------
k -n "$ns" patch lease attune.attune.io --type merge -p "{\"spec\":{\"renewTime\":\"$(micro '-5 min')\"}}" >/dev/null
before=$(state)
cli_rc "${go[@]}" --dry-run
[ "$cli_status" = 1 ] || fail "the dry run did not report the broken policy (exit $cli_status): $cli_out $cli_err"
log "dry run:"$'\n'"$cli_out"
for want in "lease $ns/attune.attune.io: last held by attune-5d8f7c9b4-x2x9z_3f1e2d, renewed 3[0-9][0-9]s ago \\(lease 15s\\): expired: taken over: held by kubectl-attune-migrate" \
  "attunepolicy $ns/web: finalizer attune.io/cleanup: dropped" \
  "attunepolicy $ns/web: annotation attune.io/last-resize-time: kept: the cooldown anchor" \
  "attunepolicy $ns/web: status.resizeHistory: kept: 2 entries" \
  "attunepolicy $ns/web: status.canary: dropped" \
  "attunepolicy.attune.io/web patched \\(dry run\\)" \
  "pod $ns/$a: resize tracking: kept: .* a revert goes back to these originals \\(containers app, resized at $now\\)" \
  "pod $ns/$a: annotation attune.io/policy: dropped" \
  "pod $ns/$c: label attune.io/tracked: dropped: no originals: the Go operator's mark of a boosted pod" \
  "pod $ns/$c: annotation attune.io/startup-boost-at: kept" \
  "pod/$a patched \\(dry run\\)" "pod/$c patched \\(dry run\\)"; do
  grep -qE -- "$want" <<<"$cli_out" || fail "the dry run does not say '$want': $cli_out"
done
grep -q "error: attunepolicy $ns/broken: annotation attune.io/last-resize-time: \"yesterday\" is not an RFC 3339 time" <<<"$cli_err" \
  || fail "the broken anchor is not named: $cli_err"
grep -q "error: attunepolicy $ns/broken: not migrated; nothing of it was changed" <<<"$cli_err" || fail "broken: $cli_err"
! grep -q "$b" <<<"$cli_out" || fail "pod $b, untouched by the Go operator, is named: $cli_out"
expect_eq "objects after --dry-run" "$(state)" "$before"

cli_rc "${go[@]}" --dry-run -o json
jq -e --arg a "$a" --arg c "$c" '.kind == "List" and
  ([.items[] | select(.kind == "AttunePolicy" and .metadata.name == "web")][0]
    | (.metadata.finalizers // []) == [] and .status.canary == null and (.status.resizeHistory | length) == 2
      and .metadata.annotations["attune.io/last-resize-time"] != null) and
  ([.items[] | select(.kind == "Pod" and .metadata.name == $a)][0].metadata
    | .annotations["attune.io/policy"] == null and .annotations["attune.io/original-cpu-request.app"] == "500m"
      and .labels["attune.io/tracked"] == "true") and
  ([.items[] | select(.kind == "Pod" and .metadata.name == $c)][0].metadata
    | .labels["attune.io/tracked"] == null and .annotations["attune.io/startup-boost-at"] != null) and
  ([.items[] | select(.kind == "Lease")][0].spec.holderIdentity == "kubectl-attune-migrate")' <<<"$cli_out" >/dev/null \
  || fail "-o json does not show the objects as they would be: $cli_out"
expect_eq "objects after --dry-run -o json" "$(state)" "$before"

cli_rc "${go[@]}" --dry-run=server
grep -q "pod/$a patched (server dry run)" <<<"$cli_out" || fail "--dry-run=server: $cli_out $cli_err"
grep -q "attunepolicy.attune.io/web patched (server dry run)" <<<"$cli_out" || fail "--dry-run=server: $cli_out"
expect_eq "objects after --dry-run=server" "$(state)" "$before"

# --- the real run -----------------------------------------------------------------
cli_rc "${go[@]}"
expect_eq "exit with the broken policy" "$cli_status" 1
for want in "attunepolicy.attune.io/web patched" "pod/$a patched" "pod/$c patched"; do
  grep -qx -- "$want" <<<"$cli_out" || fail "the run does not say '$want': $cli_out"
done
pol=$(k -n "$ns" get attunepolicy web -o json)
jq -e --arg now "$now" '(.metadata.finalizers // []) == [] and .metadata.annotations["attune.io/last-resize-time"] == $now
  and (.status.resizeHistory | length) == 2 and .status.cooldown.effectiveCooldown == "2m0s" and .status.canary == null' \
  <<<"$pol" >/dev/null || fail "policy web after the migration: $(jq -c '{metadata, status}' <<<"$pol")"
jq -e '.metadata.finalizers == ["attune.io/cleanup"] and .metadata.annotations["attune.io/last-resize-time"] == "yesterday"' \
  <(k -n "$ns" get attunepolicy broken -o json) >/dev/null || fail "policy broken was changed"
pa=$(k -n "$ns" get pod "$a" -o json | jq -c .metadata)
jq -e --arg now "$now" '.labels["attune.io/tracked"] == "true" and .annotations["attune.io/policy"] == null
  and .annotations["attune.io/resized-at"] == $now and .annotations["attune.io/original-cpu-request.app"] == "500m"
  and .annotations["attune.io/original-memory-limit.app"] == "512Mi"
  and .annotations["attune.io/original-restart-count.app"] == "0"' <<<"$pa" >/dev/null || fail "pod $a: $pa"
pc=$(k -n "$ns" get pod "$c" -o json | jq -c .metadata)
jq -e '.labels["attune.io/tracked"] == null and .annotations["attune.io/policy"] == null
  and .annotations["attune.io/startup-boost-at"] != null' <<<"$pc" >/dev/null || fail "pod $c: $pc"
jq -e '.holderIdentity == "kubectl-attune-migrate" and .leaseDurationSeconds == 315360000 and .leaseTransitions == 3' \
  <(k -n "$ns" get lease attune.attune.io -o json | jq .spec) >/dev/null \
  || fail "the Go Lease was not taken over: $(k -n "$ns" get lease attune.attune.io -o json | jq -c .spec)"
# Corrected, the broken policy migrates too; a second run finds the rest done.
k -n "$ns" annotate attunepolicy broken attune.io/last-resize-time- >/dev/null
cli_rc "${go[@]}"
expect_eq "exit of the second run" "$cli_status" 0
grep -q "lease $ns/attune.attune.io: held by kubectl-attune-migrate (an earlier migrate took it over): kept" <<<"$cli_out" \
  || fail "second run, Lease: $cli_out"
grep -qx "attunepolicy.attune.io/broken patched" <<<"$cli_out" || fail "second run, broken: $cli_out"
grep -qx "pod/$a unchanged" <<<"$cli_out" || fail "second run, pod $a: $cli_out"
! grep -q "pod/$c" <<<"$cli_out" || fail "second run: pod $c (no Go key left) is named: $cli_out"

# --- our manager takes over -------------------------------------------------------
oracle_begin
read -r sent0 _ _ < <(resize_counts)
anchor_end=$(( $(date -u -d "$now" +%s) + 120 ))
start_manager
# c: its boost is long over; it goes back to the recommendation (not gated by the cooldown).
wait_until 60 pod_at "$c" "200m/1/256Mi/512Mi" || fail "$c's boost never ended: $(spec_and_status web app)"
boost_cleared() { [ -z "$(k -n "$ns" get pod "$c" -o jsonpath='{.metadata.annotations.attune\.io/startup-boost-at}')" ]; }
wait_until 30 boost_cleared || fail "$c keeps attune.io/startup-boost-at"
# b: held by the Go operator's cooldown anchor; a: already at its target.
if [ "$(date -u +%s)" -lt $((anchor_end - 5)) ]; then
  pod_at "$b" "500m/1/256Mi/512Mi" || fail "$b was resized inside the Go cooldown: $(spec_and_status web app)"
fi
wait_until 180 pod_at "$b" "200m/1/256Mi/512Mi" || fail "$b never resized after the cooldown: $(spec_and_status web app)"
[ "$(date -u +%s)" -ge "$anchor_end" ] || fail "$b resized before the Go cooldown from $now ended"
pod_at "$a" "200m/1/256Mi/512Mi" || fail "$a changed: $(spec_and_status web app)"
read -r sent1 _ _ < <(resize_counts)
expect_eq "/resize requests before the fault (c's boost end, b)" "$((sent1 - sent0))" 2

# a: a restart fault inside its safety period: back to the originals the Go operator recorded.
k -n "$ns" annotate pod "$a" --overwrite sim.attune.io/restart-count='{"app": 2}' >/dev/null
wait_until 90 pod_at "$a" "500m/1/256Mi/512Mi" || fail "$a not reverted to the Go originals: $(spec_and_status web app)"
wait_until 30 has_history web Reverted restart || fail "no Reverted restart entry: $(history_of web)"
sleep 8  # a pass or two: nothing is sent again
read -r sent2 _ _ < <(resize_counts)
expect_eq "/resize requests in all (c's boost end, b, a's revert)" "$((sent2 - sent0))" 3
log "history: $(history_of web | jq -c '[.[] | [.result, .reason // ""]]')"
oracle_check
