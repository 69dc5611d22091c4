# Helpers for the resize executor's e2e tests (90-99, docs/resize.md). Sourced
# after lib.sh and 70_manager_lib.bash; not a test itself.
#
# Everything is observed through kubectl and the apiserver's own /metrics
# (k get --raw /metrics), plus the manager's /metrics for its counters.
# Deterministic targets come from a Manual-source policy; windows are short
# (cooldown 1m, safetyObservationPeriod 1m), never the defaults changed.

# --- the oracle: the real apiserver's own count of our /resize answers -----

# resize_counts: "<2xx> <4xx> <other>" from apiserver_request_total for
# resource="pods", subresource="resize" (every verb), as the apiserver counts.
# A 429 is the apiserver shedding load (API Priority and Fairness), not a
# judgement of the resize; the manager backs off and retries it, so it counts
# under "other", which the table shows and no test fails on.
resize_counts() {
  k get --raw /metrics | awk '
    /^apiserver_request_total\{/ && /resource="pods"/ && /subresource="resize"/ {
      if (match($0, /code="[0-9]+"/)) code = substr($0, RSTART + 6, 3); else code = "000"
      if (code ~ /^2/) ok += $NF; else if (code ~ /^4/ && code != "429") bad += $NF; else other += $NF
    }
    END { printf "%d %d %d\n", ok, bad, other }'
}

# One file for the whole run, whichever cluster each test ran on (e2e/run.sh).
ORACLE_FILE=${E2E_ORACLE_RUN:-$ATTUNE_RUN}/resize-oracle-$K8S_MINOR.tsv
ORACLE_OK=0; ORACLE_BAD=0; ORACLE_OTHER=0; ORACLE_ON=0
# oracle_begin: while this test runs only the manager sends /resize (the
# test itself never does), so the counter's delta is Attune's.
oracle_begin() {
  read -r ORACLE_OK0 ORACLE_BAD0 ORACLE_OTHER0 < <(resize_counts)
  ORACLE_ON=1
}
# oracle_pause: fold the delta so far in (before the apiserver restarts and
# its counters start over); oracle_begin starts the next segment.
oracle_pause() {
  [ "$ORACLE_ON" = 1 ] || return 0
  local ok bad other
  read -r ok bad other < <(resize_counts)
  ORACLE_OK=$((ORACLE_OK + ok - ORACLE_OK0)); ORACLE_BAD=$((ORACLE_BAD + bad - ORACLE_BAD0))
  ORACLE_OTHER=$((ORACLE_OTHER + other - ORACLE_OTHER0)); ORACLE_ON=0
}
# oracle_check: records this test's counts for 99_executor_resize_oracle and fails on any 4xx.
oracle_check() {
  oracle_pause
  printf '%s\t%d\t%d\t%d\n' "$(basename "$0" .sh)" "$ORACLE_OK" "$ORACLE_BAD" "$ORACLE_OTHER" >>"$ORACLE_FILE"
  log "oracle: the apiserver answered $ORACLE_OK /resize with 2xx, $ORACLE_BAD with 4xx, $ORACLE_OTHER other"
  if [ "$ORACLE_BAD" != 0 ]; then
    # What a reader needs to tell a refusal (422) from a throttle (429) or a
    # vanished pod (404): the apiserver's series by code, the manager's side.
    k get --raw /metrics | grep '^apiserver_request_total{' | grep 'subresource="resize"' >&2 || true
    [ -z "${MGR_LOG:-}" ] || grep -E 'resize (refused|failed|conflict)|apiserver returned 4' "$MGR_LOG" | tail -n 10 >&2 || true
    fail "the apiserver answered $ORACLE_BAD /resize of ours with a 4xx"
  fi
}

# --- workloads and policies -------------------------------------------------

# The pods' image: kubesim runs anything; a real kubelet (k3d) needs a real
# image, which e2e/k3d/run.sh sets.
POD_IMAGE=${E2E_POD_IMAGE:-attune.local/web:1}

# web_deployment NAME REPLICAS [LOAD-JSON] [EXTRA-POD-SPEC-YAML]: an
# over-provisioned Deployment (requests cpu 500m / memory 256Mi, limits cpu 1
# / memory 512Mi, container "app") whose simulated usage is far below them.
web_deployment() {
  local name=$1 replicas=$2 load=${3:-'{"app": {"cpu": "50m", "memory": "60Mi"}}'}
  k -n "$ns" apply -f - >/dev/null <<YAML
apiVersion: apps/v1
kind: Deployment
metadata: {name: $name, labels: {tier: web}}
spec:
  replicas: $replicas
  selector: {matchLabels: {app: $name}}
  template:
    metadata:
      labels: {app: $name}
      annotations: {sim.attune.io/load: '$load'}
    spec:
      containers:
      - name: app
        image: $POD_IMAGE
        resources:
          requests: {cpu: 500m, memory: 256Mi}
          limits: {cpu: "1", memory: 512Mi}
${4:-}
YAML
}

# manual_policy NAME TARGET-NAME MODE CONTAINERS-JSON [UPDATE-STRATEGY-EXTRA-JSON] [SPEC-EXTRA-JSON]:
# a Manual-source policy (deterministic targets) on the Deployment TARGET-NAME,
# with short windows. CONTAINERS-JSON is spec.metricsSource.manual.containers.
manual_policy() {
  local extra=${5:-'{}'} spec_extra=${6:-'{}'}
  jq -n --arg name "$1" --arg target "$2" --arg mode "$3" --argjson containers "$4" \
    --argjson extra "$extra" --argjson spec_extra "$spec_extra" '{
      apiVersion: "attune.io/v1alpha1", kind: "AttunePolicy", metadata: {name: $name},
      spec: ({
        targetRef: {kind: "Deployment", name: $target},
        metricsSource: {manual: {containers: $containers}},
        cpu: {controlledValues: "RequestsAndLimits"}, memory: {controlledValues: "RequestsAndLimits"},
        updateStrategy: ({type: $mode, cooldown: "1m", safetyObservationPeriod: "1m"} + $extra)
      } + $spec_extra)}' | k -n "$ns" apply -f - >/dev/null || fail "policy $1 was refused"
}

# auto_tune_hpa NAME: an HPA annotated attune.io/auto-tune=true on the
# Deployment NAME, CPU utilisation target 80. min = max: a real HPA
# controller (k3d) must not scale it while a test looks.
auto_tune_hpa() {
  k -n "$ns" apply -f - >/dev/null <<YAML
apiVersion: autoscaling/v2
kind: HorizontalPodAutoscaler
metadata:
  name: $1
  annotations: {attune.io/auto-tune: "true"}
spec:
  scaleTargetRef: {apiVersion: apps/v1, kind: Deployment, name: $1}
  minReplicas: 2
  maxReplicas: 2
  metrics:
  - type: Resource
    resource: {name: cpu, target: {type: Utilization, averageUtilization: 80}}
YAML
}

# --- reading what happened -----------------------------------------------------

pods_of() { k -n "$ns" get pods -l "app=$1" -o json; }
# pod_names APP: the Running pods' names, sorted.
pod_names() { pods_of "$1" | jq -r '[.items[] | select(.status.phase == "Running") | .metadata.name] | sort | .[]'; }
# spec_and_status APP CONTAINER: one line per pod "<name> <spec> <status> <restarts>", resources as
# "cpu-req/cpu-lim/mem-req/mem-lim" (quantities as the apiserver prints them).
spec_and_status() {
  pods_of "$1" | jq -r --arg c "$2" '.items[] | select(.status.phase == "Running") |
    def rr: "\(.requests.cpu // "-")/\(.limits.cpu // "-")/\(.requests.memory // "-")/\(.limits.memory // "-")";
    "\(.metadata.name) \(.spec.containers[] | select(.name == $c) | .resources | rr) \((.status.containerStatuses // [])[] | select(.name == $c) | (.resources // {}) | rr) \((.status.containerStatuses // [])[] | select(.name == $c) | .restartCount)"'
}
# all_at APP CONTAINER WANT: every Running pod's spec AND status resources are WANT.
all_at() {
  local out; out=$(spec_and_status "$1" "$2")
  [ -n "$out" ] && ! awk -v w="$3" '$2 != w || $3 != w { bad = 1 } END { exit !bad }' <<<"$out"
}
history_of() { k -n "$ns" get attunepolicy "$1" -o json | jq -c '.status.resizeHistory // []'; }
# history_count POLICY RESULT [REASON]
history_count() {
  history_of "$1" | jq --arg r "$2" --arg why "${3:-}" '[.[] | select(.result == $r and ($why == "" or .reason == $why))] | length'
}
# events_of POLICY REASON: the notes of events.k8s.io Events with that reason regarding the policy.
events_of() {
  k -n "$ns" get events.events.k8s.io -o json | jq -r --arg p "$1" --arg r "$2" \
    '.items[] | select(.regarding.kind == "AttunePolicy" and .regarding.name == $p and .reason == $r) | .note'
}
event_count() { events_of "$1" "$2" | grep -c . || true; }
# has_events POLICY REASON [N]: at least N (1) such Events.
has_events() { [ "$(event_count "$1" "$2")" -ge "${3:-1}" ]; }
# has_history POLICY RESULT REASON [N]: at least N (1) such history entries.
has_history() { [ "$(history_count "$1" "$2" "$3")" -ge "${4:-1}" ]; }
condition_of() {  # condition_of POLICY TYPE -> "<status> <reason>"
  k -n "$ns" get attunepolicy "$1" -o json | jq -r --arg t "$2" \
    '[(.status.conditions // [])[] | select(.type == $t)][0] // {} | "\(.status // "") \(.reason // "")"'
}
workload_counts() { k -n "$ns" get attunepolicy "$1" -o json | jq -c '.status.workloads // {}'; }

# wait_all_at SECONDS APP CONTAINER WANT
wait_all_at() { wait_until "$1" all_at "$2" "$3" "$4"; }
