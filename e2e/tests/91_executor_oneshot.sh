#!/usr/bin/env bash
# OneShot resizes one replica per cycle (docs/resize.md): over a kubectl watch of
# the pods, at no moment do two replicas carry a spec that their status has
# not caught up with, and every replica still ends at the target. A decrease
# is never held by the cooldown, so the next replica follows as soon as the
# previous one is Applied.
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/70_manager_lib.bash"
. "$(dirname "$0")/90_executor_lib.bash"
require_manager
apply_policy_crd
test_namespace
oracle_begin

web_deployment one 3
wait_all_at 90 one app "500m/1/256Mi/512Mi" || fail "pods never ran: $(spec_and_status one app)"
watchlog=$(mktemp)
at_exit "rm -f $watchlog"
k -n "$ns" get pods -l app=one -w --output-watch-events -o json >"$watchlog" 2>/dev/null &
watch_pid=$!
at_exit "kill $watch_pid 2>/dev/null"

start_manager
manual_policy one one OneShot '[{"name":"app","resources":{"requests":{"cpu":"250m"}}}]'
wait_all_at 90 one app "250m/1/256Mi/512Mi" || fail "OneShot never got every replica there: $(spec_and_status one app)"
kill "$watch_pid" 2>/dev/null; wait "$watch_pid" 2>/dev/null || true

# Replay the watch: per pod, does its spec differ from its applied status?
most=$(jq -s '
  def rr: {c: (.requests.cpu // ""), m: (.requests.memory // "")};
  reduce (.[] | select(.object.kind == "Pod") | .object) as $p ({cur: {}, most: 0};
    .cur[$p.metadata.name] = ((($p.spec.containers[0].resources | rr) != (((($p.status.containerStatuses // [])[0].resources) // {}) | rr))
                              and (($p.status.containerStatuses // []) | length > 0))
    | .most = ([.most, ([.cur[] | select(.)] | length)] | max)) | .most' "$watchlog")
log "at most $most replica(s) resizing at once"
[ "$most" = 1 ] || fail "OneShot had $most replicas resizing at once (want exactly 1)"
wait_eq 30 3 history_count one Success || fail "history: $(history_of one)"
stamps=$(history_of one | jq -r '[.[] | select(.result == "Success") | .timestamp] | sort | unique | length')
log "the three resizes happened at $stamps distinct second(s)"
oracle_check
