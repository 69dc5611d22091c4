#include "attune/core/recommend/datadog_query.hpp"

#include <algorithm>

namespace attune::core {

namespace {

// generateName keeps 58 characters of the base (63 minus the 5 random ones).
constexpr std::size_t kGeneratedBaseLimit = 58;
constexpr std::chrono::seconds kMinRollup{60};

bool tag_value_ok(std::string_view v) {
    return std::all_of(v.begin(), v.end(),
                       [](char c) { return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-' || c == '.'; });
}

}  // namespace

std::string datadog_pod_prefix(std::string_view kind, std::string_view name) {
    std::string prefix = std::string(name) + "-";
    if (kind != "StatefulSet" && prefix.size() > kGeneratedBaseLimit) prefix.resize(kGeneratedBaseLimit);
    return prefix;
}

Result<std::string> datadog_usage_query(ResourceKind resource, const DatadogQuerySpec& spec) {
    if (spec.namespace_.empty() || !tag_value_ok(spec.namespace_))
        return make_error("invalid_tag_value", "namespace \"" + spec.namespace_ + "\" cannot be a Datadog tag value");
    if (!tag_value_ok(spec.pod_prefix))
        return make_error("invalid_tag_value",
                          "pod name prefix \"" + spec.pod_prefix + "\" cannot be a Datadog tag value");
    const auto metric = resource == ResourceKind::Cpu ? kDatadogCpuMetric : kDatadogMemoryMetric;
    const auto rollup = std::max(spec.rollup, kMinRollup);
    return "avg:" + std::string(metric) + "{kube_namespace:" + spec.namespace_ + ",pod_name:" + spec.pod_prefix +
           "*} by {" + std::string(kDatadogContainerTag) + "}.rollup(avg," + std::to_string(rollup.count()) + ")";
}

}  // namespace attune::core
