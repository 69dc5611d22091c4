#!/usr/bin/env bash
# kubectl attune diff and export over what a real attune-manager wrote (a
# Recommend policy with a Manual source: deterministic recommendations,
# nothing resized, and an export.configMap), checked against kubectl:
#  - diff prints one unified diff, for web, whose template differs from its
#    recommendation, and none for steady, whose template already has it;
#    exit 1. Reversing the diff (patch -R) on the exported manifest gives
#    exactly the live Deployment as kubectl reads it less the server's
#    fields, and the export is that Deployment with the recommendation
#    applied by the executor's rule: requests from status.recommendations,
#    the memory limit (memory is RequestsAndLimits) and not the cpu limit
#    (cpu is RequestsOnly, although the recommendation names one);
#  - the export stream passes kubectl apply --dry-run=server, kubectl diff -f
#    of it changes exactly those resource lines (and the generation), and
#    after kubectl apply -f of it, diff prints nothing and exits 0;
#  - --output-dir writes <namespace>_deployment_<name>.yaml files holding the
#    same manifests, -o json is a List of them, diff -o json lists the change
#    as a patch, export --from-configmaps lists the manager's ConfigMaps;
#  - errors: an unknown policy, a policy with no recommendations yet, a
#    workload no recommendation names, a workload that no longer exists
#    (exit 2 for diff, as kubectl diff, and 1 for export).
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/70_manager_lib.bash"
. "$(dirname "$0")/87_cli_lib.bash"
. "$(dirname "$0")/90_executor_lib.bash"
. "$(dirname "$0")/recommend_lib.bash"
require_local "simulated nodes"
require_cli
require_manager
apply_policy_crd
test_namespace
tmp=$(mktemp -d)
at_exit "rm -rf $tmp"

# web: requests 500m/256Mi, limits 1/512Mi. steady: already at what the
# Manual source recommends for it.
web_deployment web 2
k -n "$ns" apply -f - >/dev/null <<YAML
apiVersion: apps/v1
kind: Deployment
metadata: {name: steady, labels: {tier: web}}
spec:
  replicas: 1
  selector: {matchLabels: {app: steady}}
  template:
    metadata: {labels: {app: steady}}
    spec:
      containers:
      - name: app
        image: $POD_IMAGE
        resources:
          requests: {cpu: 200m, memory: 128Mi}
          limits: {cpu: "1", memory: 384Mi}
YAML
k -n "$ns" apply -f - >/dev/null <<'YAML' || fail "policy web was refused"
apiVersion: attune.io/v1alpha1
kind: AttunePolicy
metadata: {name: web}
spec:
  targetRef: {kind: Deployment, selector: {matchLabels: {tier: web}}}
  metricsSource:
    manual:
      containers: [{name: app, resources: {requests: {cpu: 200m, memory: 128Mi}, limits: {cpu: 800m, memory: 384Mi}}}]
  cpu: {controlledValues: RequestsOnly}
  memory: {controlledValues: RequestsAndLimits}
  updateStrategy: {type: Recommend, export: {configMap: true}}
YAML
# A policy whose target does not exist: it never has a recommendation.
manual_policy empty absent Recommend '[{"name":"app","resources":{"requests":{"cpu":"100m"}}}]'
wait_all_at 90 web app "500m/1/256Mi/512Mi" || fail "web never ran: $(spec_and_status web app)"
start_manager
wait_until 60 has_recommendation web web || fail "no recommendation for web: $(policy_json web | jq -c .status)"
wait_until 30 has_recommendation web steady || fail "no recommendation for steady: $(policy_json web | jq -c .status)"
cm_exists() { k -n "$ns" get configmap "$1" >/dev/null 2>&1; }
wait_until 30 cm_exists web-web-recommendations || fail "no export ConfigMap web-web-recommendations"
wait_until 30 cm_exists web-steady-recommendations || fail "no export ConfigMap web-steady-recommendations"

# --- oracles, from kubectl's reads ------------------------------------------
rec_of() { policy_json web | jq -c --arg w "$1" '.status.recommendations[] | select(.workload == $w) | .containers[] | select(.name == "app") | .recommended'; }
# clean: what kubectl reads less the server's fields (docs/cli.md, export).
clean='del(.status, .metadata.managedFields, .metadata.resourceVersion, .metadata.uid, .metadata.creationTimestamp,
  .metadata.generation, .metadata.selfLink, .metadata.annotations["kubectl.kubernetes.io/last-applied-configuration"],
  .metadata.annotations["deployment.kubernetes.io/revision"])
  | if .metadata.annotations == {} then del(.metadata.annotations) else . end'
live_clean() { k -n "$ns" get deployment "$1" -o json | jq -S "$clean"; }
# The executor's rule for this policy: requests, and the memory limit
# (RequestsAndLimits); the cpu limit stays (RequestsOnly).
with_rec() {
  jq -S --argjson r "$(rec_of "$1")" '.spec.template.spec.containers |= map(if .name == "app" then
    .resources.requests.cpu = $r.cpuRequest | .resources.requests.memory = $r.memoryRequest
    | .resources.limits.memory = $r.memoryLimit else . end)'
}
# as_json FILE: kubectl's reading of a manifest file (one object, or a List).
as_json() { k create --dry-run=client -o json -f "$1" | jq -S 'del(.metadata.creationTimestamp)'; }
web_rec=$(rec_of web)
log "web's recommendation (status): $web_rec; steady's: $(rec_of steady)"
# The Manual source names a cpu limit: RequestsOnly must keep it out of the template.
[ "$(jq -r .cpuLimit <<<"$web_rec")" != "$(k -n "$ns" get deploy web -o jsonpath='{.spec.template.spec.containers[0].resources.limits.cpu}')" ] \
  || fail "HARNESS: the recommendation's cpu limit equals the template's, so RequestsOnly proves nothing: $web_rec"
# The lines a resource change shows, trimmed and sorted: "-cpu: 500m" / "+cpu: 200m".
want_lines() {
  local live; live=$(k -n "$ns" get deploy web -o json | jq -c '.spec.template.spec.containers[] | select(.name == "app") | .resources')
  jq -rn --argjson l "$live" --argjson r "$web_rec" '
    [["cpu", $l.requests.cpu, $r.cpuRequest], ["memory", $l.requests.memory, $r.memoryRequest],
     ["memory", $l.limits.memory, $r.memoryLimit]] | map(select(.[1] != .[2])) | map("-\(.[0]): \(.[1])", "+\(.[0]): \(.[2])") | .[]' | sort
}
# changed_lines [kubectl]: every changed line of a unified diff, so nothing
# else may change. kubectl's own diff also moves the generation and rewrites
# its last-applied-configuration (a JSON line), which it maintains itself.
changed_lines() {
  local skip='^$'
  [ "${1:-}" != kubectl ] || skip='^[-+] *(generation: |\{"apiVersion")'
  grep -E '^[-+]' | grep -v -E '^(---|\+\+\+) ' | grep -v -E "$skip" | sed -E 's/^([-+]) */\1/' | sort
}
want=$(want_lines)
[ "$(grep -c . <<<"$want")" = 6 ] || fail "HARNESS: want six changed lines (cpu and memory requests, memory limit): $want"

# --- diff ------------------------------------------------------------------
cli_rc diff web -n "$ns"
expect_eq "diff exit with differences" "$cli_status" 1
[ -z "$cli_err" ] || fail "diff wrote to stderr: $cli_err"
printf '%s\n' "$cli_out" >"$tmp/web.diff"
log "diff:
$cli_out"
expect_eq "diff headers (web only, steady is at its recommendation)" "$(grep -E '^(---|\+\+\+) ' "$tmp/web.diff")" \
  "$(printf -- '--- a/%s/Deployment/web\n+++ b/%s/Deployment/web\t(recommended by policy web)' "$ns" "$ns")"
expect_eq "diff's changed lines against kubectl's template and status" "$(changed_lines <"$tmp/web.diff")" "$want"
# Every hunk holds the lines its header counts.
awk '/^@@ /{ if (h) exit 1; split($2, o, ","); split($3, n, ","); old = (o[2] == "" ? 1 : o[2]); new = (n[2] == "" ? 1 : n[2]); h = 1; next }
     h && /^[ -]/ { old-- } h && /^[ +]/ { new-- } h && old == 0 && new == 0 { h = 0 } END { exit h }' "$tmp/web.diff" \
  || fail "a hunk's line counts do not match its header: $cli_out"

# --- export ----------------------------------------------------------------
cli_rc export web -n "$ns"
expect_eq "export exit" "$cli_status" 0
printf '%s\n' "$cli_out" >"$tmp/all.yaml"
expect_eq "export documents" "$(grep -c '^---$' "$tmp/all.yaml")" 2
cli_rc export web --workload deployment/web -n "$ns"
printf '%s\n' "$cli_out" | sed 1d >"$tmp/web.yaml"
expect_eq "export of web against kubectl's Deployment with the recommendation" "$(as_json "$tmp/web.yaml")" \
  "$(live_clean web | with_rec web)"
cli_rc export web --workload steady -n "$ns"
printf '%s\n' "$cli_out" | sed 1d >"$tmp/steady.yaml"
expect_eq "export of steady: the live Deployment" "$(as_json "$tmp/steady.yaml")" "$(live_clean steady)"
# The diff is exactly live -> export: reversed on the export it gives the live manifest.
patch -R --fuzz=0 -s -o "$tmp/web-live.yaml" "$tmp/web.yaml" "$tmp/web.diff" || fail "the diff does not reverse on the export"
expect_eq "export with the diff reversed against kubectl's live Deployment" "$(as_json "$tmp/web-live.yaml")" "$(live_clean web)"

# The apiserver takes it, with the recommendation in place.
dry=$(k apply --dry-run=server -f "$tmp/all.yaml" -o json) || fail "kubectl apply --dry-run=server refused the export"
expect_eq "dry-run web resources" "$(jq -cS '.items[] | select(.metadata.name == "web") | .spec.template.spec.containers[0].resources' <<<"$dry")" \
  "$(live_clean web | with_rec web | jq -cS '.spec.template.spec.containers[0].resources')"
expect_eq "dry-run steady resources" "$(jq -cS '.items[] | select(.metadata.name == "steady") | .spec.template.spec.containers[0].resources' <<<"$dry")" \
  "$(live_clean steady | jq -cS '.spec.template.spec.containers[0].resources')"
set +e; k diff -f "$tmp/all.yaml" >"$tmp/kubectl.diff" 2>&1; kd=$?; set -e
expect_eq "kubectl diff -f export exit" "$kd" 1
expect_eq "kubectl diff -f export: only the resource lines" "$(changed_lines kubectl <"$tmp/kubectl.diff")" "$want"
grep -q "steady" "$tmp/kubectl.diff" && fail "kubectl diff shows steady, which the export leaves as it is: $(cat "$tmp/kubectl.diff")"

# -o json: a List of the same manifests.
cli_rc export web -n "$ns" -o json
expect_eq "export -o json" "$(jq -c '[.kind, (.items | map(.metadata.name) | sort)]' <<<"$cli_out")" '["List",["steady","web"]]'
expect_eq "export -o json web" "$(jq -S '.items[] | select(.metadata.name == "web")' <<<"$cli_out")" "$(as_json "$tmp/web.yaml")"
# --output-dir: one file per workload, the same manifests.
cli_rc export web -n "$ns" --output-dir "$tmp/out"
expect_eq "export --output-dir exit" "$cli_status" 0
expect_eq "export --output-dir files" "$(cd "$tmp/out" && ls)" "$(printf '%s_deployment_steady.yaml\n%s_deployment_web.yaml' "$ns" "$ns")"
expect_eq "export --output-dir web" "$(as_json "$tmp/out/${ns}_deployment_web.yaml")" "$(as_json "$tmp/web.yaml")"
expect_eq "export --output-dir steady" "$(as_json "$tmp/out/${ns}_deployment_steady.yaml")" "$(as_json "$tmp/steady.yaml")"
grep -q "deployments.apps/web written to $tmp/out/${ns}_deployment_web.yaml" <<<"$cli_out" || fail "export --output-dir said: $cli_out"

# diff -o json: the change as a partial manifest.
cli_rc diff web -n "$ns" -o json
expect_eq "diff -o json exit" "$cli_status" 1
expect_eq "diff -o json" "$(jq -cS '.items' <<<"$cli_out")" \
  "$(live_clean web | with_rec web | jq -cS '[{apiVersion, kind, metadata: {name: .metadata.name, namespace: .metadata.namespace},
     spec: {template: {spec: {containers: [.spec.template.spec.containers[] | {name, resources}]}}}}]')"

# --from-configmaps: the manager's ConfigMaps as kubectl lists them.
cli_rc export --from-configmaps -n "$ns" -o json
expect_eq "export --from-configmaps exit" "$cli_status" 0
expect_eq "export --from-configmaps against kubectl" \
  "$(jq -cS '[.items[] | {name, policy, workload, kind, containers: [.containers[] | {name, cpuRequest, memoryRequest, cpuLimit, memoryLimit}]}]' <<<"$cli_out")" \
  "$(k -n "$ns" get configmap -l attune.io/policy -o json | jq -cS '[.items[] | {name: .metadata.name, policy: .metadata.labels["attune.io/policy"],
     workload: .metadata.labels["attune.io/workload"], kind: .data.kind, containers: [{name: "app", cpuRequest: .data["app.cpu-request"],
     memoryRequest: .data["app.memory-request"], cpuLimit: (.data["app.cpu-limit"] // "0"),
     memoryLimit: (.data["app.memory-limit"] // "0")}]}] | sort_by(.workload)')"
cli_rc export --from-configmaps -n "$ns"
grep -qE '^web +steady +Deployment +1 +[0-9TZ:-]+$' <<<"$cli_out" || fail "no steady row in: $cli_out"

# --- errors ----------------------------------------------------------------
cli_rc diff nope -n "$ns"
expect_eq "diff of an unknown policy: exit" "$cli_status" 2
expect_eq "diff of an unknown policy" "$cli_err" 'error: attunepolicies.attune.io "nope" not found'
cli_rc export nope -n "$ns"
expect_eq "export of an unknown policy: exit" "$cli_status" 1
expect_eq "export of an unknown policy" "$cli_err" 'error: attunepolicies.attune.io "nope" not found'
expect_eq "HARNESS: policy empty has no recommendations" "$(policy_json empty | jq -c '.status.recommendations // []')" "[]"
cli_rc diff empty -n "$ns"
expect_eq "diff of a policy without recommendations: exit" "$cli_status" 2
expect_eq "diff of a policy without recommendations" "$cli_err" "error: policy $ns/empty has no recommendations yet (kubectl attune status empty)"
cli_rc diff web --workload deployment/nothing -n "$ns"
expect_eq "diff --workload of nothing: exit" "$cli_status" 2
expect_eq "diff --workload of nothing" "$cli_err" "error: policy $ns/web has no recommendation for workload \"deployment/nothing\""

# --- apply the export: no differences left ------------------------------------
k apply -f "$tmp/all.yaml" >/dev/null || fail "kubectl apply -f of the export failed"
expect_eq "web's template after apply" "$(k -n "$ns" get deploy web -o json | jq -cS '.spec.template.spec.containers[0].resources')" \
  "$(jq -cS '.spec.template.spec.containers[0].resources' <<<"$(as_json "$tmp/web.yaml")")"
cli_rc diff web -n "$ns"
expect_eq "diff after apply: exit" "$cli_status" 0
expect_eq "diff after apply: output" "$cli_out" ""
set +e; k diff -f "$tmp/all.yaml" >/dev/null 2>&1; kd=$?; set -e
expect_eq "HARNESS: kubectl diff -f export after apply" "$kd" 0

# --- a workload that no longer exists -------------------------------------------
# The manager is stopped first, so status.recommendations still names steady.
stop_manager
k -n "$ns" delete deployment steady --wait=true >/dev/null
[ -n "$(rec_of steady)" ] || fail "HARNESS: status.recommendations no longer names steady"
cli_rc diff web -n "$ns"
expect_eq "diff with a workload gone: exit" "$cli_status" 2
expect_eq "diff with a workload gone" "$cli_err" \
  "error: deployments.apps \"steady\" not found in namespace $ns (recommended by policy $ns/web)"
expect_eq "diff with a workload gone: web still has no differences" "$cli_out" ""
cli_rc export web -n "$ns"
expect_eq "export with a workload gone: exit" "$cli_status" 1
expect_eq "export with a workload gone: web is still exported" "$(printf '%s\n' "$cli_out" | grep -c '^---$')" 1
log "diff and export agree with kubectl: $(tr '\n' ' ' <<<"$want")"
