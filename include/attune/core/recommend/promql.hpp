#pragma once
// PromQL for the recommender, the throttling evaluator and SLO guardrails,
// built as text from plain values. Every value that comes from the cluster
// (namespace, workload, pod and container names) is escaped here, so no
// PromQL can be injected through a name: string values are quoted as PromQL
// (Go) string literals, regex values are RE2-quoted first.
//
// Usage queries are batched: one query per workload and resource returns one
// series per container (never one query per container).
#include <chrono>
#include <span>
#include <string>
#include <string_view>

#include "attune/core/policy/resource_tuning.hpp"  // ResourceKind
#include "attune/core/util/result.hpp"
#include "attune/core/policy/source_options.hpp"  // PodAggregation

namespace attune::core {

// The inside of a PromQL "..." literal: \ " and control characters escaped
// (\n \r \t, others as \xHH); other bytes, UTF-8 included, pass through.
std::string promql_string_escape(std::string_view s);

// `s` as a regex that matches exactly `s` (RE2 metacharacters \.+*?()|[]{}^$
// backslash-quoted). Still needs promql_string_escape to go between quotes.
std::string regex_quote(std::string_view s);

// PromQL duration: "1h", "5m", "30s" (the largest whole unit). <= 0: "5m".
std::string promql_duration(std::chrono::seconds d);

// --- Which pods belong to a workload --------------------------------------

// The live pods' names, sorted, de-duplicated and regex-quoted, joined with
// "|". More than `max_pods`: an evenly spaced sample of max_pods names over
// the sorted list (a bounded query for very large workloads).
std::string pod_regex_from_names(std::span<const std::string> names, std::size_t max_pods);

// The names a workload's controller gives its pods: the regex-quoted owner
// name and the kind's suffix (Deployment "-<rs hash>-<5>", StatefulSet
// "-<ordinal>", DaemonSet/ReplicaSet "-<5>", Job "-[<index>-]<5>", CronJob
// "-<minutes>-[<index>-]<5>"). Error "unknown_kind" for other kinds.
Result<std::string> pod_regex_for_owner(std::string_view kind, std::string_view name);

inline constexpr std::size_t kMaxPodsInMetricsQuery = 100;

// The regex a usage query uses for a workload. The owner regex by default,
// because it also matches pods that are gone (history across rollouts).
// The live names instead when there are more than `max_pods` (sampled, so
// the query stays bounded) or when the owner name is so long that the
// generated pod names are truncated (the owner regex would match nothing);
// with no live names then, the truncated prefix followed by ".*".
Result<std::string> workload_pod_regex(std::string_view kind, std::string_view name,
                                       std::span<const std::string> live_pod_names,
                                       std::size_t max_pods = kMaxPodsInMetricsQuery);

// --- Usage (range) queries -------------------------------------------------

struct UsageQuerySpec {
    std::string namespace_;
    std::string pod_regex;  // a regex (from the builders above), not yet string-escaped
    PodAggregation aggregation = PodAggregation::Max;
    std::chrono::seconds rate_window{300};
    std::string cpu_recording_metric;     // used instead of rate(container_cpu_usage_seconds_total), not wrapped
    std::string memory_recording_metric;  // used instead of container_memory_working_set_bytes
};

// cpu:    max by (container) (rate(container_cpu_usage_seconds_total{namespace="NS",pod=~"RE",
//         container!="",container!="POD"}[W]))
// memory: max by (container) (container_memory_working_set_bytes{...same matchers...})
// Avg: avg by (container); None: max by (pod, container), i.e. every pod's
// series kept (one per pod and container, duplicate scrapes folded) and
// grouped by container when decoded. A recording metric replaces the inner
// expression as given (no rate()), with the same matchers and aggregation.
// Error "invalid_recording_metric" when a recording metric is not a metric
// name (^[a-zA-Z_:][a-zA-Z0-9_:]*$).
Result<std::string> usage_query(ResourceKind resource, const UsageQuerySpec& spec);

// True for a valid PromQL metric name.
bool is_metric_name(std::string_view s);

// The CPU throttling ratio per pod over `window`, for the safety monitor and
// the lifecycle's post-pause analysis (an instant query):
//   sum by (pod) (rate(container_cpu_cfs_throttled_periods_total{M}[W]))
//     / sum by (pod) (rate(container_cpu_cfs_periods_total{M}[W]))
// M = namespace="NS",pod=~"RE",container!="",container!="POD". A pod with no
// CFS periods gives NaN, which the response decoder drops and counts.
std::string throttling_ratio_query(std::string_view ns, std::string_view pod_regex, std::chrono::seconds window);

// The lifecycle's throttling analysis (docs/lifecycle.md) takes the two counters'
// increases apart, per pod, so that "no series" and "no periods" stay
// distinguishable (core/lifecycle/throttling_analysis.hpp):
//   sum(increase(container_cpu_cfs_{throttled_,}periods_total{M}[W]))
// M as above, with pod="POD" exactly.
std::string cfs_periods_increase_query(std::string_view ns, std::string_view pod, std::chrono::seconds window,
                                       bool throttled);

// --- SLO guardrails ---------------------------------------------------------

struct GuardrailVars {
    std::string namespace_;
    std::string workload;
    std::string pod;
};

// Substitutes {{ .Namespace }}, {{ .WorkloadName }} and {{ .PodName }} (Go
// template actions, with or without inner spaces, "{{-"/"-}}" trimming
// honoured) with promql_string_escape'd values: a name cannot leave the
// string literal it is placed in. Any other action is error
// "invalid_guardrail_template", as the Go template would fail on it.
Result<std::string> render_guardrail_query(std::string_view query_template, const GuardrailVars& vars);

// Confines a query to one namespace: every vector selector gets the matcher
// namespace="NS" (bare metric names get {namespace="NS"}, existing matcher
// sets get it first). A selector that already names another namespace then
// matches nothing, because matchers on one label are ANDed. Use it where a
// query must not read other namespaces' series; note that it also confines
// series whose namespace label is the exporter's (an ingress controller's
// metrics carry the app namespace in exported_namespace, not namespace).
// Error "invalid_promql" for an unterminated string, brace or bracket.
Result<std::string> force_namespace(std::string_view query, std::string_view ns);

}  // namespace attune::core
