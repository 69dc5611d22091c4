#pragma once
// A policy's Ready and ScaledToZero conditions (docs/api.md#conditions)
// from what its pass saw. Pure; the aggregator stamps the transition time.
#include <attune/controller/status_aggregation.hpp>
#include <attune/core/policy/condition.hpp>

#include <optional>
#include <string>

namespace attune::controller {

inline constexpr std::string_view kConditionReady = "Ready";
inline constexpr std::string_view kConditionScaledToZero = "ScaledToZero";

// Counted over the managed workloads that reported in the pass.
struct PassFacts {
    int managed = 0;
    int matched_only = 0;  // matched, but outranked by another policy or opted out
    int idle = 0;
    int scaleable = 0;       // Deployments, StatefulSets, ReplicaSets
    int scaleable_idle = 0;  // of those, idle
    int hpa_idle = 0;
    int manual_idle = 0;
    int with_recommendations = 0;
    int source_failures = 0;
    std::string source_failure;  // the first failure's message
    int invalid = 0;
    std::string invalid_message;
    int collecting = 0;
    std::string collecting_message;  // of the collecting workload with the most points
    int max_points = 0;
};

// In order: InvalidConfig, Paused, PrometheusUnavailable (no usable source),
// WorkloadDiscoveryFailed, NoWorkloadsFound (the policy's own state); then
// Monitoring when anything has recommendations (or Observe, or every target
// is idle), PrometheusUnavailable when reads failed, InvalidConfig when a
// workload's data cannot be used, InsufficientData while collecting.
// observedGeneration is the policy's generation; no transition time.
core::Condition ready_condition(const PolicyContext& policy, const PassFacts& facts);

// True only when every scaleable target is idle (and there is one); nullopt
// means the condition is removed. Ready is not touched by it.
std::optional<core::Condition> scaled_to_zero_condition(const PolicyContext& policy, const PassFacts& facts);

}  // namespace attune::controller
