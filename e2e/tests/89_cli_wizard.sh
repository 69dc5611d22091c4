#!/usr/bin/env bash
# kubectl attune wizard as a person uses it (docs/cli.md "wizard"), in a
# terminal that tmux provides: the test types the answers with send-keys and
# reads the screen with capture-pane.
#  - the namespace's Deployment and StatefulSet are offered, read from the
#    cluster; a number out of range, a Prometheus address with another scheme
#    and a time zone not in the zone database are each asked again with the
#    reason;
#  - the YAML preview shows the answers, and `c` creates the policy: kubectl
#    reads back every field that was answered;
#  - the manager then reconciles it without calling it InvalidConfig;
#  - a second run ended with Ctrl-D creates nothing and exits 1;
#  - --answers writes a file the apiserver accepts; stdin that is not a
#    terminal is refused without --answers.
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/70_manager_lib.bash"
. "$(dirname "$0")/87_cli_lib.bash"
. "$(dirname "$0")/90_executor_lib.bash"
require_cli
command -v tmux >/dev/null || fail "tmux is missing (hack/deps.sh installs it)"
apply_policy_crd
test_namespace

web_deployment web 2
k -n "$ns" apply -f - >/dev/null <<'YAML' || fail "the StatefulSet was refused"
apiVersion: apps/v1
kind: StatefulSet
metadata: {name: db}
spec:
  replicas: 1
  serviceName: db
  selector: {matchLabels: {app: db}}
  template:
    metadata: {labels: {app: db}}
    spec: {containers: [{name: db, image: db, resources: {requests: {cpu: 100m, memory: 128Mi}}}]}
YAML

tmp=$(mktemp -d)
# A tmux server of this test's own (its socket in $tmp), so the wizard runs
# with this test's environment and kubeconfig, whatever other servers run.
tm() { tmux -S "$tmp/tmux.sock" "$@"; }
at_exit "tmux -S $tmp/tmux.sock kill-server >/dev/null 2>&1; rm -rf $tmp"

# wizard_session NAME: the wizard in a fresh 200x60 terminal; its exit code
# lands in $tmp/NAME.rc.
wizard_session() {
  tm new-session -d -s "$1" -x 200 -y 60 \
    "KUBECONFIG='$KUBECONFIG' '$ATTUNE_CLI' wizard -n '$ns'; echo \$? >'$tmp/$1.rc'; sleep 600"
}
screen() { tm capture-pane -p -J -S -300 -t "$1"; }
on_screen() { screen "$1" | grep -qF -- "$2"; }
# type_answer SESSION TEXT WAIT-FOR: types TEXT and Enter once WAIT-FOR is on screen.
type_answer() {
  wait_until 20 on_screen "$1" "$3" || fail "the wizard never showed '$3'; the screen:
$(screen "$1")"
  if [ -n "$2" ]; then tm send-keys -t "$1" -l -- "$2"; fi
  tm send-keys -t "$1" Enter
}
seen() { on_screen "$1" "$2" || fail "the screen does not show '$2':
$(screen "$1")"; }
exit_code() { cat "$tmp/$1.rc" 2>/dev/null; }

wizard_session one
type_answer one "" "Namespace [$ns]: "
# The list comes from the cluster after the answer: wait for it.
wait_until 20 on_screen one "1) Deployment web (2 replicas)" || fail "the wizard never listed the Deployment:
$(screen one)"
seen one "2) StatefulSet db (1 replica)"
type_answer one 9 "Target: a number, KIND/NAME, or a label selector key=value[,key=value] [1]: "
type_answer one 1 "choose a number from 1 to 2"
type_answer one "" "Policy name [web-attune]: "
type_answer one Auto "Mode (Observe, Recommend, OneShot, Auto) [Recommend]: "
type_answer one "" "Metrics source (prometheus, vpa, manual, defaults) [prometheus]: "
type_answer one "ftp://prometheus.monitoring:9090" "Prometheus address, e.g. http://prometheus.monitoring:9090: "
type_answer one "http://prometheus.monitoring:9090" "the scheme must be http or https"
type_answer one 90 "CPU percentile (50, 90, 95, 99) [95]: "
type_answer one 50m "CPU minAllowed, e.g. 50m (Enter: none of its own): "
type_answer one 2 "CPU maxAllowed, e.g. 2 (Enter: none of its own): "
type_answer one "" "Memory percentile (50, 90, 95, 99) [99]: "
type_answer one 64Mi "Memory minAllowed, e.g. 64Mi (Enter: none of its own): "
type_answer one 1Gi "Memory maxAllowed, e.g. 2Gi (Enter: none of its own): "
type_answer one 22:00-06:00 "Resize only within windows HH:MM-HH:MM[,HH:MM-HH:MM] (Enter: at any time): "
type_answer one Mon-Fri "On days, e.g. Mon-Fri or Monday,Saturday (Enter: every day): "
type_answer one Mars/Phobos "Time zone of the windows [UTC]: "
type_answer one Europe/Berlin '"Mars/Phobos" is not in the zone database'
type_answer one 30m "Cooldown between two resizes of a pod, e.g. 30m (Enter: inherited, 1h built in): "
wait_until 30 on_screen one "Create it in namespace $ns (c), write it to a file (w)" \
  || fail "no preview and choice; the screen:
$(screen one)"
for line in "kind: AttunePolicy" "name: web-attune" 'address: "http://prometheus.monitoring:9090"' \
  "percentile: 90" "minAllowed: 50m" "timezone: Europe/Berlin" "cooldown: 30m"; do
  seen one "$line"
done
expect_eq "nothing created before the choice" "$(k -n "$ns" get attunepolicy -o name | wc -l)" 0
type_answer one c "(q): "
wait_until 20 on_screen one "attunepolicy.attune.io/web-attune created" || fail "no 'created' line:
$(screen one)"
wait_eq 10 0 exit_code one || fail "the wizard's exit code: '$(exit_code one)', want 0"
log "$(screen one | grep -E '^  ! ' | sed 's/^/re-asked: /')"

# Every answer, read back by kubectl.
spec=$(k -n "$ns" get attunepolicy web-attune -o json | jq -c .spec)
field() { jq -c "$1" <<<"$spec"; }
expect_eq "targetRef" "$(field .targetRef)" '{"kind":"Deployment","name":"web"}'
expect_eq "prometheus address" "$(field .metricsSource.prometheus.address)" '"http://prometheus.monitoring:9090"'
expect_eq "cpu" "$(field '.cpu | {percentile, minAllowed, maxAllowed}')" \
  '{"percentile":90,"minAllowed":"50m","maxAllowed":"2"}'
expect_eq "memory" "$(field '.memory | {percentile, minAllowed, maxAllowed}')" \
  '{"percentile":99,"minAllowed":"64Mi","maxAllowed":"1Gi"}'
expect_eq "type" "$(field .updateStrategy.type)" '"Auto"'
expect_eq "schedule" "$(field .updateStrategy.schedule)" \
  '{"daysOfWeek":["Monday","Tuesday","Wednesday","Thursday","Friday"],"timezone":"Europe/Berlin","windows":[{"end":"06:00","start":"22:00"}]}'
expect_eq "cooldown" "$(field .updateStrategy.cooldown)" '"30m"'

# Ctrl-D at a question: nothing is created, exit 1.
wizard_session two
type_answer two "" "Namespace [$ns]: "
type_answer two 2 "[1]: "
wait_until 20 on_screen two "Policy name [db-attune]: " || fail "no name question:
$(screen two)"
tm send-keys -t two C-d
wait_until 20 on_screen two "Aborted: nothing was created." || fail "Ctrl-D did not abort:
$(screen two)"
wait_eq 10 1 exit_code two || fail "the aborted wizard's exit code: '$(exit_code two)', want 1"
expect_eq "policies after the aborted run" "$(k -n "$ns" get attunepolicy -o name)" "attunepolicy.attune.io/web-attune"

# Not a terminal: refused, with the way out.
cli_rc wizard -n "$ns" </dev/null
expect_eq "wizard without a terminal exit" "$cli_status" 1
grep -q 'stdin is not one.*--answers FILE' <<<"$cli_err" || fail "no clear refusal: $cli_err"

# --answers: a selector on StatefulSets, from a VPA, written to a file the apiserver accepts.
printf '%s\n' "" "app=db" "sts" "" "Recommend" "vpa" "db" "" "" "" "" "" "" w "$tmp/db.yaml" >"$tmp/answers"
cli_rc wizard -n "$ns" --answers "$tmp/answers"
expect_eq "--answers exit" "$cli_status" 0
grep -qF "Wrote $tmp/db.yaml" <<<"$cli_out" || fail "no 'Wrote' line: $cli_out"
k -n "$ns" apply --dry-run=server -f "$tmp/db.yaml" >/dev/null || fail "the apiserver refused the written policy"
expect_eq "written targetRef" "$(k create --dry-run=client -f "$tmp/db.yaml" -o json | jq -c .spec.targetRef)" \
  '{"kind":"StatefulSet","selector":{"matchLabels":{"app":"db"}}}'
expect_eq "written source" "$(k create --dry-run=client -f "$tmp/db.yaml" -o json | jq -c .spec.metricsSource)" \
  '{"vpa":{"name":"db"}}'

# The manager takes what the wizard created: Ready is reported, and not as InvalidConfig.
start_manager
ready_written() { [ "$(condition_of web-attune Ready)" != " " ]; }
wait_until 60 ready_written || fail "the manager wrote no Ready condition for web-attune"
ready=$(condition_of web-attune Ready)
case "$ready" in
  *InvalidConfig*|" ") fail "the manager's verdict on the wizard's policy: '$ready'" ;;
esac
log "web-attune: Ready $ready"
