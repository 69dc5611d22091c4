#!/usr/bin/env bash
# The Attune API on the real apiserver: the three CRDs of deploy/kustomize
# become Established (their CEL rules compile and fit the cost budget of this
# minor); bad input is refused with the rule's message, which names the field;
# the full example policy and both defaults kinds are accepted, and the CRD
# defaults show up; unknown fields are pruned; only AttunePolicy has a status
# subresource and its status schema keeps what docs/api.md#attunepolicy-status lists; the
# kustomize base and the secret-reads component render.
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/70_manager_lib.bash"
apply_policy_crd
test_namespace

# ------------------------------------------------------------ the kinds ---
for r in attunepolicies attunedefaults attunenamespacedefaults; do
  [ "$(k get crd "$r.attune.io" -o jsonpath='{.spec.names.categories[0]}')" = attune ] || fail "$r is not in category attune"
done
expect_eq "AttunePolicy scope/short name" "$(k get crd attunepolicies.attune.io -o jsonpath='{.spec.scope}/{.spec.names.shortNames[0]}')" "Namespaced/ap"
expect_eq "AttuneDefaults scope/short name" "$(k get crd attunedefaults.attune.io -o jsonpath='{.spec.scope}/{.spec.names.shortNames[0]}')" "Cluster/ad"
expect_eq "AttuneNamespaceDefaults scope/short name" \
  "$(k get crd attunenamespacedefaults.attune.io -o jsonpath='{.spec.scope}/{.spec.names.shortNames[0]}')" "Namespaced/and"

# ------------------------------------------------------------ bad input ---
# refused NAME SPEC WANT: a policy with SPEC (YAML flow) must be refused, and
# the apiserver's answer must contain WANT. (A CEL refusal shows the value on
# 1.33+ and only its type, "string", on 1.32; WANT never includes it.)
refused() {
  local out
  if out=$(printf 'apiVersion: attune.io/v1alpha1\nkind: AttunePolicy\nmetadata: {name: bad}\nspec: %s\n' "$2" |
           k -n "$ns" apply --dry-run=server -f - 2>&1); then
    fail "$1: accepted, want a refusal containing: $3"
  fi
  grep -qF -- "$3" <<<"$out" || fail "$1: refused with '$out', want: $3"
}
ok='targetRef: {kind: Deployment, name: web}, cpu: {}, memory: {}'
refused "non-numeric overhead" "{targetRef: {kind: Deployment, name: web}, cpu: {overhead: lots}, memory: {}}" \
  'spec.cpu.overhead must be a number of percent between 0 and 900'
refused "overhead over 900" "{targetRef: {kind: Deployment, name: web}, cpu: {}, memory: {overhead: '901'}}" \
  'spec.memory.overhead must be a number of percent between 0 and 900'
refused "bad quantity" "{targetRef: {kind: Deployment, name: web}, cpu: {maxAllowed: 2 cores}, memory: {}}" \
  'spec.cpu.maxAllowed must be a quantity such as 250m, 2 or 512Mi'
refused "minAllowed > maxAllowed" "{targetRef: {kind: Deployment, name: web}, cpu: {}, memory: {minAllowed: 2Gi, maxAllowed: 512Mi}}" \
  'spec.memory.minAllowed must be less than or equal to maxAllowed'
refused "minAllowed > maxAllowed (int and string)" "{targetRef: {kind: Deployment, name: web}, cpu: {minAllowed: 3, maxAllowed: 2500m}, memory: {}}" \
  'spec.cpu.minAllowed must be less than or equal to maxAllowed'
refused "maxAllowed over 256 cores" "{targetRef: {kind: Deployment, name: web}, cpu: {maxAllowed: '257'}, memory: {}}" \
  'spec.cpu.maxAllowed must be at most 256 cores'
refused "unknown target kind" "{targetRef: {kind: Pod, name: web}, cpu: {}, memory: {}}" \
  'spec.targetRef.kind: Unsupported value: "Pod"'
refused "no target" "{cpu: {}, memory: {}}" 'spec.targetRef: Required value'
refused "no spec" "" 'spec: Required value'
refused "name and selector" "{targetRef: {kind: Deployment, name: web, selector: {matchLabels: {tier: web}}}, cpu: {}, memory: {}}" \
  'spec.targetRef must set exactly one of name or selector'
refused "neither name nor selector" "{targetRef: {kind: Deployment}, cpu: {}, memory: {}}" \
  'spec.targetRef must set exactly one of name or selector'
refused "empty selector" "{targetRef: {kind: Deployment, selector: {}}, cpu: {}, memory: {}}" \
  'spec.targetRef.selector must include at least one matchLabels or matchExpressions entry'
refused "reserved query parameter" "{$ok, metricsSource: {prometheus: {address: 'http://prom:9090', queryParameters: {Step: 30s}}}}" \
  'spec.metricsSource.prometheus.queryParameters must not set query, time, start, end, step or timeout'
refused "bad schedule window" "{$ok, updateStrategy: {schedule: {windows: [{start: '24:00', end: '02:00'}]}}}" \
  'spec.updateStrategy.schedule.windows[].start must be a time HH:MM between 00:00 and 23:59'
refused "burstSensitivity > 1" "{targetRef: {kind: Deployment, name: web}, cpu: {burstSensitivity: '1.5'}, memory: {}}" \
  'spec.cpu.burstSensitivity must be a number between 0 and 1.0'
refused "weight 0" "{$ok, weight: 0}" 'spec.weight: Invalid value: 0: spec.weight in body should be greater than or equal to 1'
refused "historyWindow under 1h" "{$ok, metricsSource: {historyWindow: 30m}}" 'spec.metricsSource.historyWindow must be between 1h and 720h'
refused "not a duration" "{$ok, metricsSource: {queryStep: 5 minutes}}" 'spec.metricsSource.queryStep must be a duration such as 90s, 5m or 1h30m'
refused "rateWindow over historyWindow" "{$ok, metricsSource: {historyWindow: 2h, rateWindow: 3h}}" \
  'spec.metricsSource.rateWindow must not exceed historyWindow'
refused "two sources" "{$ok, metricsSource: {vpa: {name: v}, manual: {containers: [{name: app}]}}}" \
  'spec.metricsSource may set at most one of prometheus, datadog, cloudwatch, vpa or manual'
refused "bearer token in another namespace" "{$ok, metricsSource: {prometheus: {address: 'http://p', bearerTokenSecret: {name: other/tok, key: t}}}}" \
  "spec.metricsSource.prometheus.bearerTokenSecret.name must not contain '/'"
refused "cooldown under 1m" "{$ok, updateStrategy: {cooldown: 30s}}" 'spec.updateStrategy.cooldown must be 0 or at least 1m'
refused "canary without its block" "{$ok, updateStrategy: {type: Canary}}" 'spec.updateStrategy.canary or spec.lifecycle is required when type is Canary'
# spec.lifecycle steps stand in for the canary block.
printf 'apiVersion: attune.io/v1alpha1\nkind: AttunePolicy\nmetadata: {name: good}\nspec: %s\n' \
  "{$ok, updateStrategy: {type: Canary}, lifecycle: {steps: [{percent: 10, pause: 1m}, {percent: 100}]}}" |
  k -n "$ns" apply --dry-run=server -f - >/dev/null 2>&1 || fail "a Canary policy with spec.lifecycle steps was refused"
refused "startupBoost too long" "{targetRef: {kind: Deployment, name: web}, cpu: {startupBoost: {multiplier: '2', duration: 2h}}, memory: {}}" \
  'spec.cpu.startupBoost.duration must be between 10s and 1h'
refused "startupBoost multiplier 1" "{targetRef: {kind: Deployment, name: web}, cpu: {startupBoost: {multiplier: '1', duration: 1m}}, memory: {}}" \
  'spec.cpu.startupBoost.multiplier must be a number greater than 1 and at most 10'
refused "negative budget" "{$ok, updateStrategy: {maxTotalMemoryIncrease: '-1Gi'}}" 'spec.updateStrategy.maxTotalMemoryIncrease must not be negative'
refused "duplicate guardrails" "{$ok, updateStrategy: {sloGuardrails: [{name: a, query: q, threshold: '1'}, {name: a, query: q, threshold: '2'}]}}" \
  'spec.updateStrategy.sloGuardrails names must be unique'
refused "threshold not a number" "{$ok, updateStrategy: {sloGuardrails: [{name: a, query: q, threshold: high}]}}" \
  'spec.updateStrategy.sloGuardrails[].threshold must be a finite number'
refused "bad recording metric" "{$ok, metricsSource: {cpuRecordingMetric: 'up{job=\"x\"}'}}" \
  'spec.metricsSource.cpuRecordingMetric must be a metric name'
refused "bad time zone" "{$ok, updateStrategy: {schedule: {timezone: 'UTC +2'}}}" \
  'spec.updateStrategy.schedule.timezone must be an IANA time zone'
refused "pull request without a repository" "{$ok, updateStrategy: {export: {pullRequest: {enabled: true, tokenSecretRef: {name: t, key: k}}}}}" \
  'spec.updateStrategy.export.pullRequest.repository is required when pullRequest.enabled is true'
refused "a field containerPolicies cannot override" "{$ok, containerPolicies: [{containerName: app, cpu: {startupBoost: {multiplier: '2', duration: 1m}}}]}" \
  'spec.containerPolicies[].cpu may set only percentile, overhead, minAllowed, maxAllowed, controlledValues, burstSensitivity, allowDecrease and the max*Percent caps'
refused "two wildcard container policies" "{$ok, containerPolicies: [{containerName: '*'}, {containerName: '*'}]}" \
  'spec.containerPolicies may hold at most one "*" entry'
# Inside lists a quantity is checked by its pattern (the CEL cost estimate of 1.32 is too high there).
refused "manual quantity" "{$ok, metricsSource: {manual: {containers: [{name: app, resources: {requests: {cpu: lots}}}]}}}" \
  'spec.metricsSource.manual.containers[0].resources.requests.cpu: Invalid value: "lots": spec.metricsSource.manual.containers[0].resources.requests.cpu in body should match'
refused "container policy quantity" "{$ok, containerPolicies: [{containerName: app, cpu: {maxAllowed: 2x}}]}" \
  'spec.containerPolicies[0].cpu.maxAllowed: Invalid value: "2x"'
log "every bad policy was refused with its rule's message"

# The defaults kinds share the rules (each message names its own field).
out=$(printf 'apiVersion: attune.io/v1alpha1\nkind: AttuneNamespaceDefaults\nmetadata: {name: bad}\nspec: {cpu: {overhead: x}, costPricing: {cpuPerCoreHour: "0"}}\n' |
      k -n "$ns" apply --dry-run=server -f - 2>&1) && fail "a bad AttuneNamespaceDefaults was accepted"
grep -qF 'spec.cpu.overhead must be a number of percent between 0 and 900' <<<"$out" || fail "AttuneNamespaceDefaults: $out"
grep -qF 'spec.costPricing.cpuPerCoreHour must be a number greater than 0' <<<"$out" || fail "AttuneNamespaceDefaults: $out"

# ------------------------------------------------ good input and defaults ---
k -n "$ns" apply -f "$REPO_ROOT/deploy/examples/attunepolicy-full.yaml" >/dev/null || fail "the full example policy was refused"
jp() { k -n "$ns" get ap "$1" -o jsonpath="$2"; }
expect_eq "full example: weight (CRD default)" "$(jp web-full '{.spec.weight}')" 100
expect_eq "full example: maxConcurrentResizes (CRD default)" "$(jp web-full '{.spec.updateStrategy.maxConcurrentResizes}')" 1
expect_eq "full example: schedule timezone (CRD default)" "$(jp web-full '{.spec.updateStrategy.schedule.timezone}')" UTC
expect_eq "full example: guardrail comparison (CRD default)" "$(jp web-full '{.spec.updateStrategy.sloGuardrails[0].comparison}')" above
expect_eq "full example: a field kept" "$(jp web-full '{.spec.cpu.startupBoost.duration}')" 90s
expect_eq "full example: CA secret kept" "$(jp web-full '{.spec.metricsSource.prometheus.tls.caSecret.name}')" prometheus-ca

k -n "$ns" apply -f - >/dev/null <<'YAML' || fail "the minimal, VPA, manual and Datadog policies were refused"
apiVersion: attune.io/v1alpha1
kind: AttunePolicy
metadata: {name: minimal}
spec:
  targetRef: {kind: CronJob, name: nightly}
  cpu: {}
  memory: {}
---
apiVersion: attune.io/v1alpha1
kind: AttunePolicy
metadata: {name: from-vpa}
spec:
  targetRef: {kind: StatefulSet, selector: {matchLabels: {app: db}}}
  metricsSource: {vpa: {name: db, selection: UpperBound}}
  cpu: {minAllowed: 1, maxAllowed: 2}
  memory: {}
  weight: 1000
---
apiVersion: attune.io/v1alpha1
kind: AttunePolicy
metadata: {name: manual}
spec:
  targetRef: {kind: Job, name: migrate}
  metricsSource:
    manual:
      containers: [{name: app, resources: {requests: {cpu: 250m}, limits: {memory: 1Gi}}}]
  cpu: {}
  memory: {}
---
apiVersion: attune.io/v1alpha1
kind: AttunePolicy
metadata: {name: datadog}
spec:
  targetRef: {kind: DaemonSet, name: agent}
  metricsSource: {datadog: {apiKeySecretRef: {name: dd, key: api-key}}}
  cpu: {}
  memory: {}
YAML
expect_eq "minimal policy: weight (CRD default)" "$(jp minimal '{.spec.weight}')" 100
expect_eq "minimal policy: no updateStrategy invented" "$(jp minimal '{.spec.updateStrategy}')" ""
expect_eq "datadog site (CRD default)" "$(jp datadog '{.spec.metricsSource.datadog.site}')" datadoghq.com
expect_eq "vpa selection kept" "$(jp from-vpa '{.spec.metricsSource.vpa.selection}')" UpperBound
expect_eq "manual overlay kept" "$(jp manual '{.spec.metricsSource.manual.containers[0].resources.limits.memory}')" 1Gi

k apply -f "$REPO_ROOT/deploy/examples/defaults.yaml" -n "$ns" >/dev/null || fail "the defaults examples were refused"
at_exit "k delete attunedefaults cluster-defaults --ignore-not-found >/dev/null"
expect_eq "AttuneDefaults kept" "$(k get ad cluster-defaults -o jsonpath='{.spec.metricsSource.prometheus.address}')" \
  "http://prometheus.monitoring.svc:9090"
expect_eq "AttuneDefaults: schedule timezone (CRD default)" "$(k get ad cluster-defaults -o jsonpath='{.spec.updateStrategy.schedule.timezone}')" UTC
expect_eq "AttuneDefaults: maxConcurrentResizes (CRD default)" "$(k get ad cluster-defaults -o jsonpath='{.spec.updateStrategy.maxConcurrentResizes}')" 1
expect_eq "AttuneNamespaceDefaults kept" "$(k -n "$ns" get and team-defaults -o jsonpath='{.spec.memory.maxAllowed}')" 2Gi

# Printer columns.
header=$(k -n "$ns" get ap -o wide | awk "NR == 1")
for c in NAME TYPE WORKLOADS RECS RESIZED READY AGE "CPU SAVED" "MEM SAVED"; do
  grep -q "$c" <<<"$header" || fail "kubectl get ap -o wide lacks column $c: $header"
done
grep -q "PROMETHEUS" <<<"$(k get ad | awk "NR == 1")" || fail "kubectl get ad lacks the Prometheus column"
expect_eq "kubectl get ap web-full TYPE" "$(k -n "$ns" get ap web-full --no-headers | awk '{print $2}')" Canary
[ "$(k get attune -A --no-headers 2>/dev/null | wc -l)" -ge 7 ] || fail "category attune does not list the objects"

# Unknown fields are pruned (no preserve-unknown-fields).
printf 'apiVersion: attune.io/v1alpha1\nkind: AttunePolicy\nmetadata: {name: pruned}\nspec: {%s, selector: {matchLabels: {a: b}}, cpu: {bogus: 1}}\n' "$ok" |
  k -n "$ns" apply --validate=false -f - >/dev/null 2>&1 || fail "a policy with unknown fields was refused"
expect_eq "unknown spec.selector pruned" "$(jp pruned '{.spec.selector}')" ""
expect_eq "unknown spec.cpu.bogus pruned" "$(jp pruned '{.spec.cpu}')" "{}"

# --------------------------------------------------------------- status ---
k -n "$ns" patch ap minimal --subresource=status --type=merge -p '{"status":{
  "observedGeneration": 1,
  "idleWorkloads": [{"workload":"nightly","kind":"Deployment","reason":"WorkloadReplicasZero"}],
  "conditions": [{"type":"Ready","status":"False","reason":"InsufficientData","message":"Collecting data: 3 of 48 points","lastTransitionTime":"2026-01-01T00:00:00Z","observedGeneration":1}],
  "workloads": {"discovered":1,"withRecommendations":1,"resized":0,"pending":0,"dataPointsCollected":3,"dataPointsRequired":48},
  "recommendations": [{"workload":"nightly","kind":"CronJob","lastDataTime":"2026-01-01T00:00:00Z","stale":false,"containers":[{
    "name":"app","confidence":0.4,"dataPoints":3,"lastUpdated":"2026-01-01T00:00:00Z",
    "current":{"cpuRequest":"500m","cpuLimit":"0","memoryRequest":"256Mi","memoryLimit":"0"},
    "recommended":{"cpuRequest":"200m","cpuLimit":"0","memoryRequest":"192Mi","memoryLimit":"0"},
    "explanation":{"cpu":{"rawPercentile":"150m","overhead":20,"afterOverhead":"180m","confidence":0.4,"confidenceFactor":1.36,
      "afterConfidence":"245m","bounds":{"min":"1m","max":"4"},"afterBounds":"245m","minChangePercent":10,"maxChangePercent":50,
      "afterChangeFilter":"250m","changeFilterApplied":"max_change_capped","final":"200m"}}}]}]}}' >/dev/null \
  || fail "the status subresource refused a documented status"
expect_eq "status.recommendations kept" "$(jp minimal '{.status.recommendations[0].containers[0].recommended.cpuRequest}')" 200m
expect_eq "status explanation kept" "$(jp minimal '{.status.recommendations[0].containers[0].explanation.cpu.changeFilterApplied}')" max_change_capped
expect_eq "status.idleWorkloads kept" "$(jp minimal '{.status.idleWorkloads[0].reason}')" WorkloadReplicasZero
expect_eq "printer columns Workloads, Recs, Ready" "$(k -n "$ns" get ap minimal --no-headers | awk '{print $(NF-4), $(NF-3), $(NF-1)}')" "1 1 False"
out=$(k patch ad cluster-defaults --subresource=status --type=merge -p '{"status":{"x":1}}' 2>&1) \
  && fail "AttuneDefaults has a status subresource: $out"
log "status: the documented shape is kept on AttunePolicy; the defaults kinds have no status subresource"

# ------------------------------------------------------------ kustomize ---
k kustomize "$REPO_ROOT/deploy/kustomize/base" >"$ATTUNE_RUN/api-base.yaml" || fail "kustomize base does not render"
[ "$(grep -c '^kind: CustomResourceDefinition' "$ATTUNE_RUN/api-base.yaml")" = 3 ] || fail "kustomize base lacks the three CRDs"
secret_rules() { k apply --dry-run=client -o json -f - | jq '[.items[] | select(.kind == "ClusterRole" or .kind == "Role")
  | .rules[] | select(any(.resources[]?; . == "secrets" or . == "*"))] | length'; }
expect_eq "Secret rules in the base RBAC" "$(secret_rules <"$ATTUNE_RUN/api-base.yaml")" 0
overlay=$(mktemp -d "$ATTUNE_RUN/api-overlay.XXXXXX")
at_exit "rm -rf '$overlay'"
printf 'resources: [%s]\ncomponents: [%s]\n' "$(realpath --relative-to="$overlay" "$REPO_ROOT/deploy/kustomize/base")" \
  "$(realpath --relative-to="$overlay" "$REPO_ROOT/deploy/kustomize/components/secret-reads")" >"$overlay/kustomization.yaml"
rendered=$(k kustomize "$overlay") || fail "the secret-reads component does not render"
grep -q -- '- --allow-secret-reads' <<<"$rendered" || fail "the secret-reads component does not add --allow-secret-reads"
grants=$(k apply --dry-run=client -o json -f - <<<"$rendered" | jq '[.items[] | select(.kind == "Role" and
  .metadata.name == "attune-manager-secret-reads") | .rules[] | select(.resources == ["secrets"] and .verbs == ["get"])] | length')
expect_eq "secret-reads component: secrets get rules (a namespaced Role)" "$grants" 1
cluster_wide=$(k apply --dry-run=client -o json -f - <<<"$rendered" | jq '[.items[] | select(.kind == "ClusterRole")
  | .rules[] | select(any(.resources[]?; . == "secrets" or . == "*"))] | length')
expect_eq "secret-reads component: Secret rules in ClusterRoles" "$cluster_wide" 0
expect_eq "secret-reads component: Secret rules in total" "$(secret_rules <<<"$rendered")" 1
log "kustomize: the base has no Secret access; the component grants secrets get in one namespace and --allow-secret-reads"
