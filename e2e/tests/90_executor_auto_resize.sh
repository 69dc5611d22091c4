#!/usr/bin/env bash
# Auto, in place (docs/resize.md): an over-provisioned Deployment
# (simulated usage far below its requests) is right-sized to its
# recommendation (a Manual source, for a deterministic target) without a
# restart: spec and status reach the target, restartCount stays 0, one
# Success per pod in status.resizeHistory and one Resized Event per pod.
# A resize counts only once Applied: attune_resize_duration_seconds (PATCH to
# Applied) is never shorter than kubesim's 500 ms in-progress delay. The
# kubectl watch shows how this minor reported the resize: status.resize on
# 1.32, the PodResize* conditions from 1.33.
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/70_manager_lib.bash"
. "$(dirname "$0")/90_executor_lib.bash"
require_manager
apply_policy_crd
test_namespace
oracle_begin

web_deployment web 3
wait_all_at 90 web app "500m/1/256Mi/512Mi" || fail "pods never ran at the template size: $(spec_and_status web app)"
watchlog=$(mktemp)
at_exit "rm -f $watchlog"
k -n "$ns" get pods -l app=web -w --output-watch-events -o json >"$watchlog" 2>/dev/null &
watch_pid=$!
at_exit "kill $watch_pid 2>/dev/null"

start_manager
manual_policy web web Auto '[{"name":"app","resources":{"requests":{"cpu":"200m","memory":"128Mi"},"limits":{"cpu":"400m"}}}]'
want="200m/400m/128Mi/512Mi"
wait_all_at 60 web app "$want" || fail "not right-sized to $want: $(spec_and_status web app)"
log "right-sized in place: $(spec_and_status web app | tr '\n' ';')"

restarts=$(spec_and_status web app | awk '{ s += $4 } END { print s + 0 }')
expect_eq "restarts after the resize" "$restarts" 0
wait_eq 30 3 history_count web Success || fail "history: $(history_of web)"
history_of web | jq -e 'all(.[]; .method == "InPlace" and .container == "app" and .resource == "cpu+memory"
  and .from == "cpu 500m/1, memory 256Mi/512Mi" and .to == "cpu 200m/400m, memory 128Mi/512Mi")' >/dev/null \
  || fail "history entries are not what the resize did: $(history_of web)"
wait_eq 30 3 event_count web Resized || fail "want 3 Resized Events, got: $(events_of web Resized)"
for p in $(pod_names web); do events_of web Resized | grep -q "pod $p resized in place" || fail "no Resized Event for $p"; done

# Applied, not accepted: the PATCH answers in milliseconds; kubesim applies
# after its 500 ms in-progress delay (a real kubelet has no fixed delay).
count=$(metric_sum attune_resize_duration_seconds_count)
expect_eq "resizes timed from PATCH to Applied" "$count" 3
if [ -z "${E2E_EXTERNAL:-}" ]; then
  fast=$(metric_sum attune_resize_duration_seconds_bucket 'le="0.25"')
  expect_eq "resizes counted before the kubelet applied them (le=0.25 s)" "$fast" 0
fi
expect_eq "attune_resize_total success" "$(metric_sum attune_resize_total 'result="success"')" 3

kill "$watch_pid" 2>/dev/null; wait "$watch_pid" 2>/dev/null || true
seen=$(jq -r 'select(.object.status != null) | .object.status as $s |
  (if (($s.resize // "") != "") then "field" else empty end),
  (if ([($s.conditions // [])[] | select(.type == "PodResizeInProgress" or .type == "PodResizePending")] | length) > 0 then "conditions" else empty end)' \
  "$watchlog" | sort -u | tr '\n' ' ')
log "the apiserver reported the resize through: $seen"
case $(expected_resize_mechanism) in
  field) [[ $seen == *field* && $seen != *conditions* ]] || fail "1.32 should report status.resize only, saw: $seen";;
  conditions) [[ $seen == *conditions* && $seen != *field* ]] || fail "$K8S_MINOR should report conditions only, saw: $seen";;
esac
oracle_check
