#!/usr/bin/env bash
# Harness check, not yet a proof of Attune's behaviour (the manager does not
# run the recommender yet): the core's PromQL, sent by
# controller::prometheus_client to the harness's real Prometheus, returns one
# series per container for a Deployment with known simulated usage, with the
# values its sim.attune.io/load says. The workload is named "web.v2": a
# decoy Deployment "webxv2" with other usage would also match if the "." were
# not regex-quoted. A guardrail whose variable carries a PromQL injection
# attempt stays a string literal, and force_namespace's output parses.
#   e2e/run.sh 62_    (DRIVER=path/to/promql_driver to use another build)
. "$(dirname "$0")/../lib.sh"
require_local "the harness's Prometheus"
DRIVER=${DRIVER:-$REPO_ROOT/build/test/controller/promql_driver}
require_built "$DRIVER" promql_driver
test_namespace

deployment() {  # NAME APP_CPU APP_MEMORY
  k -n "$ns" apply -f - >/dev/null <<YAML
apiVersion: apps/v1
kind: Deployment
metadata: {name: $1}
spec:
  replicas: 2
  selector: {matchLabels: {app: $1}}
  template:
    metadata:
      labels: {app: $1}
      annotations:
        sim.attune.io/load: '{"app": {"cpu": "$2", "memory": "$3"}, "side": {"cpu": "50m", "memory": "32Mi"}}'
    spec:
      containers:
      - {name: app, image: attune.local/pause:1, resources: {requests: {cpu: 500m, memory: 256Mi}}}
      - {name: side, image: attune.local/pause:1, resources: {requests: {cpu: 100m, memory: 64Mi}}}
YAML
}
deployment web.v2 250m 100Mi
deployment webxv2 900m 300Mi
running() { [ "$(k -n "$ns" get pods -o json | jq '[.items[] | select(.status.phase == "Running")] | length')" = 4 ]; }
wait_until 90 running || fail "the 4 pods never ran"

out=$(mktemp)
at_exit "rm -f $out"
usage() { "$DRIVER" usage "$PROMETHEUS_URL" "$ns" Deployment web.v2 --window 60 --step 5 --rate-window 30 "$@"; }
# rate() over [30s] reads low until the series is that old, so wait until the
# whole 60 s window is past that ramp: its lowest cpu point is ~0.25 too.
settled() {
  usage >"$out" 2>/dev/null || return 1
  jq -e '(.cpu.app.last // 0) >= 0.2 and (.cpu.app.last // 0) <= 0.3 and (.memory.app.samples // 0) >= 3
         and ([.recommendation.containers[] | select(.name == "app") | .explanation.cpu.rawPercentile] | length) == 1' "$out" >/dev/null
}
wait_until 150 settled || fail "no settled cpu rate for web.v2: $(cat "$out")"
ramped() {
  usage >"$out" 2>/dev/null || return 1
  raw=$(jq -r '.recommendation.containers[] | select(.name == "app") | .explanation.cpu.rawPercentile' "$out")
  case "$raw" in *m) raw_m=${raw%m} ;; *) raw_m=$((raw * 1000)) ;; esac
  [ "$raw_m" -ge 240 ] && [ "$raw_m" -le 290 ]
}
log "cpu: $(jq -r .cpu_query "$out")"

# One series per container (max by (container)), nothing for container="" or "POD".
expect_eq "cpu containers" "$(jq -c '.cpu | keys' "$out")" '["app","side"]'
expect_eq "memory containers" "$(jq -c '.memory | keys' "$out")" '["app","side"]'
expect_eq "series per container" "$(jq -c '[.cpu[].series, .memory[].series]' "$out")" '[1,1,1,1]'
# The values the load annotation says, and none of the decoy's (900m, 300Mi).
jq -e '.cpu.side.last >= 0.035 and .cpu.side.last <= 0.065' "$out" >/dev/null || fail "side cpu not ~0.05: $(jq .cpu.side "$out")"
expect_eq "app working set" "$(jq .memory.app.last "$out")" 104857600
expect_eq "side working set" "$(jq .memory.side.last "$out")" 33554432
# The recommender ran on what came back: two containers, with a cpu
# explanation whose raw percentile is the simulated 250m (give or take
# scrape jitter) once the window holds no ramp-up point.
expect_eq "recommended containers" "$(jq '.recommendation.containers | length' "$out")" 2
wait_until 90 ramped || fail "app cpu rawPercentile ${raw:-none}, want about 250m: $(jq -c .recommendation "$out")"
log "app: $(jq -c '.recommendation.containers[] | select(.name == "app") | {recommended, confidence, dataPoints}' "$out")"

# PodAggregation None keeps every pod's series: two per container.
usage --aggregation None >"$out" || fail "None query failed: $(cat "$out")"
expect_eq "series per container under None" "$(jq -c '[.cpu[].series, .memory[].series]' "$out")" '[2,2,2,2]'

# Live pod names instead of the owner pattern (the large-workload path).
pods=$(k -n "$ns" get pods -l app=web.v2 -o jsonpath='{.items[*].metadata.name}' | tr ' ' ',')
"$DRIVER" usage "$PROMETHEUS_URL" "$ns" Deployment web.v2 --window 60 --step 10 --rate-window 30 --pods "$pods" >"$out" \
  || fail "names query failed: $(cat "$out")"
expect_eq "app working set by names" "$(jq .memory.app.last "$out")" 104857600

# Guardrails: an injection attempt in a variable stays inside its literal
# (an injected "or vector(1)" would give one series), and the forced query parses.
g=$("$DRIVER" guardrail "$PROMETHEUS_URL" "$ns" web.v2 'x"} or vector(1) #' \
     'container_memory_working_set_bytes{pod="{{ .PodName }}"}') || fail "guardrail query failed: $g"
expect_eq "injected guardrail series" "$(jq .series <<<"$g")" 0
g=$("$DRIVER" guardrail "$PROMETHEUS_URL" "$ns" web.v2 web \
     'sum by (container) (rate(container_cpu_usage_seconds_total{container="app"}[30s])) > bool 0') \
  || fail "forced guardrail failed: $g"
expect_eq "forced guardrail series" "$(jq .series <<<"$g")" 1
log "forced: $(jq -r .query <<<"$g")"
