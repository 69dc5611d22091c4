# Helpers for the admission webhook e2e tests (51-55). Sourced after lib.sh
# and 70_manager_lib.bash; not a test itself.
#
# The real kube-apiserver calls attune-manager's webhook over TLS at
# https://127.0.0.1:$WEBHOOK_PORT (url clientConfig). The
# MutatingWebhookConfiguration is the one deploy/kustomize ships, renamed per
# test and scoped to the test's namespace; the manager writes its
# bootstrapped CA into its caBundle (and the url into clientConfig). The
# manager's own namespace (its Secret) is a second namespace, since pods in
# the operator's namespace are never sized.

# webhook_namespaces: $ns (the workloads, labelled for initial sizing) and
# $opns (the manager's: its Secret), both deleted on exit.
webhook_namespaces() {
  test_namespace
  k label namespace "$ns" attune.io/initial-sizing=enabled >/dev/null
  opns="$ns-op"
  k create namespace "$opns" >/dev/null
  at_exit "k delete namespace $opns --wait=false >/dev/null 2>&1"
}

# apply_webhook_configuration: the shipped MutatingWebhookConfiguration,
# renamed to $WH and limited to $ns, without a caBundle (the manager writes it).
apply_webhook_configuration() {
  WH="attune-e2e-$ns"
  k kustomize "$REPO_ROOT/deploy/kustomize/overlays/webhook" 2>/dev/null \
    | k create --dry-run=client -o json -f - 2>/dev/null \
    | jq --arg wh "$WH" --arg ns "$ns" 'if .kind == "List" then .items[] else . end | select(.kind == "MutatingWebhookConfiguration")
        | .metadata.name = $wh
        | .webhooks[].namespaceSelector.matchExpressions += [{key: "kubernetes.io/metadata.name", operator: "In", values: [$ns]}]' \
    > "$ATTUNE_RUN/$WH.json" || fail "cannot render the shipped MutatingWebhookConfiguration"
  [ -s "$ATTUNE_RUN/$WH.json" ] || fail "the kustomize component has no MutatingWebhookConfiguration"
  k apply -f "$ATTUNE_RUN/$WH.json" >/dev/null
  at_exit "k delete mutatingwebhookconfiguration $WH --ignore-not-found >/dev/null 2>&1; rm -f '$ATTUNE_RUN/$WH.json'"
}

# start_webhook_manager [FLAGS...]: the manager with the webhook on, in url mode.
start_webhook_manager() {
  start_manager --webhook --webhook-bind-address "127.0.0.1:$WEBHOOK_PORT" \
    --webhook-url "https://127.0.0.1:$WEBHOOK_PORT" --webhook-namespace "$opns" \
    --webhook-secret-name attune-webhook-tls --webhook-configuration-name "$WH" "$@"
}

# The CA bundle the manager published, as PEM.
webhook_ca_bundle() { k get mutatingwebhookconfiguration "$WH" -o jsonpath='{.webhooks[0].clientConfig.caBundle}' | base64 -d; }

# wait_webhook_called: the apiserver calls the webhook over TLS with the
# published caBundle (a server-side dry run, counted in the manager's metrics).
wait_webhook_called() {
  wait_until 30 sh -c "[ -n \"\$($KUBECTL get mutatingwebhookconfiguration $WH -o jsonpath='{.webhooks[0].clientConfig.caBundle}')\" ]" \
    || fail "the manager never wrote the caBundle of $WH"
  local before after i
  before=$(metric_sum attune_webhook_admissions_total 'operation="pod_create"')
  for i in $(seq 1 60); do
    probe_pod_json >/dev/null 2>&1 || true
    after=$(metric_sum attune_webhook_admissions_total 'operation="pod_create"')
    [ "$after" != "$before" ] && return 0
    sleep 0.5
  done
  fail "the apiserver never called the webhook (admissions $before -> $after); manager log: $(tail -5 "$MGR_LOG")"
}

# probe_pod_json [RS [HASH]]: a server-side dry-run CREATE of a pod owned by
# ReplicaSet RS (nothing is stored), printed as the apiserver would have
# stored it: what a new pod of that workload would be born as. kubectl's
# stderr (warnings, errors) goes to $ATTUNE_RUN/probe.err.
probe_pod_json() {
  local rs=${1:-attune-probe-0} hash=${2:-0}
  k -n "$ns" create --dry-run=server -o json -f - 2>"$ATTUNE_RUN/probe.err" <<YAML
apiVersion: v1
kind: Pod
metadata:
  generateName: $rs-
  labels: {pod-template-hash: "$hash"}
  ownerReferences: [{apiVersion: apps/v1, kind: ReplicaSet, name: $rs, uid: 00000000-0000-0000-0000-000000000001, controller: true}]
spec:
  containers: [{name: app, image: attune.local/pause:1, resources: {requests: {cpu: "1", memory: 512Mi}}}]
YAML
}

# set_recommendation POLICY KIND WORKLOAD CONTAINER CPU MEMORY [CPU_LIMIT [MEMORY_LIMIT]]:
# the recommendation the webhook sizes from. The policy becomes a
# Manual-source policy (spec.metricsSource.manual), so the manager's own
# recommender computes it (confidence 1) and publishes it in the status:
# the test writes the input, never the status. Limits are set only when
# given; omitted keys are inherited from the template, as Manual does.
# Returns once the manager (when running) has published it.
set_recommendation() {
  local policy=$1 workload=$3 container=$4 cpu=$5 mem=$6 cpu_lim=${7:-} mem_lim=${8:-}
  k -n "$ns" patch attunepolicy "$policy" --type=merge -p "$(jq -nc \
    --arg c "$container" --arg cpu "$cpu" --arg mem "$mem" --arg cl "$cpu_lim" --arg ml "$mem_lim" \
    '{spec: {metricsSource: {prometheus: null, manual: {containers: [{name: $c, resources: ({requests: {cpu: $cpu, memory: $mem}}
        + (if $cl != "" or $ml != "" then {limits: ({} + (if $cl != "" then {cpu: $cl} else {} end)
                                                      + (if $ml != "" then {memory: $ml} else {} end))} else {} end))}]}}}}')" >/dev/null \
    || fail "the Manual recommendation for $workload was refused"
}

# recommendation_published POLICY WORKLOAD: the manager has published a
# recommendation for WORKLOAD in POLICY's status.
recommendation_published() {
  k -n "$ns" get attunepolicy "$1" -o json \
    | jq -e --arg w "$2" '[.status.recommendations[]? | select(.workload == $w) | .containers[]] | length > 0' >/dev/null
}

# pod_requests NS POD CONTAINER -> "cpu memory" of its requests
pod_requests() { k -n "$1" get pod "$2" -o json | jq -r --arg c "$3" '.spec.containers[] | select(.name == $c) | "\(.resources.requests.cpu) \(.resources.requests.memory)"'; }

# apiserver_metric NAME REGEX: the sum of the kube-apiserver's own series of NAME matching REGEX.
apiserver_metric() {
  k get --raw /metrics | awk -v n="$1" -v re="${2:-.}" 'index($1, n) == 1 && substr($1, length(n) + 1, 1) ~ /[{ ]/ && $0 ~ re { s += $2 } END { print s + 0 }'
}

# set_validated_candidate POLICY KIND WORKLOAD REVISION CONTAINER CPU MEMORY:
# a lifecycle entry awaiting admission-time persistence (docs/lifecycle.md), as
# the lifecycle reconciler writes it once validation passed. Test setup for
# the webhook's own test (54), on a policy that is not Canary (the manager
# owns status.lifecycle only for Canary policies); 56_lifecycle_webhook_persistence
# has the manager's lifecycle produce it for real.
set_validated_candidate() {
  local policy=$1 kind=$2 workload=$3 rev=$4 container=$5 cpu=$6 mem=$7
  k -n "$ns" patch attunepolicy "$policy" --subresource=status --type=merge -p "$(jq -nc \
    --arg w "$workload" --arg k "$kind" --arg rev "$rev" --arg c "$container" --arg cpu "$cpu" --arg mem "$mem" \
    --arg now "$(date -u +%Y-%m-%dT%H:%M:%SZ)" \
    '{status: {lifecycle: {workloads: [{workload: $w, kind: $k, phase: "ValidatedAwaitingPersistence",
        currentRevision: $rev, validatedRevision: $rev, step: 1, stepStartedAt: $now,
        baseline: {containers: [{name: $c, resources: {requests: {cpu: "1", memory: "512Mi"}}}]},
        candidate: {containers: [{name: $c, resources: {requests: {cpu: $cpu, memory: $mem}}}]},
        message: "validated; waiting for the next pod template change"}]}}}')" >/dev/null
}

# webhook_test: what every webhook test starts with: the local harness, the
# manager binary, the CRD, the two namespaces and the configuration.
webhook_test() {
  require_local "loopback webhook URL"
  require_manager
  apply_policy_crd
  webhook_namespaces
  apply_webhook_configuration
}

# deployment_with_policy NAME POD_SPEC [CPU [MEMORY [STRATEGY [REPLICAS]]]]:
# a Deployment NAME (label app=NAME, REPLICAS default 0) whose pod spec is the
# flow-style YAML POD_SPEC, and the AttunePolicy NAME that targets it (cpu and
# memory blocks, updateStrategy default {type: Auto, initialSizing: true}).
deployment_with_policy() {
  local name=$1 spec=$2 cpu=${3:-"{}"} mem=${4:-"{}"} strategy=${5:-"{type: Auto, initialSizing: true}"} replicas=${6:-0}
  k -n "$ns" apply -f - >/dev/null <<YAML
apiVersion: apps/v1
kind: Deployment
metadata: {name: $name, labels: {app: $name}}
spec:
  replicas: $replicas
  selector: {matchLabels: {app: $name}}
  template:
    metadata: {labels: {app: $name}}
    spec: $spec
---
apiVersion: attune.io/v1alpha1
kind: AttunePolicy
metadata: {name: $name}
spec:
  targetRef: {kind: Deployment, name: $name}
  metricsSource: {prometheus: {address: "http://prometheus.monitoring:9090"}}
  cpu: $cpu
  memory: $mem
  updateStrategy: $strategy
YAML
}

# replicaset_of APP / template_hash_of APP: the Deployment's ReplicaSet (it
# exists at replicas 0 too) and its pod-template-hash.
replicaset_of() { k -n "$ns" get rs -l "app=$1" -o jsonpath='{.items[0].metadata.name}' 2>/dev/null; }
template_hash_of() { k -n "$ns" get rs -l "app=$1" -o jsonpath='{.items[0].metadata.labels.pod-template-hash}' 2>/dev/null; }
# next_pod_cpu APP: the CPU request a new pod of APP would be born with (a dry run).
next_pod_cpu() { probe_pod_json "$(replicaset_of "$1")" "$(template_hash_of "$1")" | jq -r '.spec.containers[0].resources.requests.cpu'; }
# pod_count APP: pods of APP that are not being deleted.
pod_count() { k -n "$ns" get pods -l "app=$1" -o json | jq '[.items[] | select(.metadata.deletionTimestamp == null)] | length'; }

# scaled_pod APP REPLICAS: scales APP to REPLICAS, waits for them, and prints
# the name of a pod of APP that is not among the names already given after
# REPLICAS (the one the ReplicaSet controller just created).
scaled_pod() {
  local app=$1 replicas=$2; shift 2
  k -n "$ns" scale deployment "$app" --replicas="$replicas" >/dev/null
  wait_eq 60 "$replicas" pod_count "$app" || fail "$app never got $replicas pods"
  k -n "$ns" get pods -l "app=$app" -o json | jq -r --arg seen "$*" \
    '[.items[].metadata.name | select(. as $n | $seen | split(" ") | index($n) | not)][0]'
}
# boost_at POD: its attune.io/startup-boost-at, which must be RFC 3339 UTC.
boost_at() {
  local at
  at=$(k -n "$ns" get pod "$1" -o jsonpath='{.metadata.annotations.attune\.io/startup-boost-at}')
  [[ "$at" =~ ^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}Z$ ]] || fail "attune.io/startup-boost-at of $1 is '$at', want RFC 3339 UTC"
  echo "$at"
}

# unscheduled_pods NS COUNT: COUNT pods in NS for a scheduler nobody runs
# (Pending: only the apiserver and etcd work), for the manager's pod cache
# in the benchmarks.
unscheduled_pods() {
  local ns=$1 PODS=$2 start
  for start in $(seq 0 1000 $((PODS - 1))); do
    jq -n --argjson a "$start" --argjson b "$(( start + 1000 < PODS ? start + 1000 : PODS ))" '{apiVersion: "v1", kind: "List",
      items: [range($a; $b) | {apiVersion: "v1", kind: "Pod",
        metadata: {name: "cached-\(.)", labels: {app: "cached", tier: "backend"},
                   annotations: {"prometheus.io/scrape": "true"}},
        spec: {schedulerName: "attune-bench-unscheduled",
               containers: [{name: "app", image: "attune.local/pause:1",
                             env: [{name: "A", value: "1"}, {name: "B", value: "2"}],
                             resources: {requests: {cpu: "10m", memory: "16Mi"}, limits: {memory: "32Mi"}}},
                            {name: "sidecar", image: "attune.local/pause:1", resources: {requests: {cpu: "5m", memory: "8Mi"}}}]}}]}' \
      | k -n "$ns" create -f - >/dev/null
  done
}
