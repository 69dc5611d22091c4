#!/usr/bin/env bash
# The pod informer lists in protobuf (decoded straight into what strip_pod
# keeps) and its cache must hold exactly what a JSON list gives: the same pods
# as kubectl lists, stored as the same number of bytes. Pods of many shapes
# (an init container that ran, a native sidecar with resizePolicy, Attune's and
# other annotations, pod-level resources where the minor serves them, a pod
# resized in place, a Pending pod, a pod being deleted) exist before each
# manager starts, so they arrive by the initial LIST, not by watch.
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/70_manager_lib.bash"
require_manager
apply_policy_crd
test_namespace

web_deployment() {  # web_deployment SIDECAR_RESIZE_POLICY_LINE
  cat <<YAML
apiVersion: apps/v1
kind: Deployment
metadata: {name: web, annotations: {attune.io/policy: p}}
spec:
  replicas: 2
  selector: {matchLabels: {app: web}}
  template:
    metadata:
      labels: {app: web, tier: front}
      annotations: {attune.io/startup-boost-at: "2026-12-01T00:00:00Z", prometheus.io/scrape: "true", other.example/x: "y"}
    spec:
      initContainers:
      - {name: init, image: attune.local/pause:1, resources: {requests: {cpu: 10m, memory: 8Mi}}}
      - name: sidecar
        image: attune.local/pause:1
        restartPolicy: Always
        resources: {requests: {cpu: 50m, memory: 32Mi}, limits: {cpu: 100m, memory: 64Mi}}
$1
      containers:
      - name: app
        image: attune.local/pause:1
        env: [{name: A, value: "1"}]
        resources: {requests: {cpu: 250m, memory: 256Mi}, limits: {cpu: "1", memory: 512Mi}}
        resizePolicy: [{resourceName: cpu, restartPolicy: NotRequired}]
      - {name: helper, image: attune.local/pause:1}
YAML
}
# A sidecar's resizePolicy where the minor accepts it (1.32 refuses it on init containers).
web_deployment '        resizePolicy: [{resourceName: cpu, restartPolicy: NotRequired}, {resourceName: memory, restartPolicy: RestartContainer}]' \
  | k -n "$ns" apply -f - >/dev/null 2>&1 || web_deployment "" | k -n "$ns" apply -f - >/dev/null
k -n "$ns" apply -f - >/dev/null <<YAML
apiVersion: v1
kind: Pod
metadata: {name: pending}
spec:
  schedulerName: attune-e2e-unscheduled
  containers:
  - {name: a, image: attune.local/pause:1, resources: {requests: {cpu: 1m, memory: 1Mi, ephemeral-storage: 1Gi}}}
---
apiVersion: v1
kind: Pod
metadata: {name: finalized, finalizers: [e2e.attune.io/hold]}
spec:
  containers:
  - {name: a, image: attune.local/pause:1, resources: {requests: {cpu: 1500m, memory: "1.5Gi"}, limits: {memory: "1610612736"}}}
---
apiVersion: v1
kind: Pod
metadata: {name: guaranteed}
spec:
  containers:
  - {name: a, image: attune.local/pause:1, resources: {requests: {cpu: 200m, memory: 100Mi}, limits: {cpu: 200m, memory: 100Mi}}}
YAML
at_exit "k -n $ns patch pod finalized --type=merge -p '{\"metadata\":{\"finalizers\":null}}' >/dev/null 2>&1"
# Pod-level resources: the field is dropped where the minor does not serve it.
k -n "$ns" apply -f - >/dev/null <<YAML
apiVersion: v1
kind: Pod
metadata: {name: podlevel, labels: {kind: podlevel}}
spec:
  resources: {requests: {cpu: 500m, memory: 1Gi}, limits: {cpu: "2", memory: 2Gi}}
  containers:
  - {name: a, image: attune.local/pause:1}
  - {name: b, image: attune.local/pause:1, resources: {requests: {cpu: 100m}}}
YAML
running() { [ "$(k -n "$ns" get pods --field-selector=status.phase=Running --no-headers 2>/dev/null | wc -l | tr -d ' ')" = 5 ]; }
wait_until 90 running || fail "the pods did not run: $(k -n "$ns" get pods --no-headers)"
k -n "$ns" delete pod finalized --wait=false >/dev/null
# Resized in place (status.resize on 1.32, conditions later); a refusal is fine:
# the pod is listed either way.
k -n "$ns" patch pod guaranteed --subresource resize \
  -p '{"spec":{"containers":[{"name":"a","resources":{"requests":{"cpu":"300m"},"limits":{"cpu":"300m"}}}]}}' >/dev/null 2>&1 || true
sleep 3

versions() { k get pods -A -o jsonpath='{range .items[*]}{.metadata.uid}={.metadata.resourceVersion} {end}'; }
cached() { echo "$(metric_value 'attune_kube_informer_objects{resource="pods"}') pods, $(metric_value 'attune_kube_informer_cache_bytes{resource="pods"}') bytes"; }
listed_by() { grep -o "informer listed resource=pods via=[a-z-]* encoding=[a-z]*" "$MGR_LOG" | head -1 | sed 's/.*encoding=//'; }

matched=""
for attempt in 1 2 3; do
  before=$(versions)
  start_manager --protobuf-lists=false
  expect_eq "encoding of the JSON run's pod list" "$(listed_by)" json
  json_cache=$(cached)
  stop_manager || fail "attune-manager did not stop within 10 s"
  start_manager
  expect_eq "encoding of the default run's pod list" "$(listed_by)" protobuf
  pb_cache=$(cached)
  stop_manager || fail "attune-manager did not stop within 10 s"
  after=$(versions)
  want=$(k get pods -A --no-headers | wc -l | tr -d ' ')
  log "attempt $attempt: kubectl lists $want pods; JSON list cached $json_cache; protobuf list cached $pb_cache"
  if [ "$before" != "$after" ]; then log "a pod changed between the two runs; again"; continue; fi
  [ "${pb_cache%% *}" = "$want" ] || fail "the protobuf list cached ${pb_cache%% *} pods, kubectl lists $want"
  [ "$pb_cache" = "$json_cache" ] || fail "the protobuf list cached $pb_cache, the JSON list $json_cache (no pod changed in between)"
  matched=yes
  break
done
[ -n "$matched" ] || fail "pods kept changing between the two runs; nothing compared"
