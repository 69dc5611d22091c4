# Helpers for the lifecycle e2e tests (66-69, 56-58; docs/lifecycle.md). Sourced
# after lib.sh, 70_manager_lib.bash and 90_executor_lib.bash; not a test.
#
# Everything is read through kubectl: the policy's status.lifecycle entry,
# the pods' spec and status resources, Events on the workload. Candidates
# come from a Manual-source policy (deterministic revisions); pauses and
# windows are the test's own short ones, never changed defaults.

# lifecycle_test: what every lifecycle test starts with (the manager binary,
# the CRDs, its namespace, the /resize oracle).
lifecycle_test() {
  require_manager
  apply_policy_crd
  test_namespace
  oracle_begin
}

# The template size of web_deployment's pods, as spec_and_status prints it.
base="500m/1/256Mi/512Mi"
# web_running NAME REPLICAS [LOAD-JSON]: web_deployment, and wait until every
# replica runs at the template size.
web_running() {
  web_deployment "$1" "$2" "${3:-}"
  wait_eq 120 "$2" count_at "$1" app "$base" || fail "$1 never ran $2 pods at the template size: $(spec_and_status "$1" app)"
}

# canary_policy NAME TARGET CONTAINERS-JSON LIFECYCLE-JSON [UPDATE-STRATEGY-EXTRA-JSON]:
# a Canary policy with spec.lifecycle = LIFECYCLE-JSON.
canary_policy() {
  local extra=${5:-'{}'}
  manual_policy "$1" "$2" Canary "$3" "$extra" "$(jq -nc --argjson l "$4" '{lifecycle: $l}')"
}
# lc_entry POLICY WORKLOAD: the status.lifecycle entry of Deployment WORKLOAD ({} if none).
lc_entry() {
  k -n "$ns" get attunepolicy "$1" -o json |
    jq -c --arg w "$2" '[(.status.lifecycle.workloads // [])[] | select(.kind == "Deployment" and .workload == $w)][0] // {}'
}
# lc POLICY WORKLOAD JQ-FILTER: a field of that entry (raw).
lc() { lc_entry "$1" "$2" | jq -r "$3"; }
# lc_is POLICY WORKLOAD PHASE [STEP]: the entry is in PHASE (at STEP).
lc_is() {
  local e; e=$(lc_entry "$1" "$2")
  [ "$(jq -r '.phase // ""' <<<"$e")" = "$3" ] && { [ -z "${4:-}" ] || [ "$(jq -r '.step' <<<"$e")" = "$4" ]; }
}
# lc_step_applied POLICY WORKLOAD STEP N: at STEP, N pods listed and all Applied.
lc_step_applied() {
  lc_entry "$1" "$2" | jq -e --argjson s "$3" --argjson n "$4" \
    '.phase == "ValidationRunning" and .step == $s and (.pods | length) == $n and all(.pods[]; .state == "Applied")' >/dev/null
}
# at_candidate APP CONTAINER WANT: the Running pods whose spec AND status are WANT (names, sorted).
at_candidate() { spec_and_status "$1" "$2" | awk -v w="$3" '$2 == w && $3 == w { print $1 }' | sort; }
count_at() { at_candidate "$@" | grep -c . || true; }
# workload_events WORKLOAD REASON: notes of the Events with REASON regarding Deployment WORKLOAD.
workload_events() {
  k -n "$ns" get events.events.k8s.io -o json | jq -r --arg w "$1" --arg r "$2" \
    '.items[] | select(.regarding.kind == "Deployment" and .regarding.name == $w and .reason == $r) | .note'
}
workload_event_count() { workload_events "$1" "$2" | grep -c . || true; }
has_workload_event() { [ "$(workload_event_count "$1" "$2")" -ge "${3:-1}" ]; }
# kill_manager: SIGKILL, no goodbye (a crash); the next start_manager starts afresh.
kill_manager() {
  local pid=$MGR_PID
  MGR_PID=""
  kill_manager_hard "$pid"
}
