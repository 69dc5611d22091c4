#!/usr/bin/env bash
# Persistence by admission (docs/lifecycle.md, persistence.mode
# AdmissionOnNextPodTemplateChange): a validated revision stays at
# ValidatedAwaitingPersistence (the template untouched) until a
# template-changing update (kubectl set env); the manager's webhook injects
# the validated resources and the revision annotations into that update,
# and the lifecycle then records Persisted. Unlike 54, nothing is set up by
# hand: the lifecycle validated the revision on the live pods.
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/70_manager_lib.bash"
. "$(dirname "$0")/51_webhook_lib.bash"
. "$(dirname "$0")/90_executor_lib.bash"
. "$(dirname "$0")/66_lifecycle_lib.bash"
webhook_test

web_running web 2
want="200m/1/256Mi/512Mi"
start_webhook_manager
wait_webhook_called
canary_policy web web '[{"name":"app","resources":{"requests":{"cpu":"200m"}}}]' \
  '{"steps":[{"percent":50},{"percent":100}],"persistence":{"mode":"AdmissionOnNextPodTemplateChange"}}'
wait_until 90 lc_is web web ValidatedAwaitingPersistence || fail "never validated: $(lc_entry web web)"
rev=$(lc web web .validatedRevision)
expect_eq "pods at the candidate" "$(count_at web app "$want")" 2

tmpl() { k -n "$ns" get deployment web -o json | jq -r '.spec.template.spec.containers[0].resources.requests.cpu'; }
ann() { k -n "$ns" get deployment web -o json | jq -r --arg k "$1" '.metadata.annotations[$k] // ""'; }
# It waits: no template patch of its own.
sleep 5
expect_eq "phase before a template change" "$(lc web web .phase)" ValidatedAwaitingPersistence
expect_eq "template before a template change" "$(tmpl)" 500m
expect_eq "persisted-revision before" "$(ann attune.io/persisted-revision)" ""

# The webhook has seen the entry once a server-side dry run gets the candidate.
dry_env() { k -n "$ns" set env deployment/web "PROBE=$RANDOM" --dry-run=server -o json | jq -r '.spec.template.spec.containers[0].resources.requests.cpu'; }
wait_eq 30 200m dry_env || fail "a template change would not get the candidate"
k -n "$ns" set env deployment/web GREETING=hello >/dev/null
expect_eq "template after kubectl set env" "$(tmpl)" 200m
expect_eq "persisted-revision" "$(ann attune.io/persisted-revision)" "$rev"
expect_eq "persisted-policy" "$(ann attune.io/persisted-policy)" web
wait_until 60 lc_is web web Persisted || fail "never recorded Persisted: $(lc_entry web web)"
wait_until 30 has_workload_event web Persisted || fail "no Persisted Event"
log "persisted $rev: $(lc web web .message)"
