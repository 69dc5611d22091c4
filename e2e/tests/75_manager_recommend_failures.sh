#!/usr/bin/env bash
# What attune-manager says when recommendations cannot be made (docs/recommender.md),
# observed with kubectl, its /metrics and /healthz:
#  - a loopback Prometheus address without --allow-local-metrics-addresses,
#    and a cloud metadata address even with it: Ready=False InvalidConfig;
#  - a target that does not exist: Ready=False NoWorkloadsFound;
#  - the real Prometheus stopped (hack/cluster.sh stop prometheus):
#    Ready=False PrometheusUnavailable while the manager keeps serving, and
#    back to collecting by itself once it is restarted;
#  - a Prometheus that answers garbage, and one that hangs (a tiny Python
#    fake on loopback, e2e/testproxy/fake_prometheus.py, a harness): a clear
#    PrometheusUnavailable message each, no crash, the manager's RSS bounded.
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/70_manager_lib.bash"
. "$(dirname "$0")/recommend_lib.bash"
require_local "the harness's Prometheus"
require_manager
apply_policy_crd
test_namespace
loaded_deployment web 100m 64Mi

# 1. Without the flag, a loopback address is refused; a metadata address always is.
policy loopback web "$(prometheus_source)"
start_manager
wait_ready loopback "False InvalidConfig" 60
[[ "$(ready_message loopback)" == *"loopback is allowed only when the manager runs with --allow-local-metrics-addresses"* ]] \
  || fail "loopback message: $(ready_message loopback)"
stop_manager
k -n "$ns" delete attunepolicy loopback >/dev/null

policy metadata web '{"prometheus":{"address":"http://169.254.169.254/latest"},"queryStep":"10s"}'
policy ghost nothing-here "$(prometheus_source)"
# Collecting for ever (10000 points): looked at again every queryStep (10 s).
policy live web "$(prometheus_source '{"minimumDataPoints":10000}')" '{"weight":10}'
start_manager --allow-local-metrics-addresses --prometheus-query-timeout=3s
wait_ready metadata "False InvalidConfig" 60
[[ "$(ready_message metadata)" == *"169.254.169.254"* ]] || fail "metadata message: $(ready_message metadata)"
wait_ready ghost "False NoWorkloadsFound" 30
k -n "$ns" delete attunepolicy metadata >/dev/null   # web is live's now
wait_ready live "False InsufficientData" 60

# 2. Prometheus stopped: unavailable, the manager keeps serving; restarted: collecting again.
at_exit "\"$REPO_ROOT/hack/cluster.sh\" restart prometheus >/dev/null 2>&1"
"$REPO_ROOT/hack/cluster.sh" stop prometheus >/dev/null 2>&1 || fail "could not stop Prometheus"
wait_ready live "False PrometheusUnavailable" 40
log "stopped: $(ready_message live)"
[[ "$(ready_message live)" == *"cpu query"*"unreachable"* ]] || fail "stopped message: $(ready_message live)"
curl -fsS --max-time 2 "http://127.0.0.1:$MGR_PORT/healthz" >/dev/null || fail "the manager stopped serving"
"$REPO_ROOT/hack/cluster.sh" restart prometheus >/dev/null 2>&1 || fail "could not restart Prometheus"
wait_ready live "False InsufficientData" 60
log "restarted: $(ready_message live)"

# 3. Garbage and a hang, from fakes on loopback (harness).
rss_kb() { awk '/^VmRSS:/ { print $2 }' "/proc/$(manager_os_pid)/status"; }
loaded_deployment junk 100m 64Mi
loaded_deployment stuck 100m 64Mi
fake garbage; garbage_port=$FAKE_PORT
fake hang; hang_port=$FAKE_PORT
policy garbage junk "{\"prometheus\":{\"address\":\"http://127.0.0.1:$garbage_port\"},\"queryStep\":\"10s\"}"
policy hang stuck "{\"prometheus\":{\"address\":\"http://127.0.0.1:$hang_port\"},\"queryStep\":\"10s\"}"
wait_ready garbage "False PrometheusUnavailable" 40
log "garbage: $(ready_message garbage)"
[[ "$(ready_message garbage)" == *"cpu query"* ]] || fail "garbage message: $(ready_message garbage)"
wait_ready hang "False PrometheusUnavailable" 40
log "hang: $(ready_message hang)"
[[ "$(ready_message hang)" == *"did not answer in time"* ]] || fail "hang message: $(ready_message hang)"
rss0=$(rss_kb)
# Several more rounds of both (each looked at again every 10 s).
sleep 35
kill -0 "$MGR_PID" 2>/dev/null || fail "attune-manager died"
rss1=$(rss_kb)
log "rss ${rss0} kB -> ${rss1} kB after more failing rounds"
[ "$rss1" -lt 200000 ] || fail "attune-manager RSS ${rss1} kB"
[ $(( rss1 - rss0 )) -lt 20000 ] || fail "attune-manager RSS grew from ${rss0} to ${rss1} kB"
[ "$(metric_sum attune_prometheus_query_errors_total "namespace=\"$ns\"")" -ge 4 ] || fail "query errors not counted"
curl -fsS --max-time 2 "http://127.0.0.1:$MGR_PORT/readyz" >/dev/null || fail "the manager is not ready any more"
