#!/usr/bin/env bash
# kubectl attune status, recommendations, explain and history on the real
# apiserver, in table and JSON, over what a real attune-manager wrote; the
# test writes no status and no Event. One Auto policy with a Prometheus
# source (short windows, as hack/demo.sh) recommends from kubesim's simulated
# usage for three Deployments: web (over-provisioned: both pods right-sized
# in place, history Success and Resized Events, then one reverted after
# kubesim's restart-count fault, as in 94: history Reverted/restart and a
# Reverted Event), api (under-provisioned on a node whose simulated kubelet
# has less room, as in 93: its increase is Deferred, ResizeBlocked=True) and
# batch (0 replicas: idle). Every value the plugin prints is checked against
# what kubectl reads in the same resourceVersion of the policy: status
# against status.workloads/conditions/idleWorkloads, recommendations against
# status.recommendations, history against status.resizeHistory, explain's
# chain against the explanation (with the policy's own cpu percentile, p90,
# from the defaults merge), its verdict against the newest history result,
# its Events against the manager's and its pods against kubectl's; api is
# explained as pending (its pod's resize state as this minor reports it,
# ResizeBlocked), web without api's ResizeBlocked, batch as idle; -w prints
# the row the manager writes when the policy is paused. Text output and the
# Events show numbers as people read them (millicores, Ki/Mi/Gi, a
# percentage), each checked against kubectl's exact value through
# hack/readable.jq; -o json keeps the exact values.
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/70_manager_lib.bash"
. "$(dirname "$0")/87_cli_lib.bash"
. "$(dirname "$0")/90_executor_lib.bash"
. "$(dirname "$0")/recommend_lib.bash"
require_local "the harness's Prometheus and kubesim's simulated usage and faults"
require_cli
require_manager
apply_policy_crd
test_namespace
tmp=$(mktemp -d)
at_exit "rm -rf $tmp"

# web: usage far below the requests, so its recommendations are decreases,
# which no gate holds, and its history is exactly one Success per pod. The
# 5m cooldown keeps the next, smaller step (confidence grows) from resizing
# the pods again while we look.
web_deployment web 2 '{"app": {"cpu": "100m", "memory": "60Mi"}}'
# api: usage above its requests, on a node of its own whose simulated kubelet
# has less room than the Node says (kubesim's kubelet-allocatable, as in 93):
# a bare filler pod holds 600m of its 1200m, so the increase fits the Node
# (Attune's gate lets it through) but the kubelet Defers it.
tight="e2e-tight-$RANDOM"
sim_node "$tight" 2 8Gi
pinned="      nodeSelector: {kubernetes.io/hostname: $tight}
      tolerations: [{key: attune.io/e2e-dedicated, operator: Exists}]"
web_deployment api 1 '{"app": {"cpu": "700m", "memory": "200Mi"}}' "$pinned"
k -n "$ns" apply -f - >/dev/null <<YAML
apiVersion: v1
kind: Pod
metadata: {name: filler}
spec:
  containers: [{name: app, image: $POD_IMAGE, resources: {requests: {cpu: 600m, memory: 64Mi}}}]
  nodeSelector: {kubernetes.io/hostname: $tight}
  tolerations: [{key: attune.io/e2e-dedicated, operator: Exists}]
YAML
k -n "$ns" apply -f - >/dev/null <<'YAML'
apiVersion: apps/v1
kind: Deployment
metadata: {name: batch, labels: {tier: web}}
spec:
  replicas: 0
  selector: {matchLabels: {app: batch}}
  template:
    metadata: {labels: {app: batch}}
    spec: {containers: [{name: app, image: attune.local/pause:1}]}
YAML
jq -n --argjson ms "$(prometheus_source)" '{
  apiVersion: "attune.io/v1alpha1", kind: "AttunePolicy", metadata: {name: "web"},
  spec: {targetRef: {kind: "Deployment", selector: {matchLabels: {tier: "web"}}}, metricsSource: $ms,
    cpu: {percentile: 90}, memory: {allowDecrease: true},
    updateStrategy: {type: "Auto", cooldown: "5m", safetyObservationPeriod: "1m", maxConcurrentResizes: 10}}}' \
  | k -n "$ns" apply -f - >/dev/null || fail "policy web was refused"
wait_all_at 90 web app "500m/1/256Mi/512Mi" || fail "pods never ran at the template size: $(spec_and_status web app)"
wait_all_at 90 api app "500m/1/256Mi/512Mi" || fail "api never ran: $(spec_and_status api app)"
wait_until 60 pod_running "$ns" filler || fail "the filler pod never ran"
k annotate node "$tight" sim.attune.io/kubelet-allocatable='{"cpu": "1200m"}' --overwrite >/dev/null
# Harness wait, not a proof: the manager starts once Prometheus holds a few
# 10 s points of the cpu rate of each pod (the working set has its points
# earlier), so its first recommendations, and the resizes, carry both cpu
# and memory.
cpu_rate_points() {
  local now; now=$(date +%s)
  curl -sf --max-time 5 "$PROMETHEUS_URL/api/v1/query_range" --data-urlencode "start=$((now - 600))" \
    --data-urlencode "end=$now" --data-urlencode step=10 --data-urlencode \
    "query=rate(container_cpu_usage_seconds_total{namespace=\"$ns\",pod=~\"(web|api)-.*\",container=\"app\"}[30s])" \
    | jq '[.data.result[].values | length] | if length == 3 then min else 0 end'
}
cpu_points_enough() { [ "$(cpu_rate_points)" -ge 4 ]; }
wait_until 120 cpu_points_enough || fail "Prometheus has no cpu rate for web and api: $(cpu_rate_points) points"
start_manager --allow-local-metrics-addresses

# --- what the manager does (observed with kubectl) ---------------------------
wait_eq 180 2 history_count web Success || fail "the manager did not resize both pods: $(history_of web)"
wait_eq 30 2 event_count web Resized || fail "want 2 Resized Events: $(events_of web Resized)"
log "resized: $(spec_and_status web app | tr '\n' ';')"
reverted_pod=$(pod_names web | head -1)
k -n "$ns" annotate pod "$reverted_pod" --overwrite sim.attune.io/restart-count='{"app": 2}' >/dev/null
wait_until 60 has_history web Reverted restart || fail "no Reverted/restart entry: $(history_of web)"
wait_until 30 has_events web Reverted || fail "no Reverted Event"
settled() { ! spec_and_status web app | awk '$2 != $3 { bad = 1 } END { exit !bad }'; }
wait_until 30 settled || fail "pods did not settle: $(spec_and_status web app)"
deferred_shown() {
  [ "$(workload_counts web | jq .deferred)" = 1 ] && [ "$(condition_of web ResizeBlocked)" = "True PodsDeferred" ]
}
wait_until 60 deferred_shown || fail "api's resize not shown Deferred: $(workload_counts web), ResizeBlocked '$(condition_of web ResizeBlocked)', $(spec_and_status api app)"
idle_is_batch() { [ "$(k -n "$ns" get attunepolicy web -o json | jq -c '[(.status.idleWorkloads // [])[].workload]')" = '["batch"]' ]; }
wait_until 30 idle_is_batch || fail "the manager did not list batch in status.idleWorkloads"
log "history: $(history_of web)"

# cli_on_policy CMD...: runs the plugin between two reads of policy web until
# both reads have the same resourceVersion, so $pjson is what the plugin saw.
cli_on_policy() {
  local i
  for i in 1 2 3 4 5 6; do
    pjson=$(k -n "$ns" get attunepolicy web -o json)
    cli_rc "$@"
    [ "$(k -n "$ns" get attunepolicy web -o jsonpath='{.metadata.resourceVersion}')" = "$(jq -r .metadata.resourceVersion <<<"$pjson")" ] \
      && return 0
    sleep 1
  done
  fail "policy web changed during each of 6 runs of: $*"
}

# --- status --------------------------------------------------------------------
# phase, as docs/cli.md defines it, from the conditions kubectl reads.
want_phase() {
  jq -r '(.status.conditions // []) as $c | def is(t): any($c[]; .type == t and .status == "True");
    if .spec.paused then "Paused" elif is("Degraded") then "Degraded" elif is("Resizing") then "Resizing"
    else ([$c[] | select(.type == "Ready")][0].reason // "Unknown") end' <<<"$pjson"
}
want_row() {
  jq -r --arg phase "$(want_phase)" '.status as $s | [.metadata.name, "Auto", $phase,
    ($s.workloads | .discovered // 0, .resized // 0, .deferred // 0, .infeasible // 0 | tostring),
    ($s.idleWorkloads | length | tostring), ([$s.conditions[] | "\(.type)=\(.status)"] | join(","))] | .[]' <<<"$pjson"
}
cli_on_policy status -n "$ns"
[ "$cli_status" = 0 ] || fail "status exited $cli_status: $cli_err"
echo "$cli_out" | sed 's/^/    /' >&2
shows NAME MODE PHASE WORKLOADS RESIZED DEFERRED INFEASIBLE IDLE CONDITIONS
mapfile -t row < <(want_row)
shows "${row[@]}"
expect_eq "status DEFERRED (api's pod)" "${row[5]}" 1
[ "${row[4]}" -ge 1 ] || fail "status.workloads.resized is ${row[4]} after the executor resized web"
cli_on_policy status -n "$ns" -o json
jq -e --argjson p "$pjson" --arg phase "$(want_phase)" '.items | length == 1 and (.[0] |
    .name == "web" and .mode == "Auto" and .phase == $phase
    and .workloads == ($p.status.workloads | {discovered, withRecommendations, resized, pending, deferred, infeasible} | map_values(. // 0))
    and .idleWorkloads == [$p.status.idleWorkloads[] | {workload, kind, reason}] and .idle == ($p.status.idleWorkloads | length)
    and .conditions == [$p.status.conditions[] | {type, status, reason, message, lastTransitionTime}]
    and .lastReconcileTime == $p.status.lastReconcileTime and .observedGeneration == $p.status.observedGeneration
    and .message == ([$p.status.conditions[] | select(.type == "Ready")][0].message))' <<<"$cli_out" >/dev/null \
  || fail "status -o json is not the policy's status: $cli_out vs $(jq -c .status <<<"$pjson")"
jq -e '.items[0].idleWorkloads == [{"workload": "batch", "kind": "Deployment", "reason": "WorkloadReplicasZero"}]' <<<"$cli_out" >/dev/null \
  || fail "status -o json idleWorkloads: $cli_out"
cli_on_policy status -A --no-headers
grep -qE -- "$(row_re "$ns" "${row[@]}")" <<<"$cli_out" || fail "status -A: $cli_out"
cli_on_policy status -n "$ns" -o wide
shows "${row[@]:0:4}" "$(jq -r '.status.workloads.withRecommendations // 0' <<<"$pjson")" "${row[4]}" \
  "$(jq -r '.status.workloads.pending // 0' <<<"$pjson")" "${row[@]:5}" \
  "$(jq -r '[.status.conditions[] | select(.type == "Ready")][0].message' <<<"$pjson")"
cli_rc status nope -n "$ns"
expect_eq "status of a missing policy" "$cli_status" 1
grep -q 'attunepolicies.attune.io "nope" not found' <<<"$cli_err" || fail "missing policy: $cli_err"

# --- recommendations -----------------------------------------------------------
# The table shows the numbers as people read them: kubectl's exact values
# through hack/readable.jq (millicores, Ki/Mi/Gi, a percentage); -o json
# keeps them exact (below).
readable=$(cat "$REPO_ROOT/hack/readable.jq")
cli_on_policy recommendations -n "$ns" -o wide
echo "$cli_out" | sed 's/^/    /' >&2
mapfile -t rec < <(jq -r "$readable"'.status.recommendations[] | select(.workload == "web") as $w | $w.containers[]
  | select(.name == "app") | . as $c | def arrow(f; k): "\($c.current[k] | f) -> \($c.recommended[k] | f)";
  "Deployment/web", "app", arrow(readable_cpu; "cpuRequest"), arrow(readable_memory; "memoryRequest"),
  arrow(readable_cpu; "cpuLimit"), arrow(readable_memory; "memoryLimit"), (.confidence | readable_percent),
  (.dataPoints | tostring), ($w.stale | tostring), .lastUpdated' <<<"$pjson")
[ "${#rec[@]}" = 10 ] || fail "kubectl shows no recommendation for web/app: $(jq -c .status.recommendations <<<"$pjson")"
shows web "${rec[@]}"
log "recommendations row (readable): ${rec[*]:2:5}; kubectl: $(jq -c '[.status.recommendations[] | select(.workload == "web")][0].containers[0] | {current, recommended, confidence}' <<<"$pjson")"
grep -qE '[0-9]{6,}|e-0' <<<"$cli_out" && fail "recommendations prints a raw byte count or an exponent: $cli_out"
cli_on_policy recommendations -n "$ns" --workload deployment/web -o json
jq -e --argjson p "$pjson" '[$p.status.recommendations[] | select(.workload == "web") as $w | $w.containers[] |
    {kind: $w.kind, workload: $w.workload, container: .name, current, recommended, confidence, dataPoints, lastUpdated,
     stale: $w.stale, lastDataTime: $w.lastDataTime}] as $want
  | [.items[] | {kind, workload, container, current, recommended, confidence, dataPoints, lastUpdated, stale, lastDataTime}] == $want
    and ($want | length) >= 1' <<<"$cli_out" >/dev/null \
  || fail "recommendations -o json is not status.recommendations: $cli_out vs $(jq -c .status.recommendations <<<"$pjson")"
cli_on_policy recommendations -n "$ns" -o json
expect_eq "recommendations -o json items" "$(jq '.items | length' <<<"$cli_out")" \
  "$(jq '[.status.recommendations[].containers[]] | length' <<<"$pjson")"
cli_rc recommendations -n "$ns" --workload statefulset/web
grep -q "No recommendations found" <<<"$cli_err" || fail "a filter that matches nothing: $cli_err"

# --- history ---------------------------------------------------------------------
cli_on_policy history -n "$ns"
echo "$cli_out" | sed 's/^/    /' >&2
n=$(jq '.status.resizeHistory | length' <<<"$pjson")
expect_eq "history rows" "$(($(wc -l <<<"$cli_out") - 1))" "$n"
# FROM and TO: status' own words with kubectl's exact values readable.
for i in $(seq 0 $((n - 1))); do
  mapfile -t h < <(jq -r --argjson i "$i" "$readable"'.status.resizeHistory[$i] | .resource as $r | .timestamp, "web",
    .workload, .container, $r, (.from | readable_history($r)), (.to | readable_history($r)), .result,
    (.reason // "<none>")' <<<"$pjson")
  shows "${h[@]}"
done
grep -qE '[0-9]{6,}' <<<"$cli_out" && fail "history prints a raw byte count: $cli_out"
cli_on_policy history -n "$ns" -o json --workload deployment/web
jq -e --argjson p "$pjson" '[.items[] | {timestamp, workload, container, resource, method, result, from, to}
    + (if .reason then {reason} else {} end)]
  == [$p.status.resizeHistory[] | select(.workload == "web") | {timestamp, workload, container, resource, method, result, from, to}
    + (if .reason then {reason} else {} end)]' <<<"$cli_out" >/dev/null \
  || fail "history -o json is not status.resizeHistory: $cli_out vs $(jq -c .status.resizeHistory <<<"$pjson")"
expect_eq "history results" "$(jq -c '[.items[] | "\(.result)/\(.reason // "")"]' <<<"$cli_out")" '["Success/","Success/","Reverted/restart"]'

# --- explain ---------------------------------------------------------------------
events=$(k -n "$ns" get events.events.k8s.io -o json)
pods=$(pods_of web)
cli_on_policy explain deployment/web -n "$ns" -o json
[ "$cli_status" = 0 ] || fail "explain exited $cli_status: $cli_err"
report=$cli_out
# The chain: each step's value is the explanation's, in the estimator's order.
jq -e --argjson p "$pjson" '([$p.status.recommendations[] | select(.workload == "web")][0].containers[] | select(.name == "app")) as $c
  | (.recommendation.containers[] | select(.name == "app")) as $r
  | ($r.current == $c.current and $r.recommended == $c.recommended and $r.confidence == $c.confidence
     and $r.dataPoints == $c.dataPoints)
  and all(("cpu", "memory"); . as $res | ($c.explanation[$res] != null) and
      ([$r.steps[$res][].value] == [$c.explanation[$res] | .rawPercentile, .afterOverhead, .afterBurst, .afterConfidence,
        .afterBounds, .afterChangeFilter, .final])
      and $r.steps[$res][1].step == "+\($c.explanation[$res].overhead)% overhead"
      and (($r.steps[$res][5].note != null) == ($c.explanation[$res].changeFilterApplied != null)))
  and $r.steps.cpu[0].step == "p90 of usage" and $r.steps.memory[0].step == "p99 of usage"' <<<"$report" >/dev/null \
  || fail "explain's chain is not status.recommendations' explanation: $(jq -c .recommendation <<<"$report") vs $(jq -c .status.recommendations <<<"$pjson")"
verdict=$(jq -r '[.status.resizeHistory[] | select(.workload == "web")][-1].result
  | {"Success": "resized", "Reverted": "reverted", "Failed": "failed"}[.] // "?"' <<<"$pjson")
expect_eq "explain verdict (the newest history result)" "$(jq -r .verdict <<<"$report")" "$verdict"
expect_eq "explain verdict after the revert" "$verdict" reverted
jq -e --argjson p "$pjson" '.policy.name == "web" and .policy.mode == "Auto"
  and .policy.phase == ([$p.status.conditions[] | select(.type == "Ready")][0].reason)
  and .history == [$p.status.resizeHistory[] | select(.workload == "web")]' <<<"$report" >/dev/null \
  || fail "explain's policy or history: $(jq -c '{policy, history}' <<<"$report")"
# Its pods: every pod kubectl lists, with its spec resources.
jq -e --argjson pods "$pods" '[.pods[] | {name, resources: .resources.app}] | sort_by(.name)
  == ([$pods.items[] | {name: .metadata.name, resources: (.spec.containers[] | select(.name == "app") | .resources |
       "cpu \(.requests.cpu)/\(.limits.cpu), memory \(.requests.memory)/\(.limits.memory)")}] | sort_by(.name))' <<<"$report" >/dev/null \
  || fail "explain's pods are not kubectl's: $(jq -c .pods <<<"$report")"
# Its Events: every Resized and Reverted Event the manager wrote about the policy's pods.
for reason in Resized Reverted; do
  want=$(jq -c --arg r "$reason" '[.items[] | select(.regarding.kind == "AttunePolicy" and .regarding.name == "web" and .reason == $r) | .note] | sort' <<<"$events")
  got=$(jq -c --arg r "$reason" '[.events[] | select(.regarding == "AttunePolicy/web" and .reason == $r) | .note] | sort' <<<"$report")
  expect_eq "explain's $reason Events" "$got" "$want"
done
revert_note=$(jq -r '[.items[] | select(.reason == "Reverted" and .regarding.name == "web")][-1].note' <<<"$events")
[[ "$revert_note" == *"$reverted_pod"* ]] || fail "the Reverted Event does not name $reverted_pod: $revert_note"
jq -e --arg note "Reverted: $revert_note" 'any(.reasons[]; .kind == "event" and .text == $note)' <<<"$report" >/dev/null \
  || fail "explain does not give the Reverted Event as a reason: $(jq -c .reasons <<<"$report")"
# The Events' words, as kubectl reads them, are the history's changes with
# the numbers readable (describe_changes' shape: "app cpu 500m/1000m ->
# 250m/1000m, memory 256Mi/512Mi -> 234Mi/512Mi"), checked against
# kubectl's exact from/to through hack/readable.jq: each Resized note names
# one Success entry's change, the Reverted note ends with the Reverted one's.
change_words='def words: .resource as $r | if $r == "cpu+memory" then
    ([.from, .to] | map(capture("^cpu (?<c>[^,]+), memory (?<m>.+)$"))) as [$f, $t]
    | "\(.container) cpu \($f.c | readable_history("cpu")) -> \($t.c | readable_history("cpu")), memory \($f.m | readable_history("memory")) -> \($t.m | readable_history("memory"))"
  else "\(.container) \($r) \(.from | readable_history($r)) -> \(.to | readable_history($r))" end;'
want=$(jq -c "$readable$change_words"'[.status.resizeHistory[] | select(.workload == "web" and .result == "Success") | words] | sort' <<<"$pjson")
got=$(jq -c '[.items[] | select(.regarding.name == "web" and .reason == "Resized") | .note
  | capture("^pod [^ ]+ resized in place: (?<w>.*) \\(applied [0-9.]+ s after the request\\)$").w] | sort' <<<"$events")
expect_eq "the Resized Events' changes (kubectl get events) vs status.resizeHistory, readable" "$got" "$want"
want=$(jq -r "$readable$change_words"'[.status.resizeHistory[] | select(.workload == "web" and .result == "Reverted")][-1] | words' <<<"$pjson")
[[ "$revert_note" == "pod $reverted_pod reverted (restart): "*"; $want" ]] \
  || fail "the Reverted Event's note is not the Reverted entry's change, readable: '$revert_note' vs '$want'"
# (pod names left out: their hash may hold a run of digits)
grep -E '[0-9]{6,}' <<<"$(jq -r '.items[] | select(.regarding.name == "web") | .note | gsub("pod [^ ]+"; "pod")' <<<"$events")" \
  && fail "an Event about web prints a raw byte count"
log "Resized Event words: $got"
# ResizeBlocked is the policy's (api's pod is Deferred): it does not explain web.
jq -e 'all(.reasons[]; .text | startswith("ResizeBlocked") | not)' <<<"$report" >/dev/null \
  || fail "explain of web cites api's ResizeBlocked: $(jq -c .reasons <<<"$report")"

# The same report as text, line by line from what kubectl read, with the
# numbers as people read them: CPU in millicores, memory in Ki/Mi/Gi, the
# confidence as a percentage (hack/readable.jq, our own oracle in jq); the
# history in status' own words with those numbers.
cli_on_policy explain deployment/web -n "$ns"
echo "$cli_out" | sed 's/^/    /' >&2
mapfile -t lines < <(jq -r --arg ns "$ns" "$readable"'
  ([.status.recommendations[] | select(.workload == "web")][0].containers[] | select(.name == "app")) as $c |
  "Deployment \($ns)/web   policy web (Auto, \([.status.conditions[] | select(.type == "Ready")][0].reason))",
  "  cpu request     \($c.current.cpuRequest | readable_cpu) -> \($c.recommended.cpuRequest | readable_cpu)",
  "  memory request  \($c.current.memoryRequest | readable_memory) -> \($c.recommended.memoryRequest | readable_memory)",
  "  memory limit    \($c.current.memoryLimit | readable_memory) -> \($c.recommended.memoryLimit | readable_memory)",
  "container app   confidence \($c.confidence | readable_percent), \($c.dataPoints) data points, updated \($c.lastUpdated)",
  "Resize: reverted",
  (.status.resizeHistory[] | select(.workload == "web") | .resource as $r |
    "  \(.timestamp)  \(.container)  \($r)  \(.from | readable_history($r)) -> \(.to | readable_history($r))  \(.method) \(.result)\(if .reason then " (\(.reason))" else "" end)")' <<<"$pjson")
for line in "${lines[@]}"; do grep -qF -- "$line" <<<"$cli_out" || fail "explain lacks '$line'"; done
for v in $(jq -r "$readable"'[.status.recommendations[] | select(.workload == "web")][0].containers[] | select(.name == "app")
    | .explanation.cpu | (.rawPercentile, .afterOverhead, .final) | readable_cpu' <<<"$pjson"); do
  grep -qE "^    [0-9]\. .* +$v( |$)" <<<"$cli_out" || fail "explain's cpu chain lacks $v"
done
grep -qE '^    1\. p90 of usage ' <<<"$cli_out" || fail "explain does not use the policy's cpu percentile"
for p in $(pod_names web); do grep -qE "^  $p  resize none  app: cpu " <<<"$cli_out" || fail "explain lacks pod $p"; done

# The Deferred workload: pending, held by ResizeBlocked, its pod's resize
# state as this minor reports it (1.32's status.resize, later the condition).
api_pod=$(pod_names api)
want_state=$(k -n "$ns" get pod "$api_pod" -o json | jq -r --arg m "$(expected_resize_mechanism)" 'if $m == "field"
  then .status.resize // "none"
  else [.status.conditions[]? | select(.type == "PodResizePending" and .status == "True")][0] | if . then "Pending/\(.reason)" else "none" end end')
case $want_state in Deferred|Pending/Deferred) ;; *) fail "kubectl shows api's resize as '$want_state', not Deferred";; esac
cli_on_policy explain deployment/api -n "$ns" -o json
jq -e --argjson p "$pjson" --arg pod "$api_pod" --arg state "$want_state" '.verdict == "pending" and .history == []
  and ([.pods[] | {name, resizeState}] == [{name: $pod, resizeState: $state}])
  and ([$p.status.conditions[] | select(.type == "ResizeBlocked")][0] as $c
       | any(.reasons[]; .text == "ResizeBlocked=True \($c.reason): \($c.message)"))' <<<"$cli_out" >/dev/null \
  || fail "explain of the Deferred workload: $(jq -c '{verdict, reasons, history, pods}' <<<"$cli_out") vs $(jq -c .status.conditions <<<"$pjson")"
log "api: $(jq -r .verdict <<<"$cli_out"), $(jq -r '.pods[0].resizeState' <<<"$cli_out")"

cli_rc explain deploy batch -n "$ns" -o json
jq -e '.idle.reason == "WorkloadReplicasZero" and any(.reasons[]; .kind == "idle") and .recommendation == null' <<<"$cli_out" >/dev/null \
  || fail "explain of the idle workload: $cli_out"
cli_rc explain deployment/ghost -n "$ns"
expect_eq "explain of a missing workload" "$cli_status" 1
grep -q 'deployments.apps "ghost" not found' <<<"$cli_err" || fail "explain of a missing workload: $cli_err"

# --- status -w: the row the manager writes when the policy is paused --------------
"$ATTUNE_CLI" status -n "$ns" -w --request-timeout 20s >"$tmp/watch" 2>"$tmp/watch.err" &
watch_pid=$!
at_exit "kill $watch_pid 2>/dev/null"
wait_until 10 grep -q '^web ' "$tmp/watch" || fail "status -w printed no first table"
k -n "$ns" patch attunepolicy web --type=merge -p '{"spec":{"paused":true}}' >/dev/null
wait_ready web "False Paused" 15
paused_row() { grep -qE '^web +Auto +Paused +.*(^| |,)Ready=False(,|$)' "$tmp/watch"; }
wait_until 15 paused_row || fail "status -w printed no row for the paused policy: $(cat "$tmp/watch" "$tmp/watch.err")"
set +e; wait "$watch_pid"; rc=$?; set -e
expect_eq "status -w exit at --request-timeout" "$rc" 0
expect_eq "header lines in status -w" "$(grep -c '^NAME' "$tmp/watch")" 1
cli_on_policy status -n "$ns" --no-headers
expect_eq "the last row of status -w" "$(tail -1 "$tmp/watch" | tr -s ' ')" "$(tr -s ' ' <<<"$cli_out")"
log "status -w: $(wc -l <"$tmp/watch") lines, exit $rc"
