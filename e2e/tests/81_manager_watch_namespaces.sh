#!/usr/bin/env bash
# --watch-namespaces: attune-manager runs as a ServiceAccount that holds
# Roles only in the two watched namespaces (the namespaced rules of the real
# ClusterRole, deploy/kustomize/base/rbac/role.yaml rendered with kubectl
# kustomize) plus a ClusterRole for the cluster-scoped reads only (nodes,
# AttuneDefaults, and get/list/watch of the two Namespaces by resourceNames).
# Observed with kubectl:
#  - a Manual-source policy in each watched namespace gets its
#    recommendation and Ready condition;
#  - the identical policy in an unwatched namespace is never seen: no status,
#    no Event, its pods untouched;
#  - no request of the manager is refused: 0 answers 403 in its own metrics,
#    none in its log, none more in the apiserver's apiserver_request_total;
#  - every informer synced per watched namespace (attune_kube_informer_synced);
#  - negative control: the same identity without --watch-namespaces never
#    becomes ready, its cluster-wide lists answered 403.
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/70_manager_lib.bash"
. "$(dirname "$0")/recommend_lib.bash"
require_local "simulated nodes"
require_manager
apply_policy_crd

# Two watched namespaces and one the manager must never see.
test_namespace
watched_a=$ns
watched_b=$ns-b
unwatched=$ns-u
for n in "$watched_b" "$unwatched"; do
  k create namespace "$n" >/dev/null
  at_exit "k delete namespace $n --wait=false >/dev/null 2>&1"
done

# The same workload and the same Manual-source policy in all three.
for n in "$watched_a" "$watched_b" "$unwatched"; do
  ns=$n loaded_deployment web 100m 64Mi 1 500m 256Mi
  ns=$n policy p-manual web '{"manual":{"containers":[{"name":"app","resources":{"requests":{"cpu":"200m"}}}]}}'
done
ns=$watched_a

# --- The identity: Roles from the real ClusterRole, split by scope. -----------
# The cluster-scoped resources are what this apiserver says they are.
cluster_scoped=$(k api-resources --namespaced=false -o name | jq -R . | jq -sc .)
manager_role=$(k kustomize "$REPO_ROOT/deploy/kustomize/base" | k create --dry-run=client -o json -f - \
  | jq -sc '[.[] | if .kind == "List" then .items[] else . end
             | select(.kind == "ClusterRole" and .metadata.name == "attune-manager")][0]')
[ "$manager_role" != null ] || fail "no ClusterRole attune-manager in the rendered kustomize base"
# resource "pods/eviction" of group "" is "pods"; "attunedefaults" of attune.io is "attunedefaults.attune.io".
split_rules='def full($g): (split("/")[0]) + (if $g == "" then "" else "." + $g end);
  def scoped($want): [.rules[] | . as $r
    | ($r.resources | map(select(. as $res | ($r.apiGroups | any(. as $g | ($cs | index($res | full($g))) != null)) == $want))) as $keep
    | select($keep | length > 0) | .resources = $keep];'
namespaced_rules=$(jq -c --argjson cs "$cluster_scoped" "$split_rules scoped(false)" <<<"$manager_role")
cluster_rules=$(jq -c --argjson cs "$cluster_scoped" --arg a "$watched_a" --arg b "$watched_b" "$split_rules
  scoped(true) | map(if (.resources | index(\"namespaces\")) then
      (.resources -= [\"namespaces\"] | select(.resources | length > 0)),
      {apiGroups: [\"\"], resources: [\"namespaces\"], resourceNames: [\$a, \$b], verbs: [\"get\", \"list\", \"watch\"]}
    else . end)" <<<"$manager_role")
log "Role rules in each watched namespace: $namespaced_rules"
log "ClusterRole rules: $cluster_rules"
# The split must not have dropped a rule: every resource of the ClusterRole is in one of the two.
expect_eq "resources kept by the split" \
  "$(jq -nc --argjson n "$namespaced_rules" --argjson c "$cluster_rules" '[$n[], $c[] | .resources[]] | unique | length')" \
  "$(jq -c '[.rules[].resources[]] | unique | length' <<<"$manager_role")"
jq -e 'map(.resources[]) | index("pods") == null' <<<"$cluster_rules" >/dev/null \
  || fail "pods landed in the ClusterRole: $cluster_rules"

sa=attune-manager
id=e2e-81-$RANDOM
k -n "$watched_a" create serviceaccount "$sa" >/dev/null
jq -n --arg id "$id" --argjson rules "$cluster_rules" --arg ns "$watched_a" --arg sa "$sa" '
  {apiVersion: "v1", kind: "List", items: [
    {apiVersion: "rbac.authorization.k8s.io/v1", kind: "ClusterRole", metadata: {name: $id}, rules: $rules},
    {apiVersion: "rbac.authorization.k8s.io/v1", kind: "ClusterRoleBinding", metadata: {name: $id},
     roleRef: {apiGroup: "rbac.authorization.k8s.io", kind: "ClusterRole", name: $id},
     subjects: [{kind: "ServiceAccount", name: $sa, namespace: $ns}]}]}' | k apply -f - >/dev/null \
  || fail "the ClusterRole for the cluster-scoped reads was refused"
at_exit "k delete clusterrole,clusterrolebinding $id --wait=false >/dev/null 2>&1"
for n in "$watched_a" "$watched_b"; do
  jq -n --arg id "$id" --argjson rules "$namespaced_rules" --arg ns "$watched_a" --arg sa "$sa" '
    {apiVersion: "v1", kind: "List", items: [
      {apiVersion: "rbac.authorization.k8s.io/v1", kind: "Role", metadata: {name: $id}, rules: $rules},
      {apiVersion: "rbac.authorization.k8s.io/v1", kind: "RoleBinding", metadata: {name: $id},
       roleRef: {apiGroup: "rbac.authorization.k8s.io", kind: "Role", name: $id},
       subjects: [{kind: "ServiceAccount", name: $sa, namespace: $ns}]}]}' | k -n "$n" apply -f - >/dev/null \
    || fail "the Role in $n was refused"
done
who=system:serviceaccount:$watched_a:$sa
# Harness check of the identity itself: namespaced reads only where the Roles are.
expect_eq "can list pods in $watched_b" "$(k auth can-i list pods -n "$watched_b" --as "$who")" yes
expect_eq "can list pods in $unwatched" "$(k auth can-i list pods -n "$unwatched" --as "$who" || true)" no
expect_eq "can list pods cluster-wide" "$(k auth can-i list pods --all-namespaces --as "$who" || true)" no

token=$(k -n "$watched_a" create token "$sa" --duration=1h) || fail "cannot mint a token for $sa"
sa_kubeconfig=$ATTUNE_RUN/$id.kubeconfig
at_exit "rm -f $sa_kubeconfig"
kubeconfig_for_token "$token" "$sa_kubeconfig"

# Creates are left out: the NamespaceLifecycle admission answers 403 to any
# create in a namespace being deleted, which earlier tests' namespaces are
# (their controllers and Events keep trying), whoever the client.
apiserver_403s() {
  k get --raw /metrics | awk '/^apiserver_request_total\{/ && /code="403"/ && !/verb="POST"/ { s += $NF } END { print s + 0 }'
}

# --- With --watch-namespaces: ready, and the watched policies served. --------
before_403=$(apiserver_403s)
KUBECONFIG=$sa_kubeconfig start_manager --watch-namespaces "$watched_a,$watched_b"
for n in "$watched_a" "$watched_b"; do
  ns=$n wait_until 60 has_recommendation p-manual web \
    || fail "no recommendation in watched namespace $n: $(ns=$n policy_json p-manual | jq -c .status)"
  ns=$n wait_ready p-manual "True Monitoring" 30
  expect_eq "recommended cpu in $n" \
    "$(ns=$n recommendation p-manual web | jq -r '.containers[] | select(.name == "app") | .recommended.cpuRequest')" 200m
  for r in pods deployments.apps attunepolicies.attune.io attunenamespacedefaults.attune.io limitranges resourcequotas; do
    expect_eq "$r synced in $n" "$(metric_value "attune_kube_informer_synced{namespace=\"$n\",resource=\"$r\"}")" 1
  done
done
expect_eq "nodes synced cluster-wide" "$(metric_value 'attune_kube_informer_synced{namespace="",resource="nodes"}')" 1
expect_eq "pods cached (one per watched namespace)" "$(metric_value 'attune_kube_informer_objects{resource="pods"}')" 2
grep -q "informer listed resource=pods namespace=$watched_b " "$MGR_LOG" || fail "no per-namespace list of pods in the log"

# The unwatched twin, given as long again as the watched ones needed: nothing.
sleep 5
expect_eq "status of the unwatched policy" "$(ns=$unwatched policy_json p-manual | jq -c '.status // {}')" '{}'
expect_eq "Events about the unwatched policy" "$(ns=$unwatched event_reasons p-manual)" ""
ns=$unwatched pods_untouched
grep -q "$unwatched" "$MGR_LOG" && fail "the manager's log names the unwatched namespace: $(grep -m3 "$unwatched" "$MGR_LOG")"

# No request was refused.
expect_eq "403s in the manager's metrics" "$(metric_sum attune_kube_requests_total 'code="403"')" 0
expect_eq "403s in the manager's log" "$(grep -c 'returned 403\|Forbidden' "$MGR_LOG" || true)" 0
expect_eq "403s the apiserver answered meanwhile" "$(( $(apiserver_403s) - before_403 ))" 0
stop_manager || fail "attune-manager did not stop on SIGTERM"

# --- Negative control: the same identity, cluster-wide. ----------------------
log "negative control: the same Role-only identity without --watch-namespaces"
KUBECONFIG=$sa_kubeconfig launch_manager
wait_until 20 manager_ready && fail "ready cluster-wide with Roles only: the namespaced paths cannot be what made it work"
readyz=$(curl -s --max-time 2 "http://127.0.0.1:$MGR_PORT/readyz" || true)
log "cluster-wide /readyz after 20 s: $readyz"
[[ "$readyz" == *"informers not synced:"*pods* ]] || fail "/readyz does not name the pods informer: $readyz"
refused=$(metric_sum attune_kube_requests_total 'code="403"')
[ "${refused%.*}" -gt 0 ] || fail "the cluster-wide lists were not refused (403s: $refused)"
log "cluster-wide: $refused requests answered 403, never ready"
stop_manager || true
