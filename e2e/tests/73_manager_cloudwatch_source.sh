#!/usr/bin/env bash
# The CloudWatch metrics source through attune-manager and the real apiserver
# (docs/recommender.md#cloudwatch), against a loopback fake of CloudWatch's
# GetMetricData and STS (e2e/testproxy/fake_cloudwatch.py, a harness, HTTPS
# with a throwaway CA, reached through --cloudwatch-url and --sts-url) that
# verifies every request's SigV4 signature itself with Python's hmac and
# hashlib, observed with kubectl:
#  - the manager's keys with a wrong secret key: the fake refuses the
#    signature (403 SignatureDoesNotMatch) and Ready=False
#    PrometheusUnavailable names it and the credentials;
#  - the right keys: status.recommendations with the figures the fake's
#    constant series imply per container (Container Insights' millicores in
#    cores, the p95 of a constant is that constant, then x 1.2 / x 1.3 and
#    the confidence factor of 12 points over 11 minutes), the other
#    workload's pod left out; every call signed as the fake verifies, the Go
#    original's SEARCH expression, the answer paged through NextToken to
#    its end, and a ThrottlingException retried: the recommendation still comes;
#  - IRSA: no keys, AWS_ROLE_ARN and AWS_WEB_IDENTITY_TOKEN_FILE, and a
#    policy naming roleArn: STS AssumeRoleWithWebIdentity is called once,
#    unsigned, with the token and the policy's role, its temporary
#    credentials (and their session token) sign GetMetricData, and the
#    recommendation comes; no secret or token in the manager's log or the status.
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/70_manager_lib.bash"
. "$(dirname "$0")/recommend_lib.bash"
require_local "the harness's fake CloudWatch on loopback"
require_manager
apply_policy_crd
test_namespace

dir=$(mktemp -d); at_exit "rm -rf $dir"
harness_tls "$dir" "e2e-73 fake CloudWatch CA"

# The served series, per pod and container: cpu in millicores, memory in bytes, constant.
app_cpu=250 app_mem=104857600 side_cpu=40 side_mem=33554432
access_key=AKIAE2E73$RANDOM secret_key=e2e-73-secret-$RANDOM-$RANDOM
web_token=e2e-73-jwt-$RANDOM.$RANDOM; printf '%s' "$web_token" >"$dir/token"
requests=$dir/requests.jsonl; : >"$requests"
python3 "$REPO_ROOT/e2e/testproxy/fake_cloudwatch.py" --cert "$dir/tls.crt" --key "$dir/tls.key" \
  --region eu-west-1 --namespace "$ns" --cluster e2e-cluster --keys "$access_key:$secret_key" \
  --web-identity-token "$web_token" --log "$requests" --throttle-file "$dir/throttle" \
  --series "web-7c9d-x1 app=$app_cpu:$app_mem,web-7c9d-x1 sidecar=$side_cpu:$side_mem,other-5f6-y2 app=900:999999999,worker-1 app=4000:1" \
  >"$dir/fake.out" 2>&1 &
fake_pid=$!
at_exit "kill $fake_pid 2>/dev/null"
wait_until 10 grep -q '^port ' "$dir/fake.out" || fail "HARNESS: fake_cloudwatch did not start: $(cat "$dir/fake.out")"
port=$(awk '/^port / { print $2 }' "$dir/fake.out")
url=https://127.0.0.1:$port
curl -sS --cacert "$dir/ca.crt" -X POST -H 'X-Amz-Target: GraniteServiceVersion20100801.GetMetricData' -d '{}' "$url/" \
  | grep -q UnrecognizedClientException || fail "HARNESS: the fake does not answer over TLS"
: >"$requests"

two_container_web
loaded_deployment other 100m 64Mi 1 1 900Mi
cloudwatch_source() {  # cloudwatch_source [ROLE_ARN]
  jq -cn --arg r "${1:-}" '{cloudwatch: ({region: "eu-west-1", clusterName: "e2e-cluster"} + (if $r == "" then {} else {roleArn: $r} end)),
    queryStep: "10s", rateWindow: "30s", historyWindow: "1h", minimumDataPoints: 3}'
}
policy cw web "$(cloudwatch_source)"
cw_flags=(--allow-local-metrics-addresses --cloudwatch-url "$url" --sts-url "$url" --cloudwatch-ca-file "$dir/ca.crt")
# The manager's AWS environment is this test's alone.
unset AWS_ACCESS_KEY_ID AWS_SECRET_ACCESS_KEY AWS_SESSION_TOKEN AWS_ROLE_ARN AWS_WEB_IDENTITY_TOKEN_FILE AWS_ROLE_SESSION_NAME
calls() { jq -c "select(.call == \"$1\")" "$requests"; }

# 1. A wrong secret key: the fake refuses the signature, Ready names it.
export AWS_ACCESS_KEY_ID=$access_key AWS_SECRET_ACCESS_KEY=not-the-secret
start_manager "${cw_flags[@]}"
wait_ready cw "False PrometheusUnavailable" 60
log "wrong secret: $(ready_message cw)"
[[ "$(ready_message cw)" == *"Deployment web: cpu query: cloudwatch $url refused the request with 403 SignatureDoesNotMatch: The request signature we calculated does not match"*"(check the AWS credentials)"* ]] \
  || fail "Ready does not name the refused signature: $(ready_message cw)"
calls GetMetricData | jq -s -e --arg k "$access_key" 'length > 0 and all(.[]; .signature == "mismatch" and .access_key == $k and .status == 403)' >/dev/null \
  || fail "the fake did not refuse a mismatched signature: $(tail -3 "$requests")"
has_recommendation cw web && fail "a recommendation from a refused query"
stop_manager

# 2. The right keys, and one throttled call: the recommendation, from the served series.
: >"$requests"
export AWS_SECRET_ACCESS_KEY=$secret_key
touch "$dir/throttle"
start_manager "${cw_flags[@]}"
wait_until 90 has_recommendation cw web || fail "no recommendation: $(policy_json cw | jq -c .status) $(tail -5 "$MGR_LOG")"
wait_ready cw "True Monitoring" 30
rec=$(recommendation cw web)
log "web: $(jq -c '[.containers[] | {name, current, recommended}]' <<<"$rec")"
# Container Insights' millicores in cores; other-5f6-y2 and worker-1 left out (12 points, not more).
expect_constant_series "$rec" $app_cpu $app_mem $side_cpu $side_mem

# What the fake saw: signed calls it verified, the Go original's SEARCH, the pages, the throttle.
calls GetMetricData | jq -s -e 'length > 0 and all(.[]; .signature == "match" and .session_token == false)' >/dev/null \
  || fail "a GetMetricData call was not signed as the fake verifies: $(calls GetMetricData | jq -c 'select(.signature != "match")' | head -2)"
first_cpu=$(calls GetMetricData | jq -c 'select(.status == 200 and (.expression | contains("cpu")))' | head -1)
expect_eq "cpu SEARCH" "$(jq -r .expression <<<"$first_cpu")" \
  "SEARCH('{ContainerInsights,ClusterName,Namespace,PodName,ContainerName} MetricName=\"container_cpu_usage_total\" ClusterName=\"e2e-cluster\" Namespace=\"$ns\"', 'Average', 60)"
expect_eq "period (rateWindow 30s, at least a minute)" "$(jq -r .period <<<"$first_cpu")" 60
expect_eq "window = historyWindow" "$(jq -r '.end - .start' <<<"$first_cpu")" 3600
jq -e '(.end - .t | fabs) < 5' <<<"$first_cpu" >/dev/null || fail "EndTime is not the time of the query: $first_cpu"
pages=$(calls GetMetricData | jq -s '[.[] | select(.status == 200 and (.expression | contains("cpu")))] | .[:4] | map(.next_token)' | jq -c .)
expect_eq "the first cpu answer paged to its end (4 series, one a page)" "$pages" '["","page-1","page-2","page-3"]'
throttled=$(calls GetMetricData | jq -s -c '[.[] | select(.status == 400)] | first')
[ "$throttled" != null ] || fail "the fake never throttled: $(head -3 "$requests")"
retry=$(calls GetMetricData | jq -s -c --argjson n "$(jq .n <<<"$throttled")" '[.[] | select(.n > $n)] | first')
expect_eq "the throttled page is asked again" "$(jq -r .next_token <<<"$retry")" "$(jq -r .next_token <<<"$throttled")"
expect_eq "and answered" "$(jq -r .status <<<"$retry")" 200
log "throttled call $(jq -c '{n, t}' <<<"$throttled"), retried $(jq -c '{n, t, status}' <<<"$retry")"
if grep -q -e "$secret_key" -e not-the-secret "$MGR_LOG"; then fail "a secret key is in the manager's log"; fi
stop_manager

# 3. IRSA: the policy's roleArn assumed with the web identity token through STS.
: >"$requests"
unset AWS_ACCESS_KEY_ID AWS_SECRET_ACCESS_KEY
export AWS_ROLE_ARN=arn:aws:iam::111122223333:role/attune-env AWS_WEB_IDENTITY_TOKEN_FILE=$dir/token
role=arn:aws:iam::111122223333:role/attune-cloudwatch-reader
policy cw-irsa other "$(cloudwatch_source "$role")"
start_manager "${cw_flags[@]}"
wait_until 90 has_recommendation cw-irsa other \
  || fail "no recommendation by IRSA: $(policy_json cw-irsa | jq -c .status.conditions) $(tail -5 "$MGR_LOG")"
log "other: $(recommendation cw-irsa other | jq -c '[.containers[] | {name, recommended}]')"
expect_eq "other cpu rawPercentile" "$(recommendation cw-irsa other | jq -r '.containers[0].explanation.cpu.rawPercentile')" 900m
sts=$(calls AssumeRoleWithWebIdentity | jq -s -c --arg r "$role" '[.[] | select(.role == $r)]')
expect_eq "STS calls for the policy's role" "$(jq -c 'map({token, signed, status})' <<<"$sts")" \
  '[{"token":"match","signed":false,"status":200}]'
temp=$(jq -r '.[0].issued' <<<"$sts")
calls GetMetricData | jq -s -e --arg k "$temp" 'any(.[]; .access_key == $k and .session_token and .signature == "match" and .status == 200)' >/dev/null \
  || fail "no GetMetricData signed with the temporary credentials $temp: $(calls GetMetricData | head -2)"
# The policy without roleArn uses the environment's role, through the same STS.
calls AssumeRoleWithWebIdentity | jq -s -e '.[] | select(.role == "arn:aws:iam::111122223333:role/attune-env" and .status == 200)' >/dev/null \
  || fail "the environment's role was not assumed for the policy without roleArn: $(calls AssumeRoleWithWebIdentity)"
wait_ready cw "True Monitoring" 60
if grep -q -e "$secret_key" -e "$web_token" -e temp-secret -e temp-token "$MGR_LOG"; then fail "a secret or token is in the manager's log"; fi
if policy_json cw | grep -q -e "$secret_key" -e "$web_token" -e temp-secret; then fail "a secret is in the policy's status"; fi
pods_untouched
