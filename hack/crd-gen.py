#!/usr/bin/env python3
"""Writes the three Attune CRDs from one description, into both places that
ship them: the kustomize base (deploy/kustomize/base/crd/) and the Helm chart
(deploy/helm/attune/crds/), byte for byte the same.

    hack/crd-gen.py                regenerate the files
    hack/crd-gen.py --check        exit 1 when a committed file in either place differs (meson test 'crds')
    hack/crd-gen.py --check-docs   exit 1 when docs/api.md does not name a spec field (meson test 'api-docs')

It also writes test/data/api_fields.json, every spec field path of the three
kinds with sample values, which test/core/policy/api_fields_test.cpp holds the C++
decoders and the defaults merge to (docs/api.md, "Where a field is described").

The three kinds share metricsSource, cpu, memory and updateStrategy, and every
validation message names the full field path ("spec.cpu.overhead must ..."),
so the schemas are built here once per path instead of being copied by hand.
Fields and bounds: docs/api.md. Every bound the
Go original checks only in its validating webhook is a CEL rule or a pattern
here; the Prometheus address host rule is not (the controller checks it, see
core/policy/policy_validation.hpp).
"""
import json
import pathlib
import re
import sys

import yaml

ROOT = pathlib.Path(__file__).resolve().parent.parent
OUTS = [ROOT / "deploy" / "kustomize" / "base" / "crd", ROOT / "deploy" / "helm" / "attune" / "crds"]

# A decimal number as the Go API writes them in strings ("20", "0.1", "1e-1").
NUMBER = r"^[+]?([0-9]+(\.[0-9]*)?|\.[0-9]+)([eE][+-]?[0-9]+)?$"
SIGNED_NUMBER = r"^[+-]?([0-9]+(\.[0-9]*)?|\.[0-9]+)([eE][+-]?[0-9]+)?$"
OVERHEAD = r"^[0-9]+(\.[0-9]+)?$"  # the Go CRD's pattern, minus the empty string
# time.ParseDuration's grammar.
DURATION = r"^[-+]?(0|(([0-9]+(\.[0-9]*)?|\.[0-9]+)(ns|us|µs|μs|ms|s|m|h))+)$"
METRIC_NAME = r"^[a-zA-Z_:][a-zA-Z0-9_:]*$"
HHMM = r"^([01][0-9]|2[0-3]):[0-5][0-9]$"
# IANA zone names are checked for their shape only (tz data is not in CEL);
# a well-formed unknown zone fails open at runtime, as in Go.
TIMEZONE = r"^(UTC|Local|[A-Za-z][A-Za-z0-9_+-]*(/[A-Za-z0-9_+-]+){0,2})$"
DNS_SUBDOMAIN_MAX = 253
LIFECYCLE_DOC = ROOT / "docs" / "lifecycle.md"


def lifecycle_fragment(name):
    """The `<!-- crd-fragment: NAME -->` YAML block of docs/lifecycle.md: the one
    copy of the lifecycle schema (e2e test 62 checks the same blocks)."""
    text = LIFECYCLE_DOC.read_text(encoding="utf-8")
    marker = f"<!-- crd-fragment: {name} -->"
    start = text.index(marker)
    body = text[text.index("```yaml\n", start) + len("```yaml\n"):]
    doc = yaml.safe_load(body[:body.index("```")])
    return doc["lifecycle"]


def cel(s):
    """A CEL single-quoted string literal."""
    return "'" + s.replace("\\", "\\\\").replace("'", "\\'") + "'"


# ------------------------------------------------------------ schema parts ---

def obj(props=None, required=None, desc=None, rules=None, **extra):
    o = {"type": "object"}
    if desc:
        o["description"] = desc
    if props is not None:
        o["properties"] = props
    if required:
        o["required"] = required
    if rules:
        o["x-kubernetes-validations"] = rules
    o.update(extra)
    return o


def string(desc=None, rules=None, **kw):
    s = {"type": "string"}
    if desc:
        s["description"] = desc
    s.update(kw)
    if rules:
        s["x-kubernetes-validations"] = rules
    return s


def integer(desc=None, fmt="int32", **kw):
    i = {"type": "integer", "format": fmt}
    if desc:
        i["description"] = desc
    i.update(kw)
    return i


def boolean(desc=None, **kw):
    b = {"type": "boolean"}
    if desc:
        b["description"] = desc
    b.update(kw)
    return b


def array(items, desc=None, **kw):
    a = {"type": "array", "items": items}
    if desc:
        a["description"] = desc
    a.update(kw)
    return a


def string_map(desc, max_props=64, max_len=4096):
    return obj(desc=desc, additionalProperties={"type": "string", "maxLength": max_len}, maxProperties=max_props)


def rule(expr, message):
    return {"rule": expr, "message": message}


def duration(path, desc, bounds=None, **kw):
    """A Go duration string. bounds: ('between', lo, hi) | ('min', lo) | ('zero_or_min', lo)."""
    fmt = "self.matches(" + cel(DURATION) + ")"
    rules = [rule(fmt, f"{path} must be a duration such as 90s, 5m or 1h30m")]
    if bounds:
        d = lambda v: f"duration({cel(v)})"  # noqa: E731
        if bounds[0] == "between":
            cond, text = f"duration(self) >= {d(bounds[1])} && duration(self) <= {d(bounds[2])}", \
                f"{path} must be between {bounds[1]} and {bounds[2]}"
        elif bounds[0] == "min":
            cond, text = f"duration(self) >= {d(bounds[1])}", f"{path} must be at least {bounds[1]}"
        else:
            cond, text = f"duration(self) == duration('0s') || duration(self) >= {d(bounds[1])}", \
                f"{path} must be 0 or at least {bounds[1]}"
        rules.append(rule(f"!{fmt} || {cond}", text))
    return string(desc, rules=rules, maxLength=64, **kw)


# resource.Quantity's grammar, as controller-gen writes it.
QUANTITY = r"^(\+|-)?(([0-9]+(\.[0-9]*)?)|(\.[0-9]+))(([KMGTPE]i)|[numkMGTPE]|([eE](\+|-)?(([0-9]+(\.[0-9]*)?)|(\.[0-9]+))))?$"


def quantity(path, desc, rules=None, in_list=False):
    """resource.Quantity (int or string). A CEL rule rather than the usual pattern, so the message names the field;
    inside lists the pattern, because there the CEL cost estimate of 1.32 (which ignores maxLength on an
    int-or-string) exceeds the budget."""
    q = {"x-kubernetes-int-or-string": True, "anyOf": [{"type": "integer"}, {"type": "string"}]}
    if desc:
        q["description"] = desc
    if in_list:
        q["pattern"] = QUANTITY
        return q
    # maxLength bounds the CEL cost estimate on 1.33+ (it applies to the string form only).
    q["maxLength"] = 64
    q["x-kubernetes-validations"] = [rule("isQuantity(string(self))", f"{path} must be a quantity such as 250m, 2 or 512Mi")] + (rules or [])
    return q


def q_of(expr):
    return f"quantity(string({expr}))"


def number(path, desc, cond, text, pattern=NUMBER, allow_empty=False):
    """A number carried as a string; `cond` is a CEL condition on {v} (the double)."""
    body = f"self.matches({cel(pattern)}) && ({cond.format(v='double(self)')})"
    if allow_empty:
        body = f"self == '' || ({body})"
    return string(desc, rules=[rule(body, f"{path} {text}")], maxLength=64)


def secret_ref(path, desc, required=None):
    return obj({
        "name": string("Secret name, in the policy's namespace.", maxLength=DNS_SUBDOMAIN_MAX, minLength=1,
                       rules=[rule("!self.contains('/')", f"{path}.name must not contain '/'; secrets are read from the policy's namespace")]),
        "key": string("Key within the Secret.", minLength=1, maxLength=DNS_SUBDOMAIN_MAX),
    }, required=["name", "key"], desc=desc)


def label_selector(path):
    return obj({
        "matchLabels": string_map("Labels that must all match.", max_props=64, max_len=63),
        "matchExpressions": array(obj({
            "key": string(minLength=1, maxLength=317),
            "operator": string(enum=["In", "NotIn", "Exists", "DoesNotExist"]),
            "values": array(string(maxLength=63), maxItems=64),
        }, required=["key", "operator"], rules=[
            rule("self.operator in ['In', 'NotIn'] ? (has(self.values) && size(self.values) > 0) : (!has(self.values) || size(self.values) == 0)",
                 f"{path}.matchExpressions: In and NotIn need values; Exists and DoesNotExist take none"),
        ]), maxItems=32),
    }, desc="Workloads of targetRef.kind in the policy's namespace whose labels match.",
        rules=[rule("(has(self.matchLabels) && size(self.matchLabels) > 0) || (has(self.matchExpressions) && size(self.matchExpressions) > 0)",
                    f"{path} must include at least one matchLabels or matchExpressions entry")],
        **{"x-kubernetes-map-type": "atomic"})


def percent(desc, lo=1, hi=100):
    return integer(desc, minimum=lo, maximum=hi)


# ------------------------------------------------------------- the spec ---

def resource_config(path, kind, for_policy=False, container_policy=False):
    """ResourceConfig at `path` ("spec.cpu"); kind is "cpu" or "memory"."""
    cpu = kind == "cpu"
    props = {
        "percentile": integer("Usage percentile to target (0 = the default: cpu 95, memory 99).", enum=[0, 50, 90, 95, 99]),
        "overhead": number(f"{path}.overhead", "Percent headroom over the percentile (default cpu \"20\", memory \"30\").",
                           "{v} <= 900.0", "must be a number of percent between 0 and 900", pattern=OVERHEAD, allow_empty=True),
        "minAllowed": quantity(f"{path}.minAllowed", "Lower bound of a recommendation (default cpu 1m, memory 4Mi).",
                               in_list=container_policy),
        "maxAllowed": quantity(f"{path}.maxAllowed", "Upper bound of a recommendation (default cpu 4000m, memory 8Gi).",
                               in_list=container_policy),
        "controlledValues": string("RequestsOnly (default) or RequestsAndLimits (keeps the live limit/request ratio).",
                                   enum=["RequestsOnly", "RequestsAndLimits"]),
        "burstSensitivity": number(f"{path}.burstSensitivity", "Burst boost strength (default \"0.1\"; \"0\" turns it off).",
                                   "{v} <= 1.0", "must be a number between 0 and 1.0"),
        "allowDecrease": boolean("Allow recommending below the current value (default cpu true, memory false)."),
        "maxChangePercent": percent("Largest step per cycle, either way (default cpu 50, memory 30)."),
        "maxIncreasePercent": percent("Largest step up per cycle (default maxChangePercent)."),
        "maxDecreasePercent": percent("Largest step down per cycle (default maxChangePercent)."),
    }
    if container_policy:
        # Declared (so a rule can see them) but refused: Go's webhook allows only the fields above here.
        for name, schema in (("memoryFromCpuRatio", {"type": "string"}), ("decreaseUsageMarginPercent", {"type": "integer"}),
                             ("limitMultiplier", {"type": "string"}), ("startupBoost", {"type": "object"}),
                             ("oomBump", {"type": "object"}), ("surge", {"type": "object"})):
            if schema["type"] == "object":
                schema["x-kubernetes-preserve-unknown-fields"] = True
            props[name] = schema
    else:
        props.update({
            "memoryFromCpuRatio": number(f"{path}.memoryFromCpuRatio", "Memory only: GiB of memory per recommended CPU core.",
                                         "{v} > 0.0 && {v} <= 1000.0", "must be a number greater than 0 and at most 1000"),
            "startupBoost": obj({
                "multiplier": number(f"{path}.startupBoost.multiplier", "CPU factor while a pod starts.",
                                     "{v} > 1.0 && {v} <= 10.0", "must be a number greater than 1 and at most 10"),
                "duration": duration(f"{path}.startupBoost.duration", "Longest boost time.", ("between", "10s", "1h")),
                "excludeFromHistory": boolean("Drop CPU samples taken while boosted."),
            }, required=["multiplier", "duration"], desc="CPU only: a higher request while a pod starts. Taken whole in the defaults merge."),
            "decreaseUsageMarginPercent": percent("Memory: margin above usage for limit decreases (default 10).", lo=0),
            "limitMultiplier": number(f"{path}.limitMultiplier", "Limit = request x this (default: the live ratio).",
                                      "{v} <= 100.0", "must be a number of at most 100", pattern=OVERHEAD),
            "oomBump": obj({
                "ratio": number(f"{path}.oomBump.ratio", "Request factor after an OOMKill (default \"1.2\").",
                                "{v} >= 1.0 && {v} <= 10.0", "must be a number between 1 and 10"),
                "minBump": quantity(f"{path}.oomBump.minBump", "Smallest raise (default 100Mi).",
                                    [rule(f"!isQuantity(string(self)) || {q_of('self')}.compareTo(quantity('0')) > 0", f"{path}.oomBump.minBump must be greater than 0")]),
                "maxBumps": integer("Raises before giving up (default 3).", minimum=1, maximum=10),
                "hold": duration(f"{path}.oomBump.hold", "How long a raise holds (default 24h).", ("between", "1m", "168h")),
            }, desc="Memory: raise the request after an OOMKill; absent = off."),
            "surge": obj({
                "triggerRatio": number(f"{path}.surge.triggerRatio", "Short-window usage over the recommendation that starts a surge (default \"1.5\").",
                                       "{v} > 1.0 && {v} <= 100.0", "must be a number greater than 1 and at most 100"),
                "percentile": integer("Percentile over the surge window (default 99).", enum=[50, 90, 95, 99]),
                "window": duration(f"{path}.surge.window", "Short history window (default 30m).", ("min", "5m")),
            }, desc="A short history while usage runs hot; absent = off."),
        })
    # Not on containerPolicies (as upstream, for the cost budget): the controller checks those
    # (core::validate_effective_policy).
    rules = []
    if container_policy:
        rules.append(rule("!has(self.memoryFromCpuRatio) && !has(self.decreaseUsageMarginPercent) && !has(self.limitMultiplier) && "
                          "!has(self.startupBoost) && !has(self.oomBump) && !has(self.surge)",
                          f"{path} may set only percentile, overhead, minAllowed, maxAllowed, controlledValues, "
                          "burstSensitivity, allowDecrease and the max*Percent caps"))
    else:
        rules.append(rule(f"!has(self.minAllowed) || !has(self.maxAllowed) || !isQuantity(string(self.minAllowed)) || "
                          f"!isQuantity(string(self.maxAllowed)) || {q_of('self.minAllowed')}.compareTo({q_of('self.maxAllowed')}) <= 0",
                          f"{path}.minAllowed must be less than or equal to maxAllowed"))
        rules.append(rule("!has(self.limitMultiplier) || !has(self.controlledValues) || self.controlledValues != 'RequestsOnly'",
                          f"{path}.limitMultiplier cannot be used with controlledValues RequestsOnly"))
    if for_policy:
        cap, text = ("'256'", "256 cores") if cpu else ("'16Ti'", "16Ti")
        rules.append(rule(f"!has(self.maxAllowed) || !isQuantity(string(self.maxAllowed)) || "
                          f"{q_of('self.maxAllowed')}.compareTo(quantity({cap})) <= 0",
                          f"{path}.maxAllowed must be at most {text}"))
    return obj(props, desc=f"Tuning of {'CPU' if cpu else 'memory'}.", rules=rules or None)


def metrics_source(path, for_policy):
    prom = f"{path}.prometheus"
    props = {
        "historyWindow": duration(f"{path}.historyWindow", "History span (default 168h).", ("between", "1h", "720h")),
        "minimumDataPoints": integer("Samples needed before recommending (default 48).", minimum=1),
        "queryStep": duration(f"{path}.queryStep", "Query step, and the requeue interval while collecting (default 5m).",
                              ("between", "10s", "1h")),
        "rateWindow": duration(f"{path}.rateWindow", "CPU rate() window (default: queryStep).", ("min", "30s")),
        "podAggregation": string("How per-pod series are reduced (default Max).", enum=["Max", "Avg", "None"]),
        "cpuRecordingMetric": string("Used instead of rate(container_cpu_usage_seconds_total), not wrapped.", maxLength=256,
                                     rules=[rule(f"self == '' || self.matches({cel(METRIC_NAME)})", f"{path}.cpuRecordingMetric must be a metric name ({METRIC_NAME})")]),
        "memoryRecordingMetric": string("Used instead of container_memory_working_set_bytes.", maxLength=256,
                                        rules=[rule(f"self == '' || self.matches({cel(METRIC_NAME)})", f"{path}.memoryRecordingMetric must be a metric name ({METRIC_NAME})")]),
        "prometheus": obj({
            "address": string("Query endpoint, an http(s) URL. Cloud metadata hosts and loopback, link-local or "
                              "unspecified IPs are refused by the controller (Ready=False, InvalidConfig).", maxLength=2048),
            "headers": string_map("Headers added to every query."),
            "queryParameters": obj(desc="Added to every query URL; query, time, start, end, step and timeout (any case) are reserved.",
                                   additionalProperties={"type": "string", "maxLength": 1024}, maxProperties=32,
                                   rules=[rule("self.all(k, !(k.lowerAscii() in ['query', 'time', 'start', 'end', 'step', 'timeout']))",
                                               f"{prom}.queryParameters must not set query, time, start, end, step or timeout")]),
            "bearerTokenSecret": secret_ref(f"{prom}.bearerTokenSecret", "Token Secret in the policy namespace; honoured only when the manager runs with --allow-secret-reads."),
            "tls": obj({
                "insecureSkipVerify": boolean("Skip TLS verification."),
                "ca": string("Attune extension: PEM bundle that signs the server certificate.", maxLength=65536),
                "caSecret": secret_ref(f"{prom}.tls.caSecret", "Attune extension: a Secret key holding that PEM bundle; needs --allow-secret-reads."),
            }, desc="TLS to Prometheus."),
        }, required=["address"], desc="A Prometheus-compatible query endpoint."),
        "vpa": obj({
            "name": string("The VerticalPodAutoscaler to read.", minLength=1, maxLength=DNS_SUBDOMAIN_MAX),
            "namespace": string("Its namespace (default: the policy's).", maxLength=63),
            "selection": string("Attune extension: which recommendation to use (default Target).",
                                enum=["Target", "LowerBound", "UpperBound"]),
        }, required=["name"], desc="Read status.recommendation.containerRecommendations[] of an autoscaling.k8s.io/v1 VerticalPodAutoscaler."),
        "manual": obj({
            "containers": array(obj({
                "name": string("Container name.", minLength=1, maxLength=63),
                "resources": obj({
                    "requests": obj(desc="Explicit requests; omitted keys keep the live value.", maxProperties=16,
                                    additionalProperties=quantity(None, None, in_list=True)),
                    "limits": obj(desc="Explicit limits; omitted keys keep the live value.", maxProperties=16,
                                  additionalProperties=quantity(None, None, in_list=True)),
                }, desc="Overlaid on the live baseline."),
            }, required=["name"]), maxItems=100, **{"x-kubernetes-list-type": "map", "x-kubernetes-list-map-keys": ["name"]}),
        }, desc="Attune extension (docs/lifecycle.md): explicit resources per container, overlaid on the live baseline."),
        "datadog": obj({
            "site": string("Datadog site.", default="datadoghq.com",
                           enum=["datadoghq.com", "datadoghq.eu", "us3.datadoghq.com", "us5.datadoghq.com", "ap1.datadoghq.com", "ddog-gov.com"]),
            "apiKeySecretRef": secret_ref(f"{path}.datadog.apiKeySecretRef", "API key Secret; its app-key key, when present, is the application key. Needs --allow-secret-reads."),
        }, required=["apiKeySecretRef"], desc="Datadog's metrics query API (docs/recommender.md#datadog)." + ("" if for_policy else " Read from the policy only; accepted here for compatibility.")),
        "cloudwatch": obj({
            "region": string(minLength=1, maxLength=64),
            "clusterName": string(minLength=1, maxLength=DNS_SUBDOMAIN_MAX),
            "roleArn": string(maxLength=2048),
            "cpuUnit": string(enum=["Millicores", "Cores", "Nanocores"]),
        }, required=["region", "clusterName"], desc="Amazon CloudWatch Container Insights through GetMetricData (docs/recommender.md#cloudwatch); credentials from the manager's environment or IRSA." + ("" if for_policy else " Read from the policy only; accepted here for compatibility.")),
    }
    rules = [
        rule("[has(self.prometheus), has(self.datadog), has(self.cloudwatch), has(self.vpa), has(self.manual)].filter(x, x).size() <= 1",
             f"{path} may set at most one of prometheus, datadog, cloudwatch, vpa or manual"),
        rule("!has(self.rateWindow) || !self.rateWindow.matches(" + cel(DURATION) + ") || "
             "(has(self.historyWindow) && !self.historyWindow.matches(" + cel(DURATION) + ")) || "
             "duration(self.rateWindow) <= duration(has(self.historyWindow) ? self.historyWindow : '168h')",
             f"{path}.rateWindow must not exceed historyWindow (default 168h)"),
    ]
    return obj(props, desc="Where usage data comes from." + ("" if for_policy else " Defaults: the scalars and the prometheus block."), rules=rules)


def update_strategy(path, canary_rule=True):
    pr = f"{path}.export.pullRequest"
    props = {
        "type": string("Observe, Recommend (default), OneShot, Canary or Auto; the last three resize.",
                       enum=["Observe", "Recommend", "OneShot", "Canary", "Auto"]),
        "canary": obj({
            "percentage": integer("Share of pods resized first.", minimum=1, maximum=100),
            "observationPeriod": duration(f"{path}.canary.observationPeriod", "Watch time for canary pods (0 = the default).", ("zero_or_min", "1m")),
            "autoPromote": boolean("Roll out the rest after a clean watch."),
        }, required=["percentage", "observationPeriod"], desc="Canary rollout. Taken whole in the defaults merge."),
        "cooldown": duration(f"{path}.cooldown", "Minimum gap between resize cycles (default 1h; raised to 1m).", ("zero_or_min", "1m")),
        "initialSizing": boolean("Size pods at CREATE (needs the namespace label attune.io/initial-sizing=enabled)."),
        "autoRevert": boolean("Roll back on a failed safety check (default true)."),
        "resizeMethod": string("InPlaceOnly (default) or InPlaceOrRecreate.", enum=["InPlaceOnly", "InPlaceOrRecreate"]),
        "schedule": obj({
            "windows": array(obj({
                "start": string("HH:MM.", maxLength=5, rules=[
                    rule(f"self.matches({cel(HHMM)})", f"{path}.schedule.windows[].start must be a time HH:MM between 00:00 and 23:59")]),
                "end": string("HH:MM; before start wraps midnight.", maxLength=5, rules=[
                    rule(f"self.matches({cel(HHMM)})", f"{path}.schedule.windows[].end must be a time HH:MM between 00:00 and 23:59")]),
            }, required=["start", "end"]), maxItems=24),
            "daysOfWeek": array(string(enum=["Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday"]), maxItems=7),
            "timezone": string("IANA zone of the windows.", default="UTC", maxLength=64,
                               rules=[rule(f"self.matches({cel(TIMEZONE)})", f"{path}.schedule.timezone must be an IANA time zone such as UTC or Europe/Berlin")]),
        }, desc="Allowed resize times. Taken whole in the defaults merge."),
        "maxConcurrentResizes": integer("Parallel pod resizes per cycle.", minimum=1, maximum=50, default=1),
        "maxStatusRecommendations": integer("Cap on status.recommendations (default 100).", minimum=1, maximum=500),
        "includeExplanationsInStatus": boolean("Write the explanation chain to status (default true)."),
        "maxTotalCpuIncrease": quantity(f"{path}.maxTotalCpuIncrease", "CPU increase budget per cycle (default unlimited).",
                                        [rule(f"!isQuantity(string(self)) || {q_of('self')}.compareTo(quantity('0')) >= 0", f"{path}.maxTotalCpuIncrease must not be negative")]),
        "maxTotalMemoryIncrease": quantity(f"{path}.maxTotalMemoryIncrease", "Memory increase budget per cycle (default unlimited).",
                                           [rule(f"!isQuantity(string(self)) || {q_of('self')}.compareTo(quantity('0')) >= 0", f"{path}.maxTotalMemoryIncrease must not be negative")]),
        "maxCpuIncreasePerMinute": quantity(f"{path}.maxCpuIncreasePerMinute", "CPU increase budget per minute (default unlimited)."),
        "maxMemoryIncreasePerMinute": quantity(f"{path}.maxMemoryIncreasePerMinute", "Memory increase budget per minute (default unlimited)."),
        "safetyObservationPeriod": duration(f"{path}.safetyObservationPeriod", "Watch time after a resize (default: the canary period, else 5m).", ("zero_or_min", "1m")),
        "sloGuardrails": array(obj({
            "name": string("Revert reason becomes slo:<name>.", minLength=1, maxLength=63),
            "query": string("PromQL; {{ .Namespace }}, {{ .WorkloadName }} and {{ .PodName }} are filled in.", minLength=1, maxLength=4096),
            "threshold": number(f"{path}.sloGuardrails[].threshold", "Breach value.", "true", "must be a finite number", pattern=SIGNED_NUMBER),
            "comparison": string("Breach direction.", enum=["above", "below"], default="above"),
            "evaluationWindow": duration(f"{path}.sloGuardrails[].evaluationWindow", "Check period after a resize (default 5m).", ("zero_or_min", "1m")),
        }, required=["name", "query", "threshold"]), maxItems=10,
            desc="PromQL checks that force a revert. Taken whole in the defaults merge.",
            **{"x-kubernetes-validations": [rule("self.all(g, self.exists_one(h, h.name == g.name))", f"{path}.sloGuardrails names must be unique")]}),
        "templatePersistence": obj({
            "enabled": boolean("Patch Deployment/StatefulSet templates."),
            "when": string("Patch trigger (default AfterSuccessfulResize).", enum=["AfterSuccessfulResize", "OnRecommendation"]),
        }, desc="Taken whole in the defaults merge."),
        "export": obj({
            "configMap": boolean("One ConfigMap per workload."),
            "pullRequest": obj({
                "enabled": boolean("GitOps pull requests."),
                "provider": string("Hosting API (default github).", enum=["github", "gitlab"]),
                "tokenSecretRef": secret_ref(f"{pr}.tokenSecretRef", "Token Secret."),
                "repository": string("owner/name or group/project.", maxLength=512),
                "baseBranch": string("PR target branch (default main).", maxLength=255),
                "apiUrl": string("API base URL; the controller applies the Prometheus address host rule.", maxLength=2048),
                "cooldown": duration(f"{pr}.cooldown", "Minimum gap between PR attempts (default 24h)."),
                "minChangePercent": percent("Drift needed for a PR (default 10)."),
                "labels": array(string(maxLength=63), maxItems=20),
                "dryRun": boolean("Report only; no remote calls."),
                "allowPrivateEndpoints": boolean("Allow RFC1918/ULA hosts."),
            }, rules=[
                rule("!has(self.enabled) || !self.enabled || (has(self.repository) && self.repository != '')",
                     f"{pr}.repository is required when pullRequest.enabled is true"),
                rule("!has(self.enabled) || !self.enabled || has(self.tokenSecretRef)",
                     f"{pr}.tokenSecretRef is required when pullRequest.enabled is true"),
            ]),
        }, desc="Taken whole in the defaults merge."),
        "hpaTargetBounds": obj({
            r: obj({"min": integer(minimum=1, maximum=10000), "max": integer(minimum=1, maximum=10000)}) for r in ("cpu", "memory")
        }, desc="Clamp on tuned HPA targets."),
    }
    # On a policy the rule sits one level up, where spec.lifecycle is visible.
    rules = [rule("!has(self.type) || self.type != 'Canary' || has(self.canary)",
                  f"{path}.canary is required when type is Canary")] if canary_rule else None
    return obj(props, desc="Mode and resize controls.", rules=rules)


def policy_spec():
    p = "spec"
    cps = f"{p}.containerPolicies"
    container_policy = obj({
        "containerName": string("A container name, or \"*\" for every container.", minLength=1, maxLength=253),
        "cpu": resource_config(f"{cps}[].cpu", "cpu", container_policy=True),
        "memory": resource_config(f"{cps}[].memory", "memory", container_policy=True),
    }, required=["containerName"])
    return obj({
        "targetRef": obj({
            "kind": string("Workload kind.", enum=["Deployment", "StatefulSet", "DaemonSet", "ReplicaSet", "Job", "CronJob"]),
            "name": string("One workload in the policy's namespace.", maxLength=DNS_SUBDOMAIN_MAX),
            "selector": label_selector(f"{p}.targetRef.selector"),
        }, required=["kind"], desc="The workloads this policy manages. Jobs and CronJobs get recommendations only.",
            rules=[rule("(has(self.name) && self.name != '') != has(self.selector)", f"{p}.targetRef must set exactly one of name or selector")]),
        "metricsSource": metrics_source(f"{p}.metricsSource", True),
        "cpu": resource_config(f"{p}.cpu", "cpu", for_policy=True),
        "memory": resource_config(f"{p}.memory", "memory", for_policy=True),
        "paused": boolean("Stops all work (Ready=False, Paused); resizes already done stay."),
        "updateStrategy": update_strategy(f"{p}.updateStrategy", canary_rule=False),
        "excludedContainers": array(string(maxLength=63), maxItems=100, desc="Never sized; added to the known sidecars."),
        "excludeKnownSidecars": boolean("Skip istio-proxy, linkerd-proxy, consul-dataplane, kuma-dp, vault-agent, "
                                        "cloud-sql-proxy, cloudsql-proxy and gce-proxy (default true)."),
        "weight": integer("Higher wins when policies overlap; a tie goes to the smaller name.", minimum=1, maximum=1000, default=100),
        "runtimeProfile": string("Runtime defaults for unset fields.", enum=["generic", "java", "python", "golang", "nodejs"]),
        "containerPolicies": array(container_policy, maxItems=100, desc="Per-container overlay: a literal name > \"*\" > the policy.",
                                   **{"x-kubernetes-validations": [rule("self.filter(c, c.containerName == '*').size() <= 1",
                                                                        f"{cps} may hold at most one \"*\" entry")]}),
        "lifecycle": lifecycle_fragment("spec.lifecycle"),
    }, required=["targetRef", "cpu", "memory"], desc="What to right-size and how. Unset fields come from the defaults objects (docs/api.md).",
        rules=[rule("!has(self.updateStrategy) || !has(self.updateStrategy.type) || self.updateStrategy.type != 'Canary'"
                    " || has(self.updateStrategy.canary) || has(self.lifecycle)",
                    f"{p}.updateStrategy.canary or {p}.lifecycle is required when type is Canary")])


def defaults_spec():
    p = "spec"
    return obj({
        "metricsSource": metrics_source(f"{p}.metricsSource", False),
        "cpu": resource_config(f"{p}.cpu", "cpu"),
        "memory": resource_config(f"{p}.memory", "memory"),
        "updateStrategy": update_strategy(f"{p}.updateStrategy"),
        "costPricing": obj({
            "cpuPerCoreHour": number(f"{p}.costPricing.cpuPerCoreHour", "$ per vCPU-hour (default \"0.031\").", "{v} > 0.0", "must be a number greater than 0"),
            "memoryPerGiBHour": number(f"{p}.costPricing.memoryPerGiBHour", "$ per GiB-hour (default \"0.004\").", "{v} > 0.0", "must be a number greater than 0"),
        }, desc="Prices for the savings estimate."),
        "excludeKnownSidecars": boolean("For policies that leave it unset (default true)."),
    }, desc="Defaults for the policies that leave a field unset.")


# ------------------------------------------------------------ the status ---

def condition():
    return obj({
        "type": string(maxLength=316, pattern=r"^([a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*/)?(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])$"),
        "status": string(enum=["True", "False", "Unknown"]),
        "observedGeneration": integer(fmt="int64", minimum=0),
        "lastTransitionTime": string(format="date-time"),
        "reason": string(maxLength=1024, minLength=1, pattern=r"^[A-Za-z]([A-Za-z0-9_,:]*[A-Za-z0-9_])?$"),
        "message": string(maxLength=32768),
    }, required=["type", "status", "lastTransitionTime", "reason", "message"])


def qty_plain(desc=None):
    q = {"x-kubernetes-int-or-string": True, "anyOf": [{"type": "integer"}, {"type": "string"}]}
    if desc:
        q["description"] = desc
    return q


def resource_values():
    return obj({k: qty_plain() for k in ("cpuRequest", "cpuLimit", "memoryRequest", "memoryLimit")},
               required=["cpuRequest", "cpuLimit", "memoryRequest", "memoryLimit"])


def explanation():
    return obj({
        "rawPercentile": qty_plain(), "overhead": {"type": "number"}, "afterOverhead": qty_plain(),
        "burstFactor": {"type": "number"}, "afterBurst": qty_plain(),
        "confidence": {"type": "number"}, "confidenceFactor": {"type": "number"}, "afterConfidence": qty_plain(),
        "bounds": obj({"min": qty_plain(), "max": qty_plain()}, required=["min"]),
        "boundsApplied": string(enum=["", "min", "max"]), "afterBounds": qty_plain(),
        "minChangePercent": {"type": "number"}, "maxChangePercent": {"type": "number"},
        "changeFilterApplied": string(enum=["", "min_change_filtered", "max_change_capped"]),
        "afterChangeFilter": qty_plain(), "final": qty_plain(), "finalAdjustment": string(),
    }, required=["rawPercentile", "overhead", "afterOverhead", "confidence", "confidenceFactor", "afterConfidence",
                 "bounds", "afterBounds", "minChangePercent", "maxChangePercent", "afterChangeFilter", "final"])


def policy_status():
    int32 = lambda d=None: integer(d)  # noqa: E731
    return obj({
        "observedGeneration": integer("The metadata.generation of the spec the status was computed from.", fmt="int64"),
        "idleWorkloads": array(obj({
            "workload": string("Name of the workload."),
            "kind": string(enum=["Deployment", "StatefulSet", "ReplicaSet", "DaemonSet"]),
            "reason": string(enum=["HPAScaledToZero", "WorkloadReplicasZero"]),
        }, required=["workload", "kind", "reason"]), desc="Selected workloads that are idle (Attune leaves them alone until they scale up)."),
        "conditions": array(condition(), **{"x-kubernetes-list-type": "map", "x-kubernetes-list-map-keys": ["type"]}),
        "workloads": obj({
            "discovered": int32("Workloads matched."), "withRecommendations": int32(), "resized": int32(), "pending": int32(),
            "deferred": int32("Pods whose kubelet resize is Deferred."), "infeasible": int32("Pods whose kubelet resize is Infeasible."),
            "dataPointsCollected": int32("Largest sample count."), "dataPointsRequired": int32("minimumDataPoints."),
        }, required=["discovered", "withRecommendations", "resized", "pending"]),
        "cooldown": obj({
            "effectiveCooldown": string("Cooldown after backoff (a duration)."),
            "backoffMultiplier": integer(enum=[1, 2, 4, 8, 16]),
            "consecutiveReverts": int32(),
        }),
        "recommendations": array(obj({
            "workload": string(), "kind": string(),
            "containers": array(obj({
                "name": string(), "current": resource_values(), "recommended": resource_values(),
                "confidence": {"type": "number", "minimum": 0, "maximum": 1},
                "dataPoints": int32(), "lastUpdated": string(format="date-time"),
                "explanation": obj({"cpu": explanation(), "memory": explanation()}),
            }, required=["name", "current", "recommended", "confidence", "dataPoints", "lastUpdated"])),
            "lastDataTime": string(format="date-time"),
            "stale": boolean("Cached data; no resize."),
        }, required=["workload", "kind", "containers"]), maxItems=500),
        "savings": obj({k: string() for k in (
            "cpuRequestReduction", "cpuRequestTotal", "cpuRequestIncrease", "memoryRequestReduction", "memoryRequestTotal",
            "memoryRequestIncrease", "reclaimedCpuRequest", "reclaimedMemoryRequest", "estimatedMonthlySavings",
            "estimatedMonthlyCostIncrease")}),
        "resizeHistory": array(obj({
            "timestamp": string(format="date-time"), "workload": string(), "container": string(),
            "resource": string(enum=["cpu", "memory", "cpu+memory", "template"]),
            "from": string(), "to": string(),
            "method": string(enum=["InPlace", "Eviction", "TemplatePersistence"]),
            "result": string(enum=["Success", "Failed", "Reverted", "Evicted", "TemplatePatched", "Held"]),
            "reason": string(),
        }, required=["timestamp", "workload", "container", "resource", "from", "to", "method", "result"]), maxItems=50),
        "workloadErrors": array(obj({"workload": string(), "error": string()}, required=["workload", "error"]), maxItems=10),
        "canary": obj({
            "phase": string(enum=["CanaryInProgress", "FullRollout"]),
            "startTime": string(format="date-time"),
            "observedGeneration": integer(fmt="int64"),
            "pods": array(string(), maxItems=100),
            "workloads": array(obj({
                "workload": string(), "phase": string(enum=["CanaryInProgress", "FullRollout"]),
                "startTime": string(format="date-time"), "pods": array(string(), maxItems=100),
            }, required=["workload"]), maxItems=100),
        }),
        "gitopsPR": obj({"driftFingerprint": string(), "lastAttempt": string(format="date-time"), "url": string()}),
        "lastReconcileTime": string(format="date-time"),
        "lifecycle": lifecycle_fragment("status.lifecycle"),
    }, desc="Written by attune-manager through the status subresource.")


# ------------------------------------------------------------- the CRDs ---

def crd(kind, plural, singular, short, scope, spec, columns, status=None, spec_required=False, desc=""):
    props = {"apiVersion": string(), "kind": string(), "metadata": obj(), "spec": spec}
    version = {"name": "v1alpha1", "served": True, "storage": True}
    if status:
        props["status"] = status
        version["subresources"] = {"status": {}}
    version["additionalPrinterColumns"] = columns
    version["schema"] = {"openAPIV3Schema": obj(props, required=["spec"] if spec_required else None, desc=desc)}
    return {
        "apiVersion": "apiextensions.k8s.io/v1",
        "kind": "CustomResourceDefinition",
        "metadata": {"name": f"{plural}.attune.io"},
        "spec": {
            "group": "attune.io",
            "names": {"kind": kind, "listKind": kind + "List", "plural": plural, "singular": singular,
                      "shortNames": [short], "categories": ["attune"]},
            "scope": scope,
            "versions": [version],
        },
    }


def col(name, path, typ="string", priority=None):
    c = {"name": name, "type": typ, "jsonPath": path}
    if priority:
        c["priority"] = priority
    return c


DEFAULTS_COLUMNS = [col("Prometheus", ".spec.metricsSource.prometheus.address"), col("Type", ".spec.updateStrategy.type"),
                    col("Age", ".metadata.creationTimestamp", "date")]


def all_crds():
    return {
        "attunepolicy.yaml": crd(
            "AttunePolicy", "attunepolicies", "attunepolicy", "ap", "Namespaced", policy_spec(),
            [col("Type", ".spec.updateStrategy.type"), col("Workloads", ".status.workloads.discovered", "integer"),
             col("Recs", ".status.workloads.withRecommendations", "integer"), col("Resized", ".status.workloads.resized", "integer"),
             col("Ready", '.status.conditions[?(@.type=="Ready")].status'), col("Age", ".metadata.creationTimestamp", "date"),
             col("CPU Saved", ".status.savings.cpuRequestReduction", priority=1),
             col("Mem Saved", ".status.savings.memoryRequestReduction", priority=1)],
            status=policy_status(), spec_required=True,
            desc="AttunePolicy right-sizes the CPU and memory of the workloads its targetRef names, in place."),
        "attunedefaults.yaml": crd(
            "AttuneDefaults", "attunedefaults", "attunedefaults", "ad", "Cluster", defaults_spec(), DEFAULTS_COLUMNS,
            desc="AttuneDefaults holds cluster-wide defaults; at most one counts (the smallest metadata.name)."),
        "attunenamespacedefaults.yaml": crd(
            "AttuneNamespaceDefaults", "attunenamespacedefaults", "attunenamespacedefaults", "and", "Namespaced",
            defaults_spec(), DEFAULTS_COLUMNS,
            desc="AttuneNamespaceDefaults holds the defaults of its namespace; they win over AttuneDefaults."),
    }


HEADER = "# Generated by hack/crd-gen.py; edit that file and run it, not this one.\n"


# ------------------------------------------------------- the field table ---

FIELDS = ROOT / "test" / "data" / "api_fields.json"
API_DOC = ROOT / "docs" / "api.md"

# Fields of the defaults kinds that the defaults merge leaves alone on purpose
# (docs/api.md, "The defaults merge"): setting one on a defaults object changes
# no EffectivePolicy. A path covers the fields under it.
NOT_MERGED = {
    "spec.metricsSource.vpa": "the policy's own source (rule 4 of the defaults merge)",
    "spec.metricsSource.manual": "the policy's own source (rule 4 of the defaults merge)",
    "spec.metricsSource.datadog": "the policy's own source (rule 4 of the defaults merge)",
    "spec.metricsSource.cloudwatch": "the policy's own source (rule 4 of the defaults merge)",
    "spec.cpu.memoryFromCpuRatio": "read on memory only, as in Go",
    "spec.cpu.oomBump": "read on memory only, as in Go",
    "spec.memory.startupBoost": "read on cpu only, as in Go",
}
# Fields the decoders skip on purpose, same form; none today.
NOT_DECODED = {}
DEFAULTS_KINDS = ("AttuneDefaults", "AttuneNamespaceDefaults")

# Sample strings by grammar, recognised by the pattern or CEL rule the schema
# checks them with. Samples need not meet the numeric bounds (the decoders and
# the merge do not check those); they differ from every built-in default, so a
# field that is read changes what the decoder or the merge returns.
STRING_SAMPLES = [
    (("(ns|us",), ["7m", "13m"]),  # a duration (both grammars: DURATION and docs/lifecycle.md's)
    ((HHMM,), ["01:30", "02:45"]),
    ((TIMEZONE,), ["Europe/Berlin", "UTC"]),
    ((NUMBER, SIGNED_NUMBER, OVERHEAD), ["2.5", "3.5"]),
]


def samples(s):
    """Values to set a leaf to: each is valid JSON for its schema type."""
    if s.get("x-kubernetes-int-or-string"):
        return ["3", "5"]
    if "enum" in s:
        return list(s["enum"])
    kind = s.get("type")
    if kind == "boolean":
        return [True, False]
    if kind == "integer":
        lo = s.get("minimum", 1) + 1
        hi = s.get("maximum", lo + 1)
        return [hi, lo] if hi != lo else [hi]
    if kind == "number":
        return [0.5, 0.75]
    if kind == "array":
        return [[v] for v in samples(s["items"])][:2]
    if kind == "object":  # a map, or a block the schema keeps unknown
        return [{"cpu": v} for v in samples(s["additionalProperties"])][:2] if "additionalProperties" in s else [{}]
    text = " ".join([s.get("pattern", "")] + [r["rule"] for r in s.get("x-kubernetes-validations", [])])
    for grammars, values in STRING_SAMPLES:
        if any(g in text or cel(g) in text for g in grammars):
            return values
    return ["x", "y"]


def leaf_type(s):
    if s.get("x-kubernetes-int-or-string"):
        return "quantity"
    if s.get("type") == "object":
        return "map" if "additionalProperties" in s else "object"
    return s["type"]


def covered(path, table):
    """The reason `table` gives for `path` or a field above it, else None."""
    for prefix, reason in table.items():
        if path == prefix or path.startswith(prefix + ".") or path.startswith(prefix + "["):
            return reason
    return None


def spec_rows(props, required, prefix, rows):
    """One row per field under `prefix`; an object with properties is a node,
    its fields follow it; "x[]" is the element of a list of objects."""
    for name, s in props.items():
        path = f"{prefix}.{name}"
        row = {"path": path, "type": None, "required": name in (required or [])}
        items = s.get("items", {})
        if s.get("type") == "object" and "properties" in s:
            rows.append({**row, "type": "object"})
            spec_rows(s["properties"], s.get("required"), path, rows)
        elif s.get("type") == "array" and items.get("type") == "object" and "properties" in items:
            rows.append({**row, "path": path + "[]", "type": "object"})
            spec_rows(items["properties"], items.get("required"), path + "[]", rows)
        else:
            rows.append({**row, "type": leaf_type(s), "samples": samples(s)})


def field_table(crds):
    kinds = {}
    for doc in crds.values():
        kind = doc["spec"]["names"]["kind"]
        spec = doc["spec"]["versions"][0]["schema"]["openAPIV3Schema"]["properties"]["spec"]
        rows = []
        spec_rows(spec["properties"], spec.get("required"), "spec", rows)
        for row in rows:
            if "samples" not in row:
                continue
            if (reason := covered(row["path"], NOT_DECODED)):
                row["notDecoded"] = reason
            if kind in DEFAULTS_KINDS and (reason := covered(row["path"], NOT_MERGED)):
                row["notMerged"] = reason
        kinds[kind] = rows
    for table, where in ((NOT_MERGED, DEFAULTS_KINDS), (NOT_DECODED, tuple(kinds))):
        for prefix in table:
            if not any(covered(r["path"], {prefix: ""}) is not None for k in where for r in kinds[k]):
                raise SystemExit(f"crd-gen: {prefix} names no field of {', '.join(where)}")
    return kinds


def render_fields(kinds):
    out = ['{\n  "about": "Written by hack/crd-gen.py from the CRD schemas; edit that file and run it, not this one."']
    for kind, rows in kinds.items():
        out.append(f',\n  "{kind}": [\n' + ",\n".join("    " + json.dumps(r, ensure_ascii=False) for r in rows) + "\n  ]")
    return "".join(out) + "\n}\n"


# The docs/api.md section that describes the fields under each path (the
# longest match counts); the rest are in the kind's own section.
DOC_SECTIONS = [
    ("spec.metricsSource", "### metricsSource"),
    ("spec.cpu", "### cpu / memory"), ("spec.memory", "### cpu / memory"),
    ("spec.containerPolicies[].cpu", "### cpu / memory"), ("spec.containerPolicies[].memory", "### cpu / memory"),
    ("spec.updateStrategy", "### updateStrategy"),
    ("spec.lifecycle", "### lifecycle"),
]
DOC_KIND_SECTIONS = {"AttunePolicy": "### Top level", "AttuneDefaults": "## AttuneDefaults",
                     "AttuneNamespaceDefaults": "## AttuneDefaults"}


def doc_section(text, heading):
    """The body under the first heading line that starts with `heading`, up to the next heading of its level or above."""
    level = heading.split(" ")[0]
    lines = text.split("\n")
    start = next(i for i, line in enumerate(lines) if line.startswith(heading))
    end = next((i for i in range(start + 1, len(lines))
                if re.match(r"#+ ", lines[i]) and len(lines[i].split(" ")[0]) <= len(level)), len(lines))
    return "\n".join(lines[start:end])


def undocumented(kinds):
    """Fields whose JSON name does not appear, as a word, in the docs/api.md section that describes them."""
    text = API_DOC.read_text(encoding="utf-8")
    missing = []
    for kind, rows in kinds.items():
        for row in rows:
            path = row["path"]
            if any(path == prefix for prefix, _ in DOC_SECTIONS):
                continue  # the section is the description
            under = [(p, h) for p, h in DOC_SECTIONS if path.startswith(p + ".")]
            heading = max(under)[1] if under else DOC_KIND_SECTIONS[kind]
            name = path.rsplit(".", 1)[-1].removesuffix("[]")
            if not re.search(rf"(?<![A-Za-z0-9_]){re.escape(name)}(?![A-Za-z0-9_])", doc_section(text, heading)):
                missing.append(f"{kind} {path} (docs/api.md \"{heading}\")")
    return sorted(set(missing))


def render(doc):
    return HEADER + yaml.safe_dump(doc, sort_keys=False, width=120, allow_unicode=True)


def main():
    check = "--check" in sys.argv[1:]
    crds = all_crds()
    kinds = field_table(crds)
    if "--check-docs" in sys.argv[1:]:
        missing = undocumented(kinds)
        if missing:
            print("crd-gen: docs/api.md does not describe:\n  " + "\n  ".join(missing), file=sys.stderr)
            return 1
        return 0
    outputs = [(out / name, render(doc)) for name, doc in crds.items() for out in OUTS]
    outputs.append((FIELDS, render_fields(kinds)))
    stale = []
    for path, text in outputs:
        if check:
            if not path.exists() or path.read_text(encoding="utf-8") != text:
                stale.append(str(path.relative_to(ROOT)))
        else:
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(text, encoding="utf-8")
    if stale:
        print("crd-gen: out of date (run hack/crd-gen.py): " + ", ".join(stale), file=sys.stderr)
        return 1
    return 0

if __name__ == "__main__":
    sys.exit(main())
