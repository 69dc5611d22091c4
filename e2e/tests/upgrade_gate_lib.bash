# Helpers for the upgrade gate and chain e2e tests (82-86). Sourced after
# lib.sh; not a test itself (the runner only runs *.sh).
#
# HARNESS, not Attune: kubesim runs pods without running their containers,
# so run_chain_job plays the kubelet for the chain's Jobs. It waits for the
# Job's pod to run, executes that pod's container args with the built
# kubectl-attune on this machine, saves the output (the Job's "log"), and then
# reports the pod Succeeded or Failed with the exit code through the pod
# status, as a kubelet would; the real Job controller then completes or fails
# the Job. Everything asserted goes through kubectl and curl to Prometheus or
# the Pushgateway.
UPGRADE_LOGS=${UPGRADE_LOGS:-$ATTUNE_RUN/upgrade-logs}
mkdir -p "$UPGRADE_LOGS"

next_minor() { echo "1.$(( ${1#1.} + 1 ))"; }  # next_minor 1.36 -> 1.37

# fake_addon NS NAME IMAGE [REPLICAS] [VERSION-LABEL]: a Deployment whose image
# (and optionally its app.kubernetes.io/version label) carries a version.
fake_addon() {
  local ns=$1 name=$2 image=$3 replicas=${4:-1} label=${5:-}
  local labels="{app: $name}"
  [ -n "$label" ] && labels="{app: $name, app.kubernetes.io/version: \"$label\"}"
  k -n "$ns" apply -f - >/dev/null <<YAML
apiVersion: apps/v1
kind: Deployment
metadata: {name: $name, labels: $labels}
spec:
  replicas: $replicas
  selector: {matchLabels: {app: $name}}
  template:
    metadata: {labels: {app: $name}}
    spec:
      containers:
      - name: $name
        image: $image
        resources: {requests: {cpu: 10m, memory: 16Mi}}
YAML
}

# chain_template FILE NS PUSH_JOB MATRIX [EXTRA-ARGS...]: a Job template whose
# step runs against this cluster and its Pushgateway, in namespace NS.
chain_template() {
  local file=$1 ns=$2 job=$3 matrix=$4; shift 4
  local extra; extra=$(printf '%s\n' "$@" | jq -R . | jq -s .)
  jq -n --arg ns "$ns" --arg job "$job" --arg matrix "$matrix" --arg tmpl "$file" \
        --arg pgw "$PUSHGATEWAY_URL" --argjson extra "${extra:-[]}" '
    {apiVersion: "batch/v1", kind: "Job", metadata: {labels: {"app.kubernetes.io/part-of": "attune-e2e"}},
     spec: {backoffLimit: 0, template: {spec: {restartPolicy: "Never",
       containers: [{name: "step", image: "attune.local/kubectl-attune:e2e",
         args: (["upgrade-step", "--namespace=" + $ns, "--matrix=" + $matrix, "--job-template=" + $tmpl,
                 "--pushgateway=" + $pgw, "--push-job=" + $job, "--log-level=info"]
                + ($extra | map(select(. != ""))))}]}}}}' > "$file"
}

# chain_jobs NS [PHASE]: names of the chain's Jobs, oldest first.
chain_jobs() {
  local sel="app.kubernetes.io/name=attune-upgrade"
  [ -n "${2:-}" ] && sel+=",attune.io/upgrade-phase=$2"
  k -n "$1" get jobs -l "$sel" --sort-by=.metadata.creationTimestamp -o jsonpath='{range .items[*]}{.metadata.name}{"\n"}{end}'
}
job_state() {  # job_state NS JOB -> Complete | Failed | Running
  k -n "$1" get job "$2" -o json | jq -r '
    [(.status.conditions // [])[] | select(.status == "True") | .type] as $t
    | if ($t | index("Complete")) then "Complete" elif ($t | index("Failed")) then "Failed" else "Running" end'
}
job_pod() { k -n "$1" get pods -l "batch.kubernetes.io/job-name=$2" -o jsonpath='{.items[0].metadata.name}' 2>/dev/null; }
pod_phase() { k -n "$1" get pod "$2" -o jsonpath='{.status.phase}' 2>/dev/null; }

# finish_pod NS POD EXIT-CODE: what a kubelet reports when the container exits.
finish_pod() {
  local ns=$1 pod=$2 code=$3 now phase reason
  now=$(date -u +%Y-%m-%dT%H:%M:%SZ)
  if [ "$code" = 0 ]; then phase=Succeeded; reason=Completed; else phase=Failed; reason=Error; fi
  k -n "$ns" patch pod "$pod" --subresource=status --type=merge -p "$(jq -n --arg p "$phase" --arg r "$reason" \
      --argjson c "$code" --arg t "$now" --arg img "$(k -n "$ns" get pod "$pod" -o jsonpath='{.spec.containers[0].image}')" '
    {status: {phase: $p, conditions: [{type: "Ready", status: "False", reason: "PodCompleted"}],
     containerStatuses: [{name: "step", ready: false, restartCount: 0, started: false, image: $img, imageID: "",
       state: {terminated: {exitCode: $c, reason: $r, startedAt: $t, finishedAt: $t}}}]}}')" >/dev/null
}

# run_chain_job NS JOB: HARNESS (see above). Sets STEP_RC, STEP_OUT (the
# step's stdout file: the Job's log) and waits for the Job to finish.
run_chain_job() {
  local ns=$1 job=$2 pod="" args
  for _ in $(seq 1 120); do pod=$(job_pod "$ns" "$job"); [ -n "$pod" ] && [ "$(pod_phase "$ns" "$pod")" = Running ] && break; sleep 0.5; done
  [ -n "$pod" ] && [ "$(pod_phase "$ns" "$pod")" = Running ] || fail "the pod of Job $job never ran"
  mapfile -t args < <(k -n "$ns" get pod "$pod" -o json | jq -r '.spec.containers[0].args[]')
  STEP_OUT="$UPGRADE_LOGS/$job.out"
  log "harness: running Job $job's step: kubectl-attune ${args[*]}"
  set +e
  "$ATTUNE_CLI" "${args[@]}" >"$STEP_OUT" 2>"$UPGRADE_LOGS/$job.err"
  STEP_RC=$?
  set -e
  finish_pod "$ns" "$pod" "$STEP_RC"
  local want=Complete; [ "$STEP_RC" = 0 ] || want=Failed
  wait_eq 60 "$want" job_state "$ns" "$job" || { tail -20 "$UPGRADE_LOGS/$job.err" >&2; fail "Job $job did not become $want"; }
}

# detect NS TEMPLATE [ARGS...]: the CronJob's run of the detector.
detect() {
  local ns=$1 tmpl=$2; shift 2
  "$ATTUNE_CLI" upgrade-step --detect --namespace="$ns" --job-template="$tmpl" --pushgateway="$PUSHGATEWAY_URL" \
    --push-job="$PUSH_JOB" --log-level=info "$@" 2>>"$UPGRADE_LOGS/detect-$ns.log"
}

# prom_value PROMQL: the first sample's value, empty when there is none.
prom_value() {
  curl -sf --max-time 5 "$PROMETHEUS_URL/api/v1/query" --data-urlencode "query=$1" | jq -r '.data.result[0].value[1] // empty'
}
# alert_state ALERTNAME: firing | pending | "" for the test's push job.
alert_state() {
  curl -sf --max-time 5 "$PROMETHEUS_URL/api/v1/query" --data-urlencode "query=ALERTS{alertname=\"$1\",job=\"$PUSH_JOB\"}" \
    | jq -r '[.data.result[].metric.alertstate] | if length == 0 then "" else (if index("firing") then "firing" else .[0] end) end'
}

# require_pushgateway: the harness's Pushgateway and Prometheus (cluster.sh up).
require_pushgateway() {
  require_local "the harness's Pushgateway and Prometheus"
  [ -n "${PUSHGATEWAY_URL:-}" ] || skip "this cluster was brought up without a Pushgateway"
}

# use_push_job: a Pushgateway group of this test's own, deleted on exit.
use_push_job() {
  PUSH_JOB="attune-upgrade-e2e-$(basename "$0" .sh | cut -c1-2)-$RANDOM"
  at_exit "curl -s -X DELETE '$PUSHGATEWAY_URL/metrics/job/$PUSH_JOB' >/dev/null"
}
