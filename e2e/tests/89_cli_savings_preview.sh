#!/usr/bin/env bash
# kubectl attune savings and preview on the real apiserver, over what a real
# attune-manager wrote (the test writes no status). Two Recommend policies
# with a Manual source (deterministic targets) and an
# AttuneNamespaceDefaults that sets costPricing: web (2 replicas, requests
# and the cpu limit lowered) and api (2 replicas, its cpu request raised,
# maxConcurrentResizes 1).
#  - savings: every number of the table (CPU and memory saved in millicores
#    and Mi/Gi, % cpu saved, the month's price with 2 decimals), of -o wide
#    (the increases, the prices) and of -o json (exact quantities, unrounded
#    dollars) equals what jq computes from kubectl's status.recommendations
#    (whose current requests are the Deployments' own, as kubectl reads them)
#    and the defaults' costPricing, per policy and in the TOTAL row; the
#    savings sort puts web first; a missing policy is kubectl's NotFound;
#    the manager's own status.savings, read with kubectl, equals the
#    plugin's savings object;
#  - preview: one row per pod kubectl lists, its current values equal to the
#    pod's spec, web's pods "resize" to its recommendation, api's first pod
#    "resize" and the second "defer" (max_concurrent_resizes: one increase
#    at a time), as text and JSON. Then both policies are switched to Auto
#    with kubectl patch and every pod's resources, read back with kubectl,
#    equal the values preview proposed; a preview of the settled pods says
#    "none".
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/70_manager_lib.bash"
. "$(dirname "$0")/87_cli_lib.bash"
. "$(dirname "$0")/90_executor_lib.bash"
require_cli
require_manager
apply_policy_crd
test_namespace
readable=$(cat "$REPO_ROOT/hack/readable.jq")

web_deployment web 2
web_deployment api 2
wait_all_at 90 web app "500m/1/256Mi/512Mi" || fail "web never ran at the template size: $(spec_and_status web app)"
wait_all_at 90 api app "500m/1/256Mi/512Mi" || fail "api never ran at the template size: $(spec_and_status api app)"
k -n "$ns" apply -f - >/dev/null <<'YAML' || fail "the AttuneNamespaceDefaults was refused"
apiVersion: attune.io/v1alpha1
kind: AttuneNamespaceDefaults
metadata: {name: pricing}
spec: {costPricing: {cpuPerCoreHour: "0.05", memoryPerGiBHour: "0.01"}}
YAML
manual_policy web web Recommend '[{"name":"app","resources":{"requests":{"cpu":"200m","memory":"128Mi"},"limits":{"cpu":"400m"}}}]' \
  '{"maxConcurrentResizes": 10}'
manual_policy api api Recommend '[{"name":"app","resources":{"requests":{"cpu":"700m"}}}]'
start_manager
recommended() {  # recommended POLICY: the app container's recommended cpu request
  k -n "$ns" get attunepolicy "$1" -o json | jq -r '[.status.recommendations[]?.containers[]? | select(.name == "app")][0].recommended.cpuRequest // ""'
}
wait_eq 60 200m recommended web || fail "web has no recommendation: $(k -n "$ns" get attunepolicy web -o json | jq -c .status)"
wait_eq 60 700m recommended api || fail "api has no recommendation: $(k -n "$ns" get attunepolicy api -o json | jq -c .status)"

# cli_on_policies CMD...: runs the plugin between two lists of the policies
# until both have the same resourceVersions, so $pjson is what the plugin saw.
rvs() { jq -c '[.items[] | .metadata.resourceVersion]' <<<"$1"; }
cli_on_policies() {
  local i
  for i in 1 2 3 4 5 6; do
    pjson=$(k -n "$ns" get attunepolicies -o json)
    cli_rc "$@"
    [ "$(rvs "$(k -n "$ns" get attunepolicies -o json)")" = "$(rvs "$pjson")" ] && return 0
    sleep 1
  done
  fail "the policies changed during each of 6 runs of: $*"
}

# --- what is summed: status' current requests are the Deployments' own ---------
pjson=$(k -n "$ns" get attunepolicies -o json)
for d in web api; do
  expect_eq "$d: status.recommendations current requests vs the Deployment's (kubectl)" \
    "$(jq -c --arg d "$d" '[.items[].status.recommendations[]? | select(.workload == $d) | .containers[] | select(.name == "app") | .current | [.cpuRequest, .memoryRequest]][0]' <<<"$pjson")" \
    "$(k -n "$ns" get deployment "$d" -o json | jq -c '.spec.template.spec.containers[] | select(.name == "app") | .resources.requests | [.cpu, .memory]')"
done
pricing=$(k -n "$ns" get attunenamespacedefaults pricing -o json | jq -c '.spec.costPricing | map_values(tonumber)')

# want POLICY|TOTAL: the savings oracle from kubectl's objects, as JSON:
# millicores and bytes (each container once, as status.savings counts), the
# month's price at the defaults' costPricing over 730 hours.
want() {
  jq -c --arg p "$1" --argjson price "$pricing" "$readable"'
    def milli: qty_value * 1000 | round; def bytes: qty_value | round;
    def pos: if . > 0 then . else 0 end;
    [.items[] | select($p == "TOTAL" or .metadata.name == $p) | .status.recommendations[]?.containers[]?] as $c
    | { cpu_total: ([$c[].current.cpuRequest | milli] | add // 0),
        cpu_saved: ([$c[] | ((.current.cpuRequest | milli) - (.recommended.cpuRequest | milli)) | pos] | add // 0),
        mem_saved: ([$c[] | ((.current.memoryRequest | bytes) - (.recommended.memoryRequest | bytes)) | pos] | add // 0),
        cpu_up: ([$c[] | ((.recommended.cpuRequest | milli) - (.current.cpuRequest | milli)) | pos] | add // 0),
        mem_up: ([$c[] | ((.recommended.memoryRequest | bytes) - (.current.memoryRequest | bytes)) | pos] | add // 0),
        workloads: ([.items[] | select($p == "TOTAL" or .metadata.name == $p) | .status.recommendations[]?] | length) }
    | . + { money: ((.cpu_saved / 1000 * $price.cpuPerCoreHour + .mem_saved / 1073741824 * $price.memoryPerGiBHour) * 730),
            money_up: ((.cpu_up / 1000 * $price.cpuPerCoreHour + .mem_up / 1073741824 * $price.memoryPerGiBHour) * 730),
            cpu_text: "\(.cpu_saved)m", mem_text: (.mem_saved | tostring | readable_memory),
            cpu_up_text: "\(.cpu_up)m", mem_up_text: (.mem_up | tostring | readable_memory),
            pct: (.cpu_saved / .cpu_total | readable_percent) }' <<<"$pjson"
}
money() { printf '$%.2f' "$1"; }

# --- savings: the table -----------------------------------------------------------
cli_on_policies savings -n "$ns"
[ "$cli_status" = 0 ] || fail "savings exited $cli_status: $cli_err"
echo "$cli_out" | sed 's/^/    /' >&2
shows NAME WORKLOADS "CPU SAVED" "MEMORY SAVED" "% CPU SAVED" "EST. MONTHLY"
for p in web api TOTAL; do
  w=$(want "$p")
  shows "$p" "$(jq -r .workloads <<<"$w")" "$(jq -r .cpu_text <<<"$w")" "$(jq -r .mem_text <<<"$w")" \
    "$(jq -r .pct <<<"$w")" "$(money "$(jq -r .money <<<"$w")")"
done
expect_eq "the last row" "$(tail -1 <<<"$cli_out" | awk '{print $1}')" TOTAL
# The figures of this scenario, so the oracle itself is pinned: web saves 300m
# and 128Mi ((0.3 x 0.05 + 0.125 x 0.01) x 730 = 11.86), api only raises.
expect_eq "web's savings (oracle)" "$(want web | jq -c '[.cpu_text, .mem_text, .cpu_up]')" '["300m","128Mi",0]'
expect_eq "web's price (oracle)" "$(money "$(want web | jq -r .money)")" '$11.86'
expect_eq "api's increase (oracle)" "$(want api | jq -c '[.cpu_saved, .cpu_up_text]')" '[0,"200m"]'

cli_on_policies savings -n "$ns" -o wide
for p in web api TOTAL; do
  w=$(want "$p")
  row=("$p" "$(jq -r .workloads <<<"$w")" "$(jq -r .cpu_text <<<"$w")" "$(jq -r .mem_text <<<"$w")"
       "$(jq -r .pct <<<"$w")" "$(money "$(jq -r .money <<<"$w")")" "$(jq -r .cpu_up_text <<<"$w")"
       "$(jq -r .mem_up_text <<<"$w")" "$(money "$(jq -r .money_up <<<"$w")")")
  if [ "$p" = TOTAL ]; then shows "${row[@]}" "<none>"; else shows "${row[@]}" '$0.05/core-h, $0.01/GiB-h'; fi
done

# -o json: the exact values.
cli_on_policies savings -n "$ns" -o json
for p in web api TOTAL; do
  w=$(want "$p")
  sel='.items[] | select(.name == $p)'; [ "$p" = TOTAL ] && sel='.total'
  jq -e --arg p "$p" --argjson w "$w" --argjson price "$pricing" "$readable
    $sel | (.cpuRequestReduction | qty_value * 1000 | round) == \$w.cpu_saved
    and (.memoryRequestReduction | qty_value | round) == \$w.mem_saved
    and (.cpuRequestIncrease | qty_value * 1000 | round) == \$w.cpu_up
    and (.cpuRequestTotal | qty_value * 1000 | round) == \$w.cpu_total
    and ((.estimatedMonthlySavings - \$w.money) | fabs) < 1e-9
    and ((.estimatedMonthlyCostIncrease - \$w.money_up) | fabs) < 1e-9
    and (if \$p == \"TOTAL\" then true else .pricing == {cpuPerCoreHour: \$price.cpuPerCoreHour,
         memoryPerGiBHour: \$price.memoryPerGiBHour, source: \"effective\"} end)" <<<"$cli_out" >/dev/null \
    || fail "savings -o json for $p: $(jq -c --arg p "$p" "$sel" <<<"$cli_out") vs $w"
done

# The manager writes status.savings with the same arithmetic and prices:
# kubectl reads it equal to the plugin's `savings` object, in the same
# resourceVersion.
expect_eq "web's status.savings.cpuRequestReduction (kubectl)" \
  "$(jq -r '.items[] | select(.metadata.name == "web") | .status.savings.cpuRequestReduction' <<<"$pjson")" 300m
for p in web api; do
  expect_eq "$p: status.savings (kubectl) = savings -o json's .savings" \
    "$(jq -cS --arg p "$p" '.items[] | select(.metadata.name == $p) | .status.savings' <<<"$pjson")" \
    "$(jq -cS --arg p "$p" '.items[] | select(.name == $p) | .savings' <<<"$cli_out")"
done
# The savings gauges carry the same reductions.
expect_eq "attune_reclaimed_request_cpu_cores of web" \
  "$(metric_value "attune_reclaimed_request_cpu_cores{namespace=\"$ns\",policy=\"web\"}")" 0.3
expect_eq "attune_savings_memory_bytes_total of the namespace" \
  "$(metric_value "attune_savings_memory_bytes_total{namespace=\"$ns\"}")" 134217728
log "the manager's status.savings equals the plugin's for web and api; the savings gauges agree"

cli_on_policies savings -n "$ns" --sort-by savings --no-headers
expect_eq "--sort-by savings" "$(awk '{print $1}' <<<"$cli_out" | tr '\n' ' ')" "web api TOTAL "
cli_on_policies savings api -n "$ns" --no-headers
expect_eq "savings of one policy" "$(awk '{print $1}' <<<"$cli_out" | tr '\n' ' ')" "api TOTAL "
cli_rc savings nope -n "$ns"
expect_eq "savings of a missing policy" "$cli_status" 1
grep -q 'error: attunepolicies.attune.io "nope" not found' <<<"$cli_err" || fail "missing policy: $cli_err"
cli_rc savings --sort-by .nope -n "$ns"
expect_eq "savings with an unknown --sort-by" "$cli_status" 2

# --- preview: what Auto would do, per pod -----------------------------------------
cli_on_policies preview -n "$ns" -o json
[ "$cli_status" = 0 ] || fail "preview exited $cli_status: $cli_err"
preview=$cli_out
log "preview: $(jq -c '[.items[] | {pod, action, reason, proposed}]' <<<"$preview")"
# values POD-JSON: the app container's spec resources as {cpuRequest, ...} in
# canonical units (millicores, bytes), for comparing quantities.
canon='def milli: if . == null then null else qty_value * 1000 | round end;
  def bytes: if . == null then null else qty_value | round end;
  def canon: {cpuRequest: (.cpuRequest | milli), cpuLimit: (.cpuLimit | milli),
              memoryRequest: (.memoryRequest | bytes), memoryLimit: (.memoryLimit | bytes)};
  def spec_values: .spec.containers[] | select(.name == "app") | .resources
    | {cpuRequest: .requests.cpu, cpuLimit: .limits.cpu, memoryRequest: .requests.memory, memoryLimit: .limits.memory};'
for d in web api; do
  pods=$(pods_of "$d")
  expect_eq "$d: preview's pods are kubectl's" \
    "$(jq -c --arg d "Deployment/$d" '[.items[] | select(.target == $d) | .pod] | sort' <<<"$preview")" \
    "$(jq -c '[.items[].metadata.name] | sort' <<<"$pods")"
  for pod in $(jq -r '.items[].metadata.name' <<<"$pods"); do
    jq -e --arg pod "$pod" --argjson p "$(jq --arg pod "$pod" '.items[] | select(.metadata.name == $pod)' <<<"$pods")" \
      "$readable $canon"'[.items[] | select(.pod == $pod)] | length == 1 and (.[0].current | canon) == ($p | spec_values | canon)' \
      <<<"$preview" >/dev/null || fail "preview's current values for $pod are not its spec: $(jq -c --arg pod "$pod" '.items[] | select(.pod == $pod)' <<<"$preview")"
  done
done
# The proposed requests are the recommendation kubectl reads.
for d in web api; do
  jq -e --arg d "$d" --argjson p "$pjson" "$readable $canon"'
    ([$p.items[].status.recommendations[]? | select(.workload == $d) | .containers[] | select(.name == "app")][0].recommended) as $r
    | [.items[] | select(.workload == $d)] | length == 2 and all(.[]; (.proposed | canon) as $v
        | $v.cpuRequest == ($r.cpuRequest | milli) and $v.memoryRequest == ($r.memoryRequest | bytes))' <<<"$preview" >/dev/null \
    || fail "preview's proposed requests for $d are not status.recommendations: $(jq -c --arg d "$d" '[.items[] | select(.workload == $d) | .proposed]' <<<"$preview")"
done
expect_eq "web's actions" "$(jq -c '[.items[] | select(.workload == "web") | .action]' <<<"$preview")" '["resize","resize"]'
expect_eq "api's actions (one increase at a time)" \
  "$(jq -c '[.items[] | select(.workload == "api") | [.action, .reason]]' <<<"$preview")" '[["resize",null],["defer","max_concurrent_resizes"]]'
expect_eq "nothing unavailable" "$(jq -c '[.items[].unavailable[]]' <<<"$preview")" '[]'

# The same as text: CPU and memory as request/limit, current -> proposed, as people read them.
cli_on_policies preview -n "$ns"
echo "$cli_out" | sed 's/^/    /' >&2
shows POLICY WORKLOAD POD CONTAINER CPU MEMORY ACTION REASON MESSAGE
while IFS=$'\t' read -r policy target pod cpu mem action reason message; do
  shows "$policy" "$target" "$pod" app "$cpu" "$mem" "$action" "$reason" "$message"
done < <(jq -r --argjson pods "$(k -n "$ns" get pods -o json)" "$readable"'
  def side(r; l; f): "\(if r then (r | f) else "-" end)/\(if l then (l | f) else "-" end)";
  .items[] | . as $row | ($pods.items[] | select(.metadata.name == $row.pod) | .spec.containers[] | select(.name == "app") | .resources) as $s
  | (side($s.requests.cpu; $s.limits.cpu; readable_cpu)) as $cpu_now | (side($row.proposed.cpuRequest; $row.proposed.cpuLimit; readable_cpu)) as $cpu_next
  | (side($s.requests.memory; $s.limits.memory; readable_memory)) as $mem_now | (side($row.proposed.memoryRequest; $row.proposed.memoryLimit; readable_memory)) as $mem_next
  | [.policy, .target, .pod, (if $cpu_now == $cpu_next then $cpu_now else "\($cpu_now) -> \($cpu_next)" end),
     (if $mem_now == $mem_next then $mem_now else "\($mem_now) -> \($mem_next)" end), .action, (.reason // "<none>"), (.message // "<none>")] | @tsv' <<<"$preview")
expect_eq "preview rows" "$(($(wc -l <<<"$cli_out") - 1))" 4
cli_rc preview nope -n "$ns"
expect_eq "preview of a missing policy" "$cli_status" 1
grep -q 'error: attunepolicies.attune.io "nope" not found' <<<"$cli_err" || fail "preview of a missing policy: $cli_err"

# --- what the manager does in Auto equals what preview proposed --------------------
for p in web api; do k -n "$ns" patch attunepolicy "$p" --type=merge -p '{"spec":{"updateStrategy":{"type":"Auto"}}}' >/dev/null; done
# at_proposed: every pod's spec and applied resources (kubectl) equal preview's proposed values.
at_proposed() {
  local pods
  pods=$(k -n "$ns" get pods -l 'app in (web,api)' -o json)
  jq -e --argjson pods "$pods" "$readable $canon"'all(.items[]; . as $row | ($pods.items[] | select(.metadata.name == $row.pod)) as $p
    | ($p | spec_values | canon) == ($row.proposed | canon)
    and ([$p.status.containerStatuses[]? | select(.name == "app") | .resources
          | {cpuRequest: .requests.cpu, cpuLimit: .limits.cpu, memoryRequest: .requests.memory, memoryLimit: .limits.memory} | canon]
         == [$row.proposed | canon]))' <<<"$preview" >/dev/null
}
wait_until 120 at_proposed || fail "the manager did not resize the pods to preview's values: web $(spec_and_status web app | tr '\n' ';') api $(spec_and_status api app | tr '\n' ';') vs $(jq -c '[.items[] | {pod, proposed}]' <<<"$preview")"
log "Auto resized to preview's values: web $(spec_and_status web app | tr '\n' ';') api $(spec_and_status api app | tr '\n' ';')"
restarts=$(spec_and_status web app; spec_and_status api app)
expect_eq "restarts after the resizes" "$(awk '{ s += $4 } END { print s + 0 }' <<<"$restarts")" 0
settled_preview() {
  cli_rc preview -n "$ns" -o json
  [ "$(jq -c '[.items[] | .action] | unique' <<<"$cli_out")" = '["none"]' ]
}
wait_until 30 settled_preview || fail "preview of the settled pods: $(jq -c '[.items[] | {pod, action, reason}]' <<<"$cli_out")"
