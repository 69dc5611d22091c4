#!/usr/bin/env bash
# The Datadog metrics source through attune-manager and the real apiserver
# (docs/recommender.md#datadog), against a loopback fake of Datadog's v1
# query API (e2e/testproxy/fake_datadog.py, a harness, HTTPS with a
# throwaway CA, reached through --datadog-url), observed with kubectl:
#  - a Recommend policy with metricsSource.datadog and its keys in a Secret
#    made by kubectl gets status.recommendations with the figures the fake's
#    constant series imply, per container (kube_container_name): the p95 of
#    a constant is that constant, in cores from nanocores, then x 1.2 (cpu)
#    and x 1.3 (memory), then the confidence factor of 12 points over 11
#    minutes (docs/recommender.md, the chain); Ready=True Monitoring;
#  - the fake saw both keys (DD-API-KEY, DD-APPLICATION-KEY), the Go
#    original's query text for each resource, a from/to window of
#    historyWindow ending now; no key in the manager's log or the status;
#  - a 429 with X-RateLimit-Reset: 25 is honoured: no request with that key
#    reaches Datadog for 25 s (no retry storm), Ready's message says why
#    meanwhile, the recommendation stays, and the next query succeeds;
#  - a wrong API key (the fake answers 403): a policy that never had a
#    recommendation is Ready=False PrometheusUnavailable with a message
#    naming the 403 and the keys; a key rotated to a wrong one under a policy
#    that has its recommendation keeps it, marked stale, and Ready's message
#    names the 403 (the rule of every source: docs/api.md, conditions).
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/70_manager_lib.bash"
. "$(dirname "$0")/recommend_lib.bash"
require_local "the harness's fake Datadog on loopback"
require_manager
apply_policy_crd
test_namespace
# Image lane: the secret-reads Role pair is granted in this namespace (never cluster-wide).
export ATTUNE_LANE_SECRET_NAMESPACES=$ns

dir=$(mktemp -d); at_exit "rm -rf $dir"
harness_tls "$dir" "e2e-73 fake Datadog CA"

# The served samples, per container: cpu in nanocores, memory in bytes, constant.
app_cpu=200000000 app_mem=104857600 side_cpu=50000000 side_mem=33554432
api_key=e2e-73-api-key-$RANDOM app_key=e2e-73-app-key-$RANDOM
requests=$dir/requests.jsonl; : >"$requests"
python3 "$REPO_ROOT/e2e/testproxy/fake_datadog.py" --cert "$dir/tls.crt" --key "$dir/tls.key" \
  --api-key "$api_key" --app-key "$app_key" --log "$requests" --rate-limit-file "$dir/rate-limit" --reset 25 \
  --series "app=$app_cpu:$app_mem,sidecar=$side_cpu:$side_mem" >"$dir/fake.out" 2>&1 &
fake_pid=$!
at_exit "kill $fake_pid 2>/dev/null"
wait_until 10 grep -q '^port ' "$dir/fake.out" || fail "HARNESS: fake_datadog did not start: $(cat "$dir/fake.out")"
port=$(awk '/^port / { print $2 }' "$dir/fake.out")
curl -fsS --cacert "$dir/ca.crt" -H "DD-API-KEY: $api_key" -H "DD-APPLICATION-KEY: $app_key" \
  "https://127.0.0.1:$port/api/v1/query?from=0&to=60&query=probe" >/dev/null || fail "HARNESS: the fake does not answer over TLS"
: >"$requests"

k -n "$ns" create secret generic dd-keys --from-literal=api-key="$api_key" --from-literal=app-key="$app_key" >/dev/null
k -n "$ns" create secret generic dd-wrong --from-literal=api-key=not-the-key --from-literal=app-key="$app_key" >/dev/null
loaded_deployment other 100m 64Mi
two_container_web
datadog_source() {  # datadog_source SECRET
  jq -cn --arg s "$1" '{datadog: {site: "datadoghq.com", apiKeySecretRef: {name: $s, key: "api-key"}},
    queryStep: "10s", rateWindow: "30s", historyWindow: "1h", minimumDataPoints: 3}'
}
policy dd web "$(datadog_source dd-keys)"
policy dd-bad other "$(datadog_source dd-wrong)"
start_manager --allow-local-metrics-addresses --allow-secret-reads \
  --datadog-url "https://127.0.0.1:$port" --datadog-ca-file "$dir/ca.crt"

# 1. The recommendation, from the served samples.
wait_until 90 has_recommendation dd web || fail "no recommendation: $(policy_json dd | jq -c .status) $(tail -5 "$MGR_LOG")"
wait_ready dd "True Monitoring" 30
rec=$(recommendation dd web)
log "web: $(jq -c '[.containers[] | {name, current, recommended}]' <<<"$rec")"
# The served nanocores in millicores.
expect_constant_series "$rec" $((app_cpu / 1000000)) $app_mem $((side_cpu / 1000000)) $side_mem
[ "$(metric_sum attune_prometheus_query_duration_seconds_count 'query_type="cpu"')" -ge 1 ] || fail "no query duration counted"

# 2. What the fake saw: both keys, the queries, the window.
first_cpu=$(jq -c 'select(.status == 200 and (.params.query | contains("cpu")))' "$requests" | head -1)
first_mem=$(jq -c 'select(.status == 200 and (.params.query | contains("memory")))' "$requests" | head -1)
[ -n "$first_cpu" ] && [ -n "$first_mem" ] || fail "the fake saw no cpu and memory query: $(cat "$requests")"
expect_eq "path" "$(jq -r .path <<<"$first_cpu")" /api/v1/query
expect_eq "cpu query" "$(jq -r .params.query <<<"$first_cpu")" \
  "avg:kubernetes.cpu.usage.total{kube_namespace:$ns,pod_name:web-*} by {kube_container_name}.rollup(avg,60)"
expect_eq "memory query" "$(jq -r .params.query <<<"$first_mem")" \
  "avg:kubernetes.memory.working_set{kube_namespace:$ns,pod_name:web-*} by {kube_container_name}.rollup(avg,60)"
for r in "$first_cpu" "$first_mem"; do
  expect_eq "keys" "$(jq -c .keys <<<"$r")" '{"dd-api-key":"match","dd-application-key":"match"}'
  expect_eq "window = historyWindow" "$(jq -r '(.params.to | tonumber) - (.params.from | tonumber)' <<<"$r")" 3600
  jq -e '((.params.to | tonumber) - .t | fabs) < 5' <<<"$r" >/dev/null || fail "'to' is not the time of the query: $r"
done
if grep -q -e "$api_key" -e "$app_key" "$requests"; then fail "HARNESS: the fake logged a key value"; fi
if grep -q -e "$api_key" -e "$app_key" "$MGR_LOG"; then fail "a key is in the manager's log"; fi
if policy_json dd | grep -q -e "$api_key" -e "$app_key"; then fail "a key is in the policy's status"; fi

# 3. A wrong API key and no recommendation yet: Ready=False with the 403.
wait_ready dd-bad "False PrometheusUnavailable" 60
log "wrong key: $(ready_message dd-bad)"
[[ "$(ready_message dd-bad)" == *"Deployment other: cpu query: datadog https://127.0.0.1:$port refused the query with 403: Forbidden (check the API and application keys)"* ]] \
  || fail "403 message: $(ready_message dd-bad)"
jq -s -e 'any(.[]; .status == 403 and .keys["dd-api-key"] == "mismatch")' "$requests" >/dev/null \
  || fail "the fake never saw the wrong key: $(tail -3 "$requests")"
has_recommendation dd-bad other && fail "a recommendation from a refused query"

# 4. A 429 with X-RateLimit-Reset: 25: nothing is sent with that key for 25 s, then the next query goes.
before=$(jq -c '[.containers[] | {name, recommended}]' <<<"$rec")
touch "$dir/rate-limit"
good() { jq -c 'select(.keys["dd-api-key"] == "match")' "$requests"; }
limited() { good | jq -s -e 'any(.[]; .status == 429)' >/dev/null; }
wait_until 90 limited || fail "no query after the 429 trigger: $(tail -3 "$requests")"
t429=$(good | jq -r 'select(.status == 429) | .t' | head -1)
n429=$(good | jq -r 'select(.status == 429) | .n' | head -1)
says_limited() { [[ "$(ready_message dd)" == *"rate-limited the query (429): Rate limit exceeded"* ]]; }
wait_until 20 says_limited || fail "Ready does not say it is rate-limited: $(ready dd) $(ready_message dd)"
log "held back: $(ready dd) $(ready_message dd)"
has_recommendation dd web || fail "the recommendation went during the 429"
next_request() { good | jq -s -e --argjson n "$n429" 'any(.[]; .n > $n)' >/dev/null; }
wait_until 90 next_request || fail "no query after the 429 within 90 s"
t_next=$(good | jq -r --argjson n "$n429" 'select(.n > $n) | .t' | head -1)
gap=$(awk -v a="$t429" -v b="$t_next" 'BEGIN { printf "%.1f", b - a }')
log "next request ${gap} s after the 429"
awk -v g="$gap" 'BEGIN { exit !(g >= 25) }' || fail "a request came ${gap} s after the 429, before its 25 s reset"
wait_ready dd "True Monitoring" 60

# 5. The key rotated to a wrong one under a policy with its recommendation:
#    the 403 in Ready's message, the recommendation kept (stale).
k -n "$ns" create secret generic dd-keys --from-literal=api-key=not-the-key --from-literal=app-key="$app_key" \
  --dry-run=client -o yaml | k -n "$ns" apply -f - >/dev/null 2>&1
says_403() { [[ "$(ready_message dd)" == *"Deployment web: cpu query: datadog https://127.0.0.1:$port refused the query with 403: Forbidden (check the API and application keys)"* ]]; }
# The manager re-reads a Secret within a minute, and asks again within another.
wait_until 180 says_403 || fail "Ready never named the 403: $(ready dd) $(ready_message dd)"
log "rotated to a wrong key: $(ready dd) $(ready_message dd)"
expect_eq "Ready with a recommendation kept" "$(ready dd)" "True Monitoring"
has_recommendation dd web || fail "the recommendation was lost after the 403"
expect_eq "recommendation kept" "$(recommendation dd web | jq -c '[.containers[] | {name, recommended}]')" "$before"
expect_eq "stale" "$(recommendation dd web | jq -r .stale)" true
if grep -q -e "$api_key" -e "$app_key" -e not-the-key "$MGR_LOG"; then fail "a key is in the manager's log"; fi
pods_untouched
