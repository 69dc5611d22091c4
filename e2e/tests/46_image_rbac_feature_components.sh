#!/usr/bin/env bash
# Least privilege per feature (docs/security.md, RBAC), image lane only: the
# manager runs in its image as the ServiceAccount of the rendered manifests,
# rendered with the kustomize components that switch features off
# (deploy/kustomize/components/without-*), and a policy asks for the feature
# anyway. Each time the apiserver answers 403, the manager's log shows it, a
# Warning Event on the policy names the missing resource, once (no storm of
# Events, and attempts no more often than the held requeue), and the object
# is left as it was. Then, rendered without the components, the same manager
# does what was refused (the positive control).
#   - without-eviction:            InPlaceOrRecreate, infeasible in place -> EvictionBlocked, pods stay
#   - without-hpa-retune:          the auto-tune HPA is not retuned -> HPARetuneFailed
#   - without-configmap-export:    export.configMap -> ExportFailed, no ConfigMap
#   - without-template-persistence: templatePersistence -> TemplatePatchFailed, template unchanged
#   - Secret reads not granted in the namespace: a bearerTokenSecret policy is
#     Ready=False with a message naming the refused get on secrets and how to
#     grant it; with the Role pair granted there, the Secret is read.
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/70_manager_lib.bash"
. "$(dirname "$0")/90_executor_lib.bash"
[ -n "${E2E_MANAGER_IMAGE:-}" ] || skip "needs the image lane (E2E_MANAGER_IMAGE; make test sets it)"
require_local "kubesim's sim.attune.io/kubelet-allocatable"
require_manager
apply_policy_crd
test_namespace

small="e2e-small-$RANDOM"
sim_node "$small" 4 8Gi
pinned() { printf '      nodeSelector: {kubernetes.io/hostname: %s}\n      tolerations: [{key: attune.io/e2e-dedicated, operator: Exists}]\n' "$1"; }
web_deployment recreate 2 '{"app": {"cpu": "50m", "memory": "60Mi"}}' "$(pinned "$small")"
web_deployment tuned 2
web_deployment exported 1
web_deployment pinned 2
for d in recreate tuned exported pinned; do
  wait_all_at 90 "$d" app "500m/1/256Mi/512Mi" || fail "$d never ran: $(spec_and_status "$d" app)"
done
# The kubelet on $small has room for 700m: 800m is Infeasible in place.
k annotate node "$small" sim.attune.io/kubelet-allocatable='{"cpu": "700m"}' --overwrite >/dev/null
auto_tune_hpa tuned
recreate_uids=$(pods_of recreate | jq -c '[.items[].metadata.uid] | sort')
pinned_gen=$(k -n "$ns" get deploy pinned -o jsonpath='{.metadata.generation}')
persist='{"templatePersistence":{"enabled":true,"when":"AfterSuccessfulResize"}}'

# Each feature's Event names the resource the apiserver refused, once.
forbidden_event() {  # POLICY REASON RESOURCE
  wait_until 90 has_events "$1" "$2" || { tail -20 "$MGR_LOG" >&2; fail "no $2 Event on $1"; }
  local note; note=$(events_of "$1" "$2" | head -1)
  log "$2: $note"
  [[ $note == *forbidden* && $note == *"\"$3\""* ]] || fail "the $2 Event does not name $3 as forbidden: $note"
}
components_rendered_without() {  # ROLE...: none of these ClusterRoles is in the cluster
  local r
  for r in "$@"; do k get clusterrole "$r" >/dev/null 2>&1 && { echo "still there: $r"; return 1; }; done
  return 0
}

# --- eviction, HPA retune and ConfigMap export switched off -----------------
ATTUNE_LANE_COMPONENTS=without-eviction,without-hpa-retune,without-configmap-export start_manager
components_rendered_without attune-manager-eviction attune-manager-hpa-retune attune-manager-configmap-export \
  || fail "the components did not take the feature ClusterRoles out"
k get clusterrole attune-manager-template-persistence >/dev/null || fail "template persistence should stay granted"
manual_policy recreate recreate Auto '[{"name":"app","resources":{"requests":{"cpu":"800m"}}}]' '{"resizeMethod":"InPlaceOrRecreate"}'
manual_policy tuned tuned Auto '[{"name":"app","resources":{"requests":{"cpu":"400m"},"limits":{"cpu":"800m"}}}]' "$persist"
manual_policy exported exported Recommend '[{"name":"app","resources":{"requests":{"cpu":"200m"}}}]' '{"export":{"configMap":true}}'

forbidden_event recreate EvictionBlocked pods/eviction
grep -q 'eviction refused.*forbidden' "$MGR_LOG" || { tail -20 "$MGR_LOG" >&2; fail "the log shows no 403 for the eviction"; }
forbidden_event tuned HPARetuneFailed horizontalpodautoscalers
grep -q 'HPA retune failed.*forbidden' "$MGR_LOG" || fail "the log shows no 403 for the HPA retune"
forbidden_event exported ExportFailed configmaps
grep -q 'recommendation export failed.*forbidden' "$MGR_LOG" || fail "the log shows no 403 for the export"

# No storm: over 40 s no new Event (one per pod for the eviction, whose note
# names the pod; one for each other feature), and attempts paced by the
# requeue (30 s per pod for the eviction, one minute for the export).
evicted_events=$(event_count recreate EvictionBlocked)
[ "$evicted_events" -le 2 ] || fail "$evicted_events EvictionBlocked Events for 2 pods"
evictions0=$(metric_sum attune_eviction_total 'result="failed"')
exports0=$(grep -c 'recommendation export failed' "$MGR_LOG")
sleep 40
evictions=$(( $(metric_sum attune_eviction_total 'result="failed"') - evictions0 ))
exports=$(( $(grep -c 'recommendation export failed' "$MGR_LOG") - exports0 ))
log "in 40 s: $evictions refused evictions (2 pods), $exports refused exports"
[ "$evictions" -le 6 ] || fail "$evictions eviction attempts in 40 s for 2 pods: a retry storm"
[ "$exports" -le 2 ] || fail "$exports export attempts in 40 s for 1 workload: a retry storm"
expect_eq "EvictionBlocked Events 40 s later" "$(event_count recreate EvictionBlocked)" "$evicted_events"
expect_eq "HPARetuneFailed Events" "$(event_count tuned HPARetuneFailed)" 1
expect_eq "ExportFailed Events" "$(event_count exported ExportFailed)" 1

expect_eq "recreate's pods (none evicted)" "$(pods_of recreate | jq -c '[.items[].metadata.uid] | sort')" "$recreate_uids"
hpa_target() { k -n "$ns" get hpa tuned -o jsonpath='{.spec.metrics[0].resource.target.averageUtilization}'; }
expect_eq "the HPA's target without the retune rule" "$(hpa_target)" 80
k -n "$ns" get configmap exported-exported-recommendations >/dev/null 2>&1 && fail "a ConfigMap was written without the export rule"
# What the switched-off features did not block still happened: the resize
# and the template patch (its rule is on).
wait_all_at 60 tuned app "400m/800m/256Mi/512Mi" || fail "tuned not resized: $(spec_and_status tuned app)"
template_cpu() { k -n "$ns" get deploy "$1" -o json | jq -r '.spec.template.spec.containers[0].resources.requests.cpu'; }
wait_eq 60 400m template_cpu tuned || fail "tuned's template not persisted with its rule on"
stop_manager

# --- template persistence switched off; the others back on -------------------
ATTUNE_LANE_COMPONENTS=without-template-persistence start_manager
components_rendered_without attune-manager-template-persistence || fail "template persistence is still granted"
k get clusterrole attune-manager-eviction >/dev/null || fail "the eviction ClusterRole did not come back"
manual_policy pinned pinned Auto '[{"name":"app","resources":{"requests":{"cpu":"300m"}}}]' "$persist"
wait_all_at 90 pinned app "300m/1/256Mi/512Mi" || fail "pinned not resized: $(spec_and_status pinned app)"
forbidden_event pinned TemplatePatchFailed deployments
grep -q 'template persistence failed.*forbidden' "$MGR_LOG" || fail "the log shows no 403 for the template patch"
sleep 30
expect_eq "TemplatePatchFailed Events after 30 s" "$(event_count pinned TemplatePatchFailed)" 1
expect_eq "pinned's template" "$(template_cpu pinned)" 500m
expect_eq "pinned's generation" "$(k -n "$ns" get deploy pinned -o jsonpath='{.metadata.generation}')" "$pinned_gen"

# The positive controls, with the rules back: the eviction goes through, and
# the export refused before is written by this manager.
wait_until 90 has_events recreate Evicted || fail "with pods/eviction back, no Evicted Event: $(history_of recreate)"
wait_until 90 k -n "$ns" get configmap exported-exported-recommendations || fail "with configmaps back, no export ConfigMap"
log "with the rules back: $(events_of recreate Evicted | head -1); ConfigMap exported-exported-recommendations written"
stop_manager
k annotate node "$small" sim.attune.io/kubelet-allocatable- >/dev/null

# --- Secret reads not granted in this namespace --------------------------------
# --allow-secret-reads lets policies name a Secret; the Role pair that may get
# it is granted per namespace (docs/security.md), and not here. Nothing listens
# on the address: the Secret is read first.
web_deployment locked 1
k -n "$ns" create secret generic prom --from-literal=token=e2e-token >/dev/null
jq -n '{apiVersion: "attune.io/v1alpha1", kind: "AttunePolicy", metadata: {name: "locked"},
  spec: {targetRef: {kind: "Deployment", name: "locked"},
    metricsSource: {prometheus: {address: "http://127.0.0.1:9", bearerTokenSecret: {name: "prom", key: "token"}}}, cpu: {}, memory: {},
    updateStrategy: {type: "Recommend"}}}' | k -n "$ns" apply -f - >/dev/null || fail "policy locked was refused"
ready_of() { k -n "$ns" get attunepolicy locked -o json | jq -r '[.status.conditions[]? | select(.type == "Ready")][0] | "\(.status) \(.reason): \(.message)"'; }
secret_refused() { [[ "$(ready_of)" == "False "*forbidden*'cannot get resource "secrets"'*secretReads.namespaces* ]]; }
secret_flags=(--allow-local-metrics-addresses --allow-secret-reads --allow-plaintext-prometheus-credentials)
start_manager "${secret_flags[@]}"
wait_until 60 secret_refused || fail "the refused Secret read is not said in Ready: $(ready_of)"
log "Ready: $(ready_of)"
k auth can-i get secrets -n "$ns" --as=system:serviceaccount:attune-system:attune-manager >/dev/null 2>&1 \
  && fail "the manager may get Secrets in $ns without the secret-reads Role"
stop_manager
# The positive control: the Role pair granted in this namespace.
ATTUNE_LANE_SECRET_NAMESPACES=$ns start_manager "${secret_flags[@]}"
wait_until 60 eval '! secret_refused && [[ "$(ready_of)" == "False "* ]]' || fail "with the Role, still: $(ready_of)"
log "with the secret-reads Role: $(ready_of)"
stop_manager
