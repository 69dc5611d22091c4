#!/usr/bin/env bash
# kubectl attune status, recommendations, explain and history on the real
# apiserver, in table and JSON: the policy's status.idleWorkloads comes from
# a real attune-manager; recommendations (with their explanation chain),
# conditions, counters and resize history are written by the test through
# the status subresource in the documented shape (attune-api.md §3, the
# shape the core's encoders write), and one ResizeSkipped Event by the test,
# as the manager's recommendation wiring (#7) and executor (#9) will write
# them. explain shows the chain step by step with the effective percentile
# (the defaults merge), the history, the Event that names the workload's
# pod, and the pods; an idle workload is explained as idle; -w prints a row
# when the status changes.
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/70_manager_lib.bash"
. "$(dirname "$0")/87_cli_lib.bash"
require_cli
require_manager
apply_policy_crd
test_namespace
start_manager --workers 2
tmp=$(mktemp -d)
at_exit "rm -rf $tmp"

k -n "$ns" apply -f - >/dev/null <<'YAML'
apiVersion: apps/v1
kind: Deployment
metadata: {name: web, labels: {tier: web}}
spec:
  replicas: 2
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web}}
    spec: {containers: [{name: app, image: attune.local/pause:1, resources: {requests: {cpu: 500m, memory: 256Mi}, limits: {cpu: "1", memory: 512Mi}}}]}
---
apiVersion: apps/v1
kind: Deployment
metadata: {name: batch, labels: {tier: web}}
spec:
  replicas: 0
  selector: {matchLabels: {app: batch}}
  template:
    metadata: {labels: {app: batch}}
    spec: {containers: [{name: app, image: attune.local/pause:1}]}
---
apiVersion: attune.io/v1alpha1
kind: AttunePolicy
metadata: {name: web}
spec:
  targetRef: {kind: Deployment, selector: {matchLabels: {tier: web}}}
  updateStrategy: {type: Auto}
  cpu: {}
  memory: {}
YAML
pods_ready() { [ "$(k -n "$ns" get deployment web -o jsonpath='{.status.readyReplicas}')" = 2 ]; }
wait_until 60 pods_ready || fail "web never got 2 ready pods"
idle_is_batch() { [ "$(k -n "$ns" get attunepolicy web -o json | jq -c '[(.status.idleWorkloads // [])[].workload]')" = '["batch"]' ]; }
wait_until 30 idle_is_batch || fail "the manager did not list batch in status.idleWorkloads"
pod=$(k -n "$ns" get pods -l app=web -o jsonpath='{.items[0].metadata.name}')

now=$(date -u +%FT%TZ)
k -n "$ns" patch attunepolicy web --subresource=status --type=merge -p "$(cat <<JSON
{"status": {
  "conditions": [
    {"type": "Ready", "status": "True", "reason": "Monitoring", "message": "1 workload has recommendations", "lastTransitionTime": "$now", "observedGeneration": 1},
    {"type": "ResizeBlocked", "status": "True", "reason": "PodsDeferred", "message": "1 pod Deferred", "lastTransitionTime": "$now", "observedGeneration": 1}],
  "workloads": {"discovered": 2, "withRecommendations": 1, "resized": 1, "pending": 0, "deferred": 1, "infeasible": 0},
  "recommendations": [{"workload": "web", "kind": "Deployment", "stale": false, "lastDataTime": "$now",
    "containers": [{"name": "app", "confidence": 0.93, "dataPoints": 120, "lastUpdated": "$now",
      "current": {"cpuRequest": "500m", "cpuLimit": "1", "memoryRequest": "256Mi", "memoryLimit": "512Mi"},
      "recommended": {"cpuRequest": "250m", "cpuLimit": "1", "memoryRequest": "192Mi", "memoryLimit": "512Mi"},
      "explanation": {"cpu": {"rawPercentile": "101m", "overhead": 20, "afterOverhead": "122m", "burstFactor": 1.05,
        "afterBurst": "128m", "confidence": 0.93, "confidenceFactor": 1.02, "afterConfidence": "131m",
        "bounds": {"min": "1m", "max": "4"}, "afterBounds": "131m", "minChangePercent": 10, "maxChangePercent": 50,
        "changeFilterApplied": "max_change_capped", "afterChangeFilter": "250m", "final": "250m"}}}]}],
  "resizeHistory": [
    {"timestamp": "$now", "workload": "web", "container": "app", "from": "500m", "to": "250m", "resource": "cpu", "method": "InPlace", "result": "Success"},
    {"timestamp": "$now", "workload": "web", "container": "app", "from": "250m", "to": "500m", "resource": "cpu", "method": "InPlace", "result": "Reverted", "reason": "oomkill"}]
}}
JSON
)" >/dev/null
k -n "$ns" apply -f - >/dev/null <<YAML
apiVersion: events.k8s.io/v1
kind: Event
metadata: {name: web-resize-skipped}
eventTime: "$(date -u +%FT%T.000000Z)"
reportingController: attune.io/e2e
reportingInstance: e2e
action: resize
reason: ResizeSkipped
type: Warning
note: "pod $pod container app: node_capacity (written by the e2e test)"
regarding: {apiVersion: attune.io/v1alpha1, kind: AttunePolicy, name: web, namespace: $ns}
YAML

# status
cli_rc status -n "$ns"
[ "$cli_status" = 0 ] || fail "status exited $cli_status: $cli_err"
echo "$cli_out" | sed 's/^/    /' >&2
grep -qE '^NAME +MODE +PHASE +WORKLOADS +RESIZED +DEFERRED +INFEASIBLE +IDLE +CONDITIONS$' <<<"$cli_out" || fail "status header: $cli_out"
grep -qE '^web +Auto +Monitoring +2 +1 +1 +0 +1 +Ready=True,ResizeBlocked=True$' <<<"$cli_out" || fail "status row: $cli_out"
cli_rc status -n "$ns" -o json
jq -e '.items | length == 1' <<<"$cli_out" >/dev/null || fail "status -o json: $cli_out"
jq -e '.items[0] | .phase == "Monitoring" and .mode == "Auto" and .workloads.deferred == 1 and .idleWorkloads[0].workload == "batch"
  and .idleWorkloads[0].reason == "WorkloadReplicasZero"' <<<"$cli_out" >/dev/null || fail "status -o json fields: $cli_out"
cli_rc status -A --no-headers
grep -qE "^$ns +web +Auto +Monitoring" <<<"$cli_out" || fail "status -A: $cli_out"
cli_rc status -n "$ns" -o wide
grep -q "1 workload has recommendations" <<<"$cli_out" || fail "status -o wide has no message: $cli_out"
cli_rc status nope -n "$ns"
expect_eq "status of a missing policy" "$cli_status" 1
grep -q 'attunepolicies.attune.io "nope" not found' <<<"$cli_err" || fail "missing policy: $cli_err"

# recommendations
cli_rc recommendations -n "$ns"
echo "$cli_out" | sed 's/^/    /' >&2
grep -qE '^web +Deployment/web +app +500m -> 250m +256Mi -> 192Mi +0.93 +120$' <<<"$cli_out" || fail "recommendations row: $cli_out"
cli_rc recommendations -n "$ns" --workload deployment/web -o json
jq -e '.items[0] | .container == "app" and .current.cpuRequest == "500m" and .recommended.cpuRequest == "250m"
  and .confidence == 0.93 and .dataPoints == 120' <<<"$cli_out" >/dev/null || fail "recommendations -o json: $cli_out"
cli_rc recommendations -n "$ns" --workload statefulset/web
grep -q "No recommendations found" <<<"$cli_err" || fail "a filter that matches nothing: $cli_err"

# history
cli_rc history -n "$ns"
echo "$cli_out" | sed 's/^/    /' >&2
grep -qE "^$now +web +web +app +cpu +500m +250m +Success +<none>$" <<<"$cli_out" || fail "history Success row: $cli_out"
grep -qE "^$now +web +web +app +cpu +250m +500m +Reverted +oomkill$" <<<"$cli_out" || fail "history Reverted row: $cli_out"
cli_rc history -n "$ns" -o json --workload web
jq -e '.items | length == 2 and .[1].result == "Reverted" and .[1].reason == "oomkill" and .[0].method == "InPlace"' <<<"$cli_out" >/dev/null \
  || fail "history -o json: $cli_out"

# explain
cli_rc explain deployment/web -n "$ns"
[ "$cli_status" = 0 ] || fail "explain exited $cli_status: $cli_err"
echo "$cli_out" | sed 's/^/    /' >&2
for part in "Deployment $ns/web   policy web (Auto, Monitoring)" "container app   confidence 0.93, 120 data points" \
            "1. p95 of usage" "2. +20% overhead" "6. change filter (min 10%, max 50%)" "(step capped at the maximum change)" \
            "Resize: reverted" "ResizeBlocked=True PodsDeferred" "ResizeSkipped: pod $pod container app: node_capacity" \
            "Pods:" "$pod  resize none"; do
  grep -qF -- "$part" <<<"$cli_out" || fail "explain lacks '$part'"
done
cli_rc explain deployment/web -n "$ns" -o json
jq -e --arg pod "$pod" '.policy.name == "web" and .verdict == "reverted" and (.pods | length == 2)
  and (.recommendation.containers[0].steps.cpu | length == 7) and .recommendation.containers[0].steps.cpu[0].step == "p95 of usage"
  and any(.events[]; .reason == "ResizeSkipped" and (.note | contains($pod)))
  and (.history | length == 2)' <<<"$cli_out" >/dev/null || fail "explain -o json: $cli_out"
cli_rc explain deploy batch -n "$ns" -o json
jq -e '.idle.reason == "WorkloadReplicasZero" and any(.reasons[]; .kind == "idle")' <<<"$cli_out" >/dev/null \
  || fail "explain of the idle workload: $cli_out"
cli_rc explain deployment/ghost -n "$ns"
expect_eq "explain of a missing workload" "$cli_status" 1
grep -q 'deployments.apps "ghost" not found' <<<"$cli_err" || fail "explain of a missing workload: $cli_err"

# status -w: a row when the status changes, then exit 0 at --request-timeout.
"$ATTUNE_CLI" status -n "$ns" -w --request-timeout 20s >"$tmp/watch" 2>"$tmp/watch.err" &
watch_pid=$!
at_exit "kill $watch_pid 2>/dev/null"
wait_until 10 grep -q '^web ' "$tmp/watch" || fail "status -w printed no first table"
k -n "$ns" patch attunepolicy web --subresource=status --type=merge -p '{"status":{"workloads":{"resized":2}}}' >/dev/null
second_row() { [ "$(grep -cE '^web +Auto +Monitoring +2 +2 ' "$tmp/watch")" = 1 ]; }
wait_until 15 second_row || fail "status -w printed no changed row: $(cat "$tmp/watch" "$tmp/watch.err")"
set +e; wait "$watch_pid"; rc=$?; set -e
expect_eq "status -w exit at --request-timeout" "$rc" 0
expect_eq "header lines in status -w" "$(grep -c '^NAME' "$tmp/watch")" 1
log "status -w: $(wc -l <"$tmp/watch") lines, exit $rc"
