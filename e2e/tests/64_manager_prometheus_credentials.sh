#!/usr/bin/env bash
# Where attune-manager's Prometheus credentials go (docs/security.md, "Where
# credentials go"), observed with kubectl and through what loopback fakes
# (e2e/testproxy/fake_prometheus.py, a harness) were sent:
#  - the SSRF rule at connect time: a host name that passes the literal check
#    but resolves to loopback is refused without --allow-local-metrics-addresses
#    (Ready=False PrometheusUnavailable, nothing connects) and used with it;
#  - the manager's --prometheus-bearer-token-file token reaches only the
#    addresses in --prometheus-token-addresses: elsewhere it is withheld (the
#    fake sees no Authorization), logged once, and a 401 message says why;
#  - a bearerTokenSecret over http:// and tls.insecureSkipVerify are
#    Ready=False InvalidConfig until the manager opts in by flag.
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/70_manager_lib.bash"
. "$(dirname "$0")/recommend_lib.bash"
require_local "the harness's fakes"
require_manager

# A host name the literal check cannot judge (not localhost, not an IP) that
# resolves only to loopback: the machine's own name, or another name that
# /etc/hosts gives a 127.x address. This test reads /etc/hosts, never writes it.
loopback_name() {
  local n all
  for n in $(hostname) $(awk '!/^#/ && $1 ~ /^127\./ { for (i = 2; i <= NF; i++) print $i }' /etc/hosts); do
    case $n in localhost | localhost.* | *.localhost | ip6-*) continue ;; esac
    all=$(getent ahosts "$n" | awk '{ print $1 }' | sort -u)
    [ -n "$all" ] || continue
    if grep -qv '^127\.' <<<"$all"; then continue; fi
    echo "$n $(head -1 <<<"$all")"
    return 0
  done
  return 1
}
read -r name addr < <(loopback_name) ||
  fail "no host name other than localhost resolves only to 127.x here (the machine's name normally does, through /etc/hosts)"
log "loopback name: $name -> $addr"

apply_policy_crd
test_namespace
# Image lane: the secret-reads Role pair is granted in this namespace (never cluster-wide).
export ATTUNE_LANE_SECRET_NAMESPACES=$ns
for d in dns stolen clear skip; do loaded_deployment "$d" 100m 64Mi; done
token=$(mktemp); echo "flag-token-e2e" >"$token"; at_exit "rm -f $token"
k -n "$ns" create secret generic prom --from-literal=token=secret-token-e2e >/dev/null

fake empty "$addr"; dns_port=$FAKE_PORT; dns_out=$FAKE_OUT
fake unauthorized; auth_port=$FAKE_PORT; auth_out=$FAKE_OUT
source_at() {  # source_at ADDRESS [PROMETHEUS_EXTRA_JSON]: collecting for ever, asked every 10 s
  local extra=${2:-}
  [ -n "$extra" ] || extra='{}'
  jq -cn --arg a "$1" --argjson extra "$extra" '{prometheus: ({address: $a} * $extra), queryStep: "10s", minimumDataPoints: 10000}'
}
auth_lines() { grep -c '^auth ' "$1" || true; }

# 1. The name passes the literal check; what it resolves to does not.
policy dns dns "$(source_at "http://$name:$dns_port")"
start_manager --prometheus-query-timeout=3s
wait_ready dns "False PrometheusUnavailable" 60
log "refused: $(ready_message dns)"
[[ "$(ready_message dns)" == *"every address its host resolves to is refused"*"$addr is a loopback address; loopback is allowed only when the manager runs with --allow-local-metrics-addresses"* ]] \
  || fail "dns message: $(ready_message dns)"
[ "$(auth_lines "$dns_out")" = 0 ] || fail "the manager connected to $name although it resolves to loopback"
stop_manager

# 2. With the local flag: used. The token flag's list is empty, so the
#    manager's token goes nowhere: not to the name, not to a 401 fake.
policy stolen stolen "$(source_at "http://127.0.0.1:$auth_port")"
policy clear clear "$(source_at "http://127.0.0.1:$auth_port" '{"bearerTokenSecret":{"name":"prom","key":"token"}}')"
policy skip skip "$(source_at "https://prom.invalid:9443" '{"tls":{"insecureSkipVerify":true}}')"
start_manager --allow-local-metrics-addresses --allow-secret-reads --prometheus-bearer-token-file="$token" \
  --prometheus-query-timeout=3s
wait_ready dns "False InsufficientData" 60
log "allowed: $(ready_message dns)"
[ "$(auth_lines "$dns_out")" -ge 1 ] || fail "no query reached $name:$dns_port with --allow-local-metrics-addresses"
wait_ready stolen "False PrometheusUnavailable" 60
log "withheld: $(ready_message stolen)"
[[ "$(ready_message stolen)" == *"401"*"the manager's --prometheus-bearer-token-file token is not sent to http://127.0.0.1:$auth_port: it is not in --prometheus-token-addresses"* ]] \
  || fail "stolen message: $(ready_message stolen)"
wait_ready clear "False InvalidConfig" 30
[[ "$(ready_message clear)" == *"bearerTokenSecret would be sent in the clear to http://127.0.0.1:$auth_port"*"--allow-plaintext-prometheus-credentials"* ]] \
  || fail "clear message: $(ready_message clear)"
wait_ready skip "False InvalidConfig" 30
[[ "$(ready_message skip)" == *"tls.insecureSkipVerify is true"*"--allow-prometheus-insecure-tls"* ]] \
  || fail "skip message: $(ready_message skip)"
sleep 12  # another round of queries (queryStep 10s)
if grep '^auth ' "$dns_out" "$auth_out" | grep -v ' none$'; then fail "a credential reached a fake: $(cat "$dns_out" "$auth_out")"; fi
[ "$(auth_lines "$auth_out")" -ge 2 ] || fail "the 401 fake was asked $(auth_lines "$auth_out") times, want 2 rounds"
withheld=$(grep -c "prometheus token withheld origin=http://127.0.0.1:$auth_port" "$MGR_LOG" || true)
[ "$withheld" = 1 ] || fail "the withheld token was logged $withheld times, want once: $(grep withheld "$MGR_LOG")"
stop_manager

# 3. The operator lists the fake and opts in to plaintext and skipped
#    verification: the token goes there, and the Secret's where its policy points.
: >"$auth_out"
start_manager --allow-local-metrics-addresses --allow-secret-reads --prometheus-bearer-token-file="$token" \
  --prometheus-token-addresses="http://127.0.0.1:$auth_port" --allow-plaintext-prometheus-credentials \
  --allow-prometheus-insecure-tls --prometheus-query-timeout=3s
wait_ready clear "False PrometheusUnavailable" 60
wait_ready skip "False PrometheusUnavailable" 60
log "skip, opted in: $(ready_message skip)"
wait_until 30 grep -q '^auth Bearer flag-token-e2e$' "$auth_out" || fail "the listed origin never got the token: $(cat "$auth_out")"
wait_until 30 grep -q '^auth Bearer secret-token-e2e$' "$auth_out" || fail "the Secret's token never arrived: $(cat "$auth_out")"
token_sent() { [[ "$(ready_message stolen)" == *"401"* && "$(ready_message stolen)" != *"not in --prometheus-token-addresses"* ]]; }
wait_until 30 token_sent || fail "stolen still says the token is withheld: $(ready_message stolen)"
log "ok"
