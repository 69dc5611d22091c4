#!/usr/bin/env bash
# attune-manager recommends from the real Prometheus (docs/recommender.md): kubesim's
# simulated usage, scraped by the harness's Prometheus, becomes a Recommend
# policy's status.recommendations[] entry whose explanation reads that usage
# (rawPercentile ~ the load, afterOverhead = rawPercentile x 1.2 cpu / x 1.3
# memory), within bounds; Ready=True Monitoring, the workloads counters, the
# RecommendationsReady Event and the recommendation gauges follow. An Observe
# policy gets no recommendation; a policy still collecting says so with its
# progress. No pod is ever patched. Observed with kubectl and /metrics only.
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/70_manager_lib.bash"
. "$(dirname "$0")/recommend_lib.bash"
require_local "the harness's Prometheus"
require_manager
apply_policy_crd
test_namespace

loaded_deployment api 400m 200Mi 2
loaded_deployment obs 100m 50Mi 1
loaded_deployment slow 100m 50Mi 1
policy rec api "$(prometheus_source)"
policy watch obs "$(prometheus_source)" '{"updateStrategy":{"type":"Observe"}}'
policy collect slow "$(prometheus_source '{"minimumDataPoints":10000}')"
start_manager --allow-local-metrics-addresses

# Still collecting: Ready=False InsufficientData with the progress and an ETA.
wait_ready collect "False InsufficientData" 90
msg=$(ready_message collect)
[[ "$msg" =~ ^Collecting\ data:\ [0-9]+\ of\ 10000\ points,\ about\ [0-9hm]+\ remaining$ ]] \
  || fail "InsufficientData message: '$msg'"
log "collect: $msg"

# Recommend: a recommendation once Prometheus has a few points. The working
# set has its points first (rate() needs a window of data), so the cpu side
# joins a refresh or two later; both explain themselves then.
wait_until 150 has_recommendation rec api || fail "no recommendation for api: $(policy_json rec | jq -c .status)"
both_explained() { recommendation rec api | jq -e '.containers[0].explanation | has("cpu") and has("memory")' >/dev/null; }
wait_until 120 both_explained || fail "no cpu explanation for api: $(recommendation rec api)"
# rate() over a series younger than its window divides a partial increase by
# the whole window, so the first cpu points read low (Prometheus extrapolates
# at most half a scrape interval past the first sample). Ten 10 s points put
# several full 30 s windows at the top of the distribution the p95 reads.
enough_points() { recommendation rec api | jq -e '.containers[0].dataPoints >= 10' >/dev/null; }
wait_until 120 enough_points || fail "api never reached 10 data points: $(recommendation rec api)"
wait_ready rec "True Monitoring" 10
rec=$(recommendation rec api)
log "api: $(jq -c '.containers[0] | {current, recommended, confidence, dataPoints}' <<<"$rec")"
expect_eq "kind" "$(jq -r .kind <<<"$rec")" Deployment
expect_eq "stale" "$(jq -r .stale <<<"$rec")" false
app=$(jq -c '.containers[] | select(.name == "app")' <<<"$rec")
[ -n "$app" ] || fail "no container app in $rec"
expect_eq "current cpu" "$(jq -r .current.cpuRequest <<<"$app")" 500m
expect_eq "current memory" "$(jq -r .current.memoryRequest <<<"$app")" 256Mi
# cpu: the p95 of rate() over the simulated 400m (scrape jitter allowed), then x 1.2.
raw=$(millicores "$(jq -r .explanation.cpu.rawPercentile <<<"$app")")
within "$raw" 340 460 || fail "cpu rawPercentile ${raw}m, want about 400m: $(jq -c .explanation.cpu <<<"$app")"
expect_eq "cpu overhead" "$(jq -r .explanation.cpu.overhead <<<"$app")" 20
after=$(millicores "$(jq -r .explanation.cpu.afterOverhead <<<"$app")")
within "$after" $(( raw * 12 / 10 )) $(( raw * 12 / 10 + 1 )) || fail "cpu afterOverhead ${after}m is not ${raw}m x 1.2"
# memory: the working set kubesim reports, exactly, then x 1.3.
expect_eq "memory rawPercentile" "$(jq -r .explanation.memory.rawPercentile <<<"$app")" 200Mi
expect_eq "memory afterOverhead" "$(jq -r .explanation.memory.afterOverhead <<<"$app")" 260Mi
# Within the built-in bounds (1m-4000m), and the change cap (+50% cpu) applied to the final value.
final=$(millicores "$(jq -r .recommended.cpuRequest <<<"$app")")
within "$final" 1 750 || fail "cpu final ${final}m outside [1m, 500m x 1.5]"
expect_eq "cpu final = explanation final" "$(jq -r .explanation.cpu.final <<<"$app")" "$(jq -r .recommended.cpuRequest <<<"$app")"
expect_eq "cpu bounds" "$(jq -c ".explanation.cpu.bounds | {min, max}" <<<"$app")" '{"min":"1m","max":"4"}'
jq -e '.confidence >= 0 and .confidence <= 1 and .dataPoints >= 6' <<<"$app" >/dev/null || fail "confidence/dataPoints: $app"

st=$(policy_json rec | jq -c .status.workloads)
expect_eq "rec workloads" "$(jq -c '{discovered, withRecommendations, resized, pending, dataPointsRequired}' <<<"$st")" \
  '{"discovered":1,"withRecommendations":1,"resized":0,"pending":1,"dataPointsRequired":3}'
wait_until 30 has_event rec RecommendationsReady || fail "no RecommendationsReady Event: $(event_reasons rec)"
# The printer columns read the counters.
k -n "$ns" get ap rec >&2

# The gauges: the recommended request in cores, and the confidence.
g=$(metric_value "attune_recommendation_cpu_cores{container=\"app\",namespace=\"$ns\",workload=\"api\"}")
[ -n "$g" ] || fail "no attune_recommendation_cpu_cores for api"
within "$g" "$(awk -v m="$final" 'BEGIN { print m / 1000 - 0.0005 }')" "$(awk -v m="$final" 'BEGIN { print m / 1000 + 0.0005 }')" \
  || fail "attune_recommendation_cpu_cores $g, want ${final}m"
[ -n "$(metric_value "attune_confidence{container=\"app\",namespace=\"$ns\",workload=\"api\"}")" ] || fail "no attune_confidence"
[ "$(metric_sum attune_prometheus_query_duration_seconds_count 'query_type="cpu"')" -ge 1 ] || fail "no query durations"

# Observe: watched, no recommendation, no gauge.
wait_ready watch "True Monitoring" 30
[[ "$(ready_message watch)" == *"Observe computes no recommendations"* ]] || fail "Observe message: $(ready_message watch)"
expect_eq "Observe recommendations" "$(policy_json watch | jq -c '.status.recommendations // []')" '[]'
[ -z "$(metric_value "attune_recommendation_cpu_cores{container=\"app\",namespace=\"$ns\",workload=\"obs\"}")" ] \
  || fail "an Observe workload has a recommendation gauge"

# Never patched, in either mode.
pods_untouched
