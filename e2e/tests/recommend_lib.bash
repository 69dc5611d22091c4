# Helpers for the recommendation e2e tests (71, 73, 75). Sourced after lib.sh
# and 70_manager_lib.bash; not a test itself (the runner only runs *.sh).
# Everything is observed with kubectl (and the manager's own /metrics).

# loaded_deployment NAME CPU MEMORY [REPLICAS] [REQ_CPU] [REQ_MEMORY] [LIMITS_JSON]:
# a Deployment whose container "app" kubesim reports at CPU / MEMORY usage
# (sim.attune.io/load), with those requests (default 500m / 256Mi).
loaded_deployment() {
  local limits=${7:-}
  k -n "$ns" apply -f - >/dev/null <<YAML
apiVersion: apps/v1
kind: Deployment
metadata: {name: $1, labels: {app: $1}}
spec:
  replicas: ${4:-1}
  selector: {matchLabels: {app: $1}}
  template:
    metadata:
      labels: {app: $1}
      annotations: {sim.attune.io/load: '{"app": {"cpu": "$2", "memory": "$3"}}'}
    spec:
      containers:
      - name: app
        image: attune.local/app:1
        resources:
          requests: {cpu: ${5:-500m}, memory: ${6:-256Mi}}${limits:+
          limits: $limits}
YAML
}

# policy NAME TARGET_NAME METRICS_SOURCE_JSON [EXTRA_SPEC_JSON]: an AttunePolicy
# on the Deployment TARGET_NAME with that metricsSource (a JSON object) and
# any further spec fields (a JSON object merged in, e.g. '{"updateStrategy":{"type":"Observe"}}').
policy() {
  local spec extra=${4:-}
  [ -n "$extra" ] || extra='{}'
  spec=$(jq -cn --arg t "$2" --argjson ms "$3" --argjson extra "$extra" \
    '{targetRef: {kind: "Deployment", name: $t}, cpu: {}, memory: {}, metricsSource: $ms} * $extra')
  k -n "$ns" apply -f - >/dev/null <<YAML
apiVersion: attune.io/v1alpha1
kind: AttunePolicy
metadata: {name: $1}
spec: $spec
YAML
}

# prometheus_source [EXTRA_JSON]: the harness's Prometheus with a short step,
# so a recommendation needs seconds of data, not days.
prometheus_source() {
  local extra=${1:-}
  [ -n "$extra" ] || extra='{}'
  jq -cn --arg a "$PROMETHEUS_URL" --argjson extra "$extra" \
    '{prometheus: {address: $a}, queryStep: "10s", rateWindow: "30s", historyWindow: "1h", minimumDataPoints: 3} * $extra'
}

# fake MODE [ADDR]: e2e/testproxy/fake_prometheus.py (a harness) on a loopback
# address -> sets FAKE_PORT, and FAKE_OUT, the file where it logs each
# request's Authorization header ("auth ..." lines).
fake() {
  local out; out=$(mktemp)
  python3 "$REPO_ROOT/e2e/testproxy/fake_prometheus.py" "$1" ${2:+"$2"} >"$out" 2>&1 &
  local pid=$!
  at_exit "kill $pid 2>/dev/null; rm -f $out"
  wait_until 10 grep -q '^port ' "$out" || fail "fake_prometheus $1 did not start: $(cat "$out")"
  FAKE_PORT=$(awk '/^port / { print $2 }' "$out")
  FAKE_OUT=$out
}

policy_json() { k -n "$ns" get attunepolicy "$1" -o json; }
# ready NAME -> "Status Reason"
ready() { policy_json "$1" | jq -r '[.status.conditions[]? | select(.type == "Ready")][0] | "\(.status) \(.reason)"'; }
ready_message() { policy_json "$1" | jq -r '[.status.conditions[]? | select(.type == "Ready")][0].message'; }
# wait_ready NAME "Status Reason" SECONDS
wait_ready() {
  wait_eq "$3" "$2" ready "$1" || fail "policy $1: Ready is '$(ready "$1")' ('$(ready_message "$1")'), want '$2' within $3 s"
}
# recommendation NAME WORKLOAD -> the status.recommendations[] entry (JSON), or empty
recommendation() { policy_json "$1" | jq -c --arg w "$2" '.status.recommendations[]? | select(.workload == $w)'; }
has_recommendation() { [ -n "$(recommendation "$1" "$2")" ]; }

# millicores QTY -> integer millicores ("250m" -> 250, "1" -> 1000, "1.5" -> 1500)
millicores() { case $1 in *m) echo "${1%m}";; *) awk -v v="$1" 'BEGIN { printf "%d", v * 1000 }';; esac; }
# within VALUE LOW HIGH (numbers)
within() { awk -v v="$1" -v lo="$2" -v hi="$3" 'BEGIN { exit !(v >= lo && v <= hi) }'; }

# event_reasons POLICY -> the reasons of the Events regarding that policy, sorted, unique
event_reasons() {
  k -n "$ns" get events.events.k8s.io -o json \
    | jq -r --arg p "$1" '[.items[] | select(.regarding.kind == "AttunePolicy" and .regarding.name == $p) | .reason] | unique | join(",")'
}

# has_event POLICY REASON
has_event() { [[ ",$(event_reasons "$1")," == *",$2,"* ]]; }

# pods_untouched: no pod of $ns was ever changed after its creation: its
# containers' resources are still its ReplicaSet template's, its generation
# (where the apiserver reports one) is 1, and no managedFields entry is Attune's.
pods_untouched() {
  local bad
  bad=$(jq -rn --argjson rs "$(k -n "$ns" get rs -o json)" --argjson pods "$(k -n "$ns" get pods -o json)" '
      ($rs.items | map({(.metadata.name): [.spec.template.spec.containers[] | {name, resources}]}) | add // {}) as $tmpl
      | $pods.items[]
      | select(((.metadata.generation // 1) != 1)
               or ([.metadata.managedFields[]?.manager] | any(test("attune")))
               or ([.spec.containers[] | {name, resources}] != $tmpl[.metadata.ownerReferences[0].name]))
      | .metadata.name')
  [ -z "$bad" ] || fail "pods changed since their creation: $bad"
  log "pods untouched: $(k -n "$ns" get pods -o json | jq -c '[.items[] | {(.metadata.name): (.metadata.generation // "n/a")}] | add')"
}
