#!/usr/bin/env bash
# Prometheus auto-discovery, through attune-manager and the real apiserver,
# observed with kubectl. A Recommend policy whose merged settings name no
# metrics source (no block in the policy, no defaults object):
#  1. nothing to find: Ready=False PrometheusUnavailable, the message naming
#     what was looked for;
#  2. a Service monitoring/prometheus-server (port 9090) exists when the
#     manager starts: the policy's Ready message names the Service and its
#     address, and the manager queried that address (the query's error names
#     it: a Service's DNS name does not resolve on this host, so the query
#     fails and Ready says so; the harness cannot route to a Service);
#  3. a Prometheus Operator `Prometheus` object (its CRD installed by the
#     test) beats the Service: prometheus-NAME.NAMESPACE on its spec.port;
#  4. a policy with its own address is never given the discovered one.
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/70_manager_lib.bash"
require_local "a cluster whose Prometheus Services and Operator objects the test may create"
require_manager
apply_policy_crd
test_namespace

k get attunedefaults -o name | grep -q . && skip "an AttuneDefaults exists; this test needs policies with no source at all"
k -n monitoring get service prometheus-server >/dev/null 2>&1 && skip "a Service monitoring/prometheus-server exists already"
k get crd prometheuses.monitoring.coreos.com >/dev/null 2>&1 && skip "the Prometheus Operator CRD is installed already"

k -n "$ns" apply -f - >/dev/null <<'YAML'
apiVersion: apps/v1
kind: Deployment
metadata: {name: web}
spec:
  replicas: 1
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web}}
    spec: {containers: [{name: app, image: attune.local/pause:1, resources: {requests: {cpu: 200m, memory: 64Mi}}}]}
---
apiVersion: apps/v1
kind: Deployment
metadata: {name: api}
spec:
  replicas: 1
  selector: {matchLabels: {app: api}}
  template:
    metadata: {labels: {app: api}}
    spec: {containers: [{name: app, image: attune.local/pause:1, resources: {requests: {cpu: 200m, memory: 64Mi}}}]}
---
apiVersion: attune.io/v1alpha1
kind: AttunePolicy
metadata: {name: web}
spec:
  targetRef: {kind: Deployment, name: web}
  cpu: {}
  memory: {}
  updateStrategy: {type: Recommend}
---
apiVersion: attune.io/v1alpha1
kind: AttunePolicy
metadata: {name: own}
spec:
  targetRef: {kind: Deployment, name: api}
  cpu: {}
  memory: {}
  metricsSource: {prometheus: {address: "http://prometheus.elsewhere:9090"}}
  updateStrategy: {type: Recommend}
YAML

ready_of() { k -n "$ns" get attunepolicy "$1" -o jsonpath='{.status.conditions[?(@.type=="Ready")].reason}'; }
ready_message() { k -n "$ns" get attunepolicy "$1" -o jsonpath='{.status.conditions[?(@.type=="Ready")].message}'; }
message_has() { ready_message "$1" | grep -qF -- "$2"; }

# 1. Nothing to find.
start_manager
wait_until 60 message_has web "auto-discovery found no Prometheus" \
  || fail "no 'found no Prometheus' message: $(ready_of web) $(ready_message web)"
expect_eq "web's Ready reason with nothing to discover" "$(ready_of web)" PrometheusUnavailable
grep -q "monitoring/prometheus-server" <<<"$(ready_message web)" || fail "the message names no Service looked for: $(ready_message web)"
log "nothing to find: $(ready_message web)"
stop_manager

# 2. A well-known Service.
created_monitoring=
if ! k get namespace monitoring >/dev/null 2>&1; then
  k create namespace monitoring >/dev/null
  created_monitoring=1
  at_exit "k delete namespace monitoring --wait=false >/dev/null 2>&1"
fi
k -n monitoring apply -f - >/dev/null <<'YAML'
apiVersion: v1
kind: Service
metadata: {name: prometheus-server}
spec:
  ports: [{name: web, port: 9090}]
YAML
[ -n "$created_monitoring" ] || at_exit "k -n monitoring delete service prometheus-server --wait=false >/dev/null 2>&1"
chosen="Prometheus auto-discovered at http://prometheus-server.monitoring:9090 (Service monitoring/prometheus-server)"
start_manager
wait_until 60 message_has web "$chosen" || fail "web's Ready names no discovered Service: $(ready_of web) $(ready_message web)"
# The query went to that address and failed there (no route to a Service from this host).
wait_until 90 message_has web "Metrics source errors" || fail "no query error for the discovered address: $(ready_message web)"
expect_eq "web's Ready reason (the discovered address does not answer here)" "$(ready_of web)" PrometheusUnavailable
grep -q "prometheus-server.monitoring:9090" <<<"$(ready_message web | sed "s|$chosen||")" \
  || fail "the query error does not name the discovered address: $(ready_message web)"
grep -q 'prometheus auto-discovered address=http://prometheus-server.monitoring:9090' "$MGR_LOG" \
  || fail "the manager logged no discovery"
log "a well-known Service: $(ready_message web)"
# 4. The policy with its own address.
wait_until 60 message_has own "prometheus.elsewhere" || fail "own's Ready does not name its own address: $(ready_message own)"
ready_message own | grep -q "auto-discovered" && fail "own was given the discovered Prometheus: $(ready_message own)"
stop_manager

# 3. A Prometheus Operator object beats the Service.
k apply -f - >/dev/null <<'YAML'
apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata: {name: prometheuses.monitoring.coreos.com}
spec:
  group: monitoring.coreos.com
  names: {kind: Prometheus, listKind: PrometheusList, plural: prometheuses, singular: prometheus}
  scope: Namespaced
  versions:
  - name: v1
    served: true
    storage: true
    schema: {openAPIV3Schema: {type: object, x-kubernetes-preserve-unknown-fields: true}}
YAML
at_exit "k delete crd prometheuses.monitoring.coreos.com --wait=false >/dev/null 2>&1"
k wait --for=condition=Established crd/prometheuses.monitoring.coreos.com --timeout=60s >/dev/null \
  || fail "HARNESS: the Prometheus Operator CRD never became Established"
k -n "$ns" apply -f - >/dev/null <<'YAML'
apiVersion: monitoring.coreos.com/v1
kind: Prometheus
metadata: {name: main}
spec: {port: 9091}
YAML
start_manager
operator_chosen="Prometheus auto-discovered at http://prometheus-main.$ns:9091 (Prometheus $ns/main (Prometheus Operator))"
wait_until 60 message_has web "$operator_chosen" \
  || fail "web's Ready names no Prometheus Operator object: $(ready_message web)"
log "a Prometheus Operator object: $(ready_message web)"
