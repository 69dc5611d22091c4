#pragma once
// Datadog metric queries for the recommender's Datadog source
// (docs/recommender.md#datadog), built as text from plain values with the
// shape the Go Attune v0.1.23 sends to GET /api/v1/query: one query per
// resource and workload, grouped by container, averaged over a rollup.
//
//   avg:kubernetes.cpu.usage.total{kube_namespace:NS,pod_name:PREFIX*} by {kube_container_name}.rollup(avg,N)
//   avg:kubernetes.memory.working_set{...same filter...} by {kube_container_name}.rollup(avg,N)
//
// Datadog's query language has no quoting for tag values, so a value that
// could end the filter is refused rather than escaped: namespace and pod
// prefix must be Kubernetes name characters.
#include <chrono>
#include <string>
#include <string_view>

#include "attune/core/policy/resource_tuning.hpp"  // ResourceKind
#include "attune/core/util/result.hpp"

namespace attune::core {

// The Datadog Agent's kubelet metrics: CPU in nanocores, memory in bytes.
inline constexpr std::string_view kDatadogCpuMetric = "kubernetes.cpu.usage.total";
inline constexpr std::string_view kDatadogMemoryMetric = "kubernetes.memory.working_set";
// The tag the answer's series are grouped by: one series per container.
inline constexpr std::string_view kDatadogContainerTag = "kube_container_name";
// What one point of kDatadogCpuMetric is worth in cores.
inline constexpr double kNanocoresPerCore = 1e9;

struct DatadogQuerySpec {
    std::string namespace_;
    std::string pod_prefix;            // pod_name:<prefix>*; "" matches every pod of the namespace
    std::chrono::seconds rollup{300};  // .rollup(avg,N): at least 60 (Datadog's smallest useful interval)
};

// The prefix every pod of a workload's controller starts with: the owner
// name and "-", cut where generateName cuts a long base (58 characters), so
// that truncated pod names still match. StatefulSet pods are <name>-<ordinal>, never cut.
std::string datadog_pod_prefix(std::string_view kind, std::string_view name);

// Error "invalid_tag_value" when the namespace is empty or the namespace or
// the prefix holds a character other than a-z, 0-9, '-' and '.'.
Result<std::string> datadog_usage_query(ResourceKind resource, const DatadogQuerySpec& spec);

}  // namespace attune::core
