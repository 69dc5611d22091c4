#!/usr/bin/env bash
# Outside its maintenance window and during its cooldown an Auto policy sends
# no /resize, not even a decrease (docs/resize.md, "Gates"). Read back with
# kubectl and the apiserver's own /resize counter:
#  1. a schedule that excludes today and tomorrow (UTC): ScheduleBlocked=True,
#     a ScheduleSkipped Event, history result Held (outside_schedule), the
#     pods keep their template's 500m and the apiserver saw no /resize;
#  2. the schedule removed: the same decrease goes ahead (history Success);
#  3. a second decrease right after that cycle: held by the 1m cooldown
#     (Held, cooldown, CooldownActive) while the cooldown runs, then applied.
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/70_manager_lib.bash"
. "$(dirname "$0")/90_executor_lib.bash"
require_manager
apply_policy_crd
test_namespace
oracle_begin

web_deployment held 2
wait_all_at 90 held app "500m/1/256Mi/512Mi" || fail "pods never ran: $(spec_and_status held app)"
start_manager

# Every day but today and tomorrow, so a run across midnight stays outside.
days=$(for i in 2 3 4 5 6; do date -u -d "+$i day" +%A; done | jq -R . | jq -sc .)
window="{\"schedule\": {\"windows\": [{\"start\": \"00:00\", \"end\": \"00:00\"}], \"daysOfWeek\": $days, \"timezone\": \"UTC\"}}"
read -r sent0 _ _ < <(resize_counts)
manual_policy held held Auto '[{"name":"app","resources":{"requests":{"cpu":"200m"}}}]' "$window"
wait_until 60 has_history held Held outside_schedule || fail "no Held outside_schedule entry: $(history_of held)"
schedule_blocked() { [ "$(condition_of held ScheduleBlocked)" = "True OutsideWindow" ]; }
wait_until 30 schedule_blocked || fail "ScheduleBlocked is \"$(condition_of held ScheduleBlocked)\", not True OutsideWindow"
wait_until 30 has_events held ScheduleSkipped || fail "no ScheduleSkipped Event"
sleep 10  # a pass or two more: nothing may be sent meanwhile
all_at held app "500m/1/256Mi/512Mi" || fail "a decrease went out outside the window: $(spec_and_status held app)"
read -r sent1 _ _ < <(resize_counts)
expect_eq "/resize requests the apiserver saw outside the window" "$((sent1 - sent0))" 0
expect_eq "Failed history entries" "$(history_count held Failed)" 0

# Inside the window (no schedule): the decrease goes ahead.
manual_policy held held Auto '[{"name":"app","resources":{"requests":{"cpu":"200m"}}}]'
wait_all_at 60 held app "200m/1/256Mi/512Mi" || fail "not resized once the window opened: $(spec_and_status held app)"
wait_eq 30 2 history_count held Success || fail "history: $(history_of held)"
anchor_of() { k -n "$ns" get attunepolicy held -o json | jq -r '.metadata.annotations["attune.io/last-resize-time"] // ""'; }
anchor_written() { [ -n "$(anchor_of)" ]; }
wait_until 30 anchor_written || fail "the closed cycle wrote no attune.io/last-resize-time"
anchor=$(anchor_of)

# A second decrease inside the 1m cooldown is held, then applied once it ends.
manual_policy held held Auto '[{"name":"app","resources":{"requests":{"cpu":"150m"}}}]'
wait_until 30 has_history held Held cooldown || fail "no Held cooldown entry: $(history_of held)"
wait_until 30 has_events held CooldownActive || fail "no CooldownActive Event"
ends=$(( $(date -u -d "$anchor" +%s) + 60 ))
if [ "$(date -u +%s)" -lt $((ends - 5)) ]; then
  all_at held app "200m/1/256Mi/512Mi" || fail "a decrease went out during the cooldown: $(spec_and_status held app)"
fi
wait_all_at 120 held app "150m/1/256Mi/512Mi" || fail "not resized after the cooldown: $(spec_and_status held app)"
[ "$(date -u +%s)" -ge "$ends" ] || fail "resized to 150m before the cooldown from $anchor ended"
log "held outside the window and in the cooldown, applied after: $(history_of held | jq -c '[.[] | [.result, .reason]]')"
oracle_check
