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

# expect_constant_series REC APP_MILLICORES APP_BYTES SIDE_MILLICORES SIDE_BYTES: the
# recommendation REC (a status.recommendations[] entry) is what constant
# series of 12 points over 11 minutes per resource imply for the containers
# app and sidecar of a Deployment requesting 400m / 210Mi for app (the fake
# metrics sources' tests): the p95 of a constant is that constant, x 1.2 (cpu)
# and x 1.3 (memory) for the overheads, then x (1 + (1 - confidence)^2)
# rounded up, with confidence min(span in days, sqrt(points / 24)) / 7 = (660
# s in days) / 7 (docs/recommender.md, the chain). Both stay within the change
# filters of 400m / 210Mi (at least 10%, at most 50% / 30%), so they are the final requests.
expect_constant_series() {
  local rec=$1 app_cpu=$2 app_mem=$3 side_cpu=$4 side_mem=$5 app side conf want_cpu want_mem
  mi() { awk -v b="$1" 'BEGIN { printf "%gMi", b / 1048576 }'; }
  milli() { awk -v n="$1" -v f="${2:-1}" 'BEGIN { printf "%gm", n * f }'; }
  app=$(jq -c '.containers[] | select(.name == "app")' <<<"$rec")
  side=$(jq -c '.containers[] | select(.name == "sidecar")' <<<"$rec")
  [ -n "$app" ] && [ -n "$side" ] || fail "not both containers in $rec"
  expect_eq "app cpu rawPercentile" "$(jq -r .explanation.cpu.rawPercentile <<<"$app")" "$(milli "$app_cpu")"
  expect_eq "app cpu afterOverhead" "$(jq -r .explanation.cpu.afterOverhead <<<"$app")" "$(milli "$app_cpu" 1.2)"
  expect_eq "app memory rawPercentile" "$(jq -r .explanation.memory.rawPercentile <<<"$app")" "$(mi "$app_mem")"
  expect_eq "app memory afterOverhead" "$(jq -r .explanation.memory.afterOverhead <<<"$app")" "$(mi $((app_mem * 13 / 10)))"
  conf=$(awk 'BEGIN { printf "%.9f", 660 / 86400 / 7 }')
  jq -e --argjson c "$conf" '(.explanation.cpu.confidence - $c | fabs) < 1e-6' <<<"$app" >/dev/null \
    || fail "app cpu confidence $(jq -r .explanation.cpu.confidence <<<"$app"), want $conf"
  want_cpu=$(awk -v v="$app_cpu" -v c="$conf" 'BEGIN { x = v * 1.2 * (1 + (1 - c) ^ 2); r = int(x); if (r < x) r++; printf "%dm", r }')
  want_mem=$(awk -v v="$app_mem" -v c="$conf" 'BEGIN { x = int(v * 13 / 10) * (1 + (1 - c) ^ 2); r = int(x); if (r < x) r++; printf "%d", r }')
  expect_eq "app cpu request" "$(jq -r .recommended.cpuRequest <<<"$app")" "$want_cpu"
  expect_eq "app memory request" "$(jq -r .recommended.memoryRequest <<<"$app")" "$want_mem"
  expect_eq "sidecar cpu rawPercentile" "$(jq -r .explanation.cpu.rawPercentile <<<"$side")" "$(milli "$side_cpu")"
  expect_eq "sidecar memory rawPercentile" "$(jq -r .explanation.memory.rawPercentile <<<"$side")" "$(mi "$side_mem")"
  expect_eq "app data points (12 per resource)" "$(jq -r .dataPoints <<<"$app")" 24
  expect_eq "stale" "$(jq -r .stale <<<"$rec")" false
}

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

# two_container_web: Deployment "web" in $ns, one replica, containers app
# (400m/210Mi) and sidecar (60m/40Mi), for the sources that answer per
# container (the Datadog and CloudWatch tests).
two_container_web() {
  k -n "$ns" apply -f - >/dev/null <<'YAML'
  apiVersion: apps/v1
  kind: Deployment
  metadata: {name: web}
  spec:
    replicas: 1
    selector: {matchLabels: {app: web}}
    template:
      metadata: {labels: {app: web}}
      spec:
        containers:
        - {name: app, image: attune.local/app:1, resources: {requests: {cpu: 400m, memory: 210Mi}}}
        - {name: sidecar, image: attune.local/app:1, resources: {requests: {cpu: 60m, memory: 40Mi}}}
YAML
}
