#!/usr/bin/env bash
# The manager's RBAC is what makes it work (image lane only): the manager runs
# in its image as the ServiceAccount of the rendered manifests, once with
# every rule and once each with one rule taken out of the rendered
# ClusterRole.
#   - without pods/resize: no pod is resized, the manager logs the apiserver's
#     403, and a ResizeSkipped Event on the policy names pods/resize; with the
#     rule back the same pods are resized (the positive control);
#   - without attunepolicies/status: no status is written, the log shows the
#     403, and a StatusWriteForbidden Event names attunepolicies/status.
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/70_manager_lib.bash"
. "$(dirname "$0")/90_executor_lib.bash"
[ -n "${E2E_MANAGER_IMAGE:-}" ] || skip "needs the image lane (E2E_MANAGER_IMAGE; make test sets it)"
require_manager
apply_policy_crd
test_namespace

web_deployment web 2
wait_all_at 90 web app "500m/1/256Mi/512Mi" || fail "pods never ran at the template size: $(spec_and_status web app)"
target='[{"name":"app","resources":{"requests":{"cpu":"200m","memory":"128Mi"},"limits":{"cpu":"400m"}}}]'
want="200m/400m/128Mi/512Mi"

# --- pods/resize taken out ----------------------------------------------------
ATTUNE_LANE_RBAC_DROP=pods/resize start_manager
k get clusterrole attune-manager -o json | jq -e '[.rules[].resources[]] | index("pods/resize") | not' >/dev/null \
  || fail "the ClusterRole still grants pods/resize"
manual_policy web web Auto "$target"
wait_until 60 has_events web ResizeSkipped || fail "no ResizeSkipped Event without pods/resize"
note=$(events_of web ResizeSkipped | head -1)
log "Event: $note"
[[ $note == *forbidden* && $note == *'"pods/resize"'* ]] || fail "the Event does not name the missing permission: $note"
grep -q 'Forbidden' "$MGR_LOG" && grep -q 'pods/resize' "$MGR_LOG" || { tail -20 "$MGR_LOG" >&2; fail "the manager's log shows no 403 for pods/resize"; }
all_at web app "500m/1/256Mi/512Mi" || fail "a pod was resized without pods/resize: $(spec_and_status web app)"
stop_manager

# The positive control: the same manager with every rule resizes the pods.
start_manager
wait_all_at 90 web app "$want" || fail "with pods/resize back, not right-sized to $want: $(spec_and_status web app)"
log "with the rule: $(spec_and_status web app | tr '\n' ';')"
stop_manager
k -n "$ns" delete attunepolicy web --wait >/dev/null

# --- attunepolicies/status taken out ------------------------------------------
ATTUNE_LANE_RBAC_DROP=attunepolicies/status start_manager
k get clusterrole attune-manager -o json | jq -e '[.rules[].resources[]] | index("attunepolicies/status") | not' >/dev/null \
  || fail "the ClusterRole still grants attunepolicies/status"
manual_policy quiet web Observe "$target"
wait_until 60 has_events quiet StatusWriteForbidden || { tail -20 "$MGR_LOG" >&2; fail "no StatusWriteForbidden Event"; }
note=$(events_of quiet StatusWriteForbidden | head -1)
log "Event: $note"
[[ $note == *'"attunepolicies/status"'* ]] || fail "the Event does not name attunepolicies/status: $note"
grep -q 'policy status write failed.*forbidden' "$MGR_LOG" || { tail -20 "$MGR_LOG" >&2; fail "the manager's log shows no 403 for the status"; }
status=$(k -n "$ns" get attunepolicy quiet -o json | jq -c '.status // {}')
expect_eq "status written without attunepolicies/status" "$status" "{}"
# One Event, not a storm: the same message is sent once per hour.
sleep 10
expect_eq "StatusWriteForbidden Events after 10 s" "$(event_count quiet StatusWriteForbidden)" 1
stop_manager
# The next start applies the whole rendered ClusterRole again.
