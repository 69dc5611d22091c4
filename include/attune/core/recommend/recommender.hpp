#pragma once
// The recommender: from one container's usage history, its live resources
// and the effective tuning, to recommended requests (and limits under
// RequestsAndLimits) with every step recorded (docs/api.md#attunepolicy-status).
//
// The chain, per resource, in the Go original's order and figures:
//   rawPercentile     max(overall pXX, pXX of each UTC hour-of-day bucket)
//   afterOverhead     x (1 + overhead/100)
//   afterBurst        x (1 + log2(max/p95) x burstSensitivity) when max/p95 > 3
//   afterConfidence   x (1 + (1 - c)^2), c = clamp(min(spanDays, sqrt(points/24)) / 7, 0, 1)
//   afterBounds       clamped to [minAllowed, maxAllowed]
//   afterChangeFilter a change under 10% keeps the current value; a larger
//                     one is capped at maxIncrease/maxDecreasePercent
//   final             allowDecrease=false holds a decrease at the current value
// Rounding: every cpu figure is whole millicores (rounded up, DecimalSI),
// every memory figure whole bytes (rounded up, BinarySI), so the canonical
// strings are "250m", "1", "128Mi", "139586437".
#include <optional>
#include <span>
#include <string>
#include <variant>
#include <vector>

#include "attune/core/model/pod_model.hpp"
#include "attune/core/policy/resource_tuning.hpp"
#include "attune/core/recommend/usage_profile.hpp"

namespace attune::core {

inline constexpr double kMinChangePercent = 10.0;

// The explanation of one resource: `explanation.{cpu,memory}` (docs/recommender.md#the-chain).
struct ResourceExplanation {
    Quantity raw_percentile;
    double overhead = 0;  // percent
    Quantity after_overhead;
    double burst_factor = 1;
    Quantity after_burst;
    double confidence = 0;  // the profile's, 0..1
    double confidence_factor = 1;
    Quantity after_confidence;
    Quantity bound_min, bound_max;
    std::string bounds_applied;  // "" | "min" | "max"
    Quantity after_bounds;
    double min_change_percent = kMinChangePercent;
    double max_change_percent = 0;      // the cap for the direction of the change
    std::string change_filter_applied;  // "" | "min_change_filtered" | "max_change_capped"
    Quantity after_change_filter;
    Quantity final;
    std::string final_adjustment;  // set by allowDecrease, memoryFromCpuRatio, the VPA source
};

// current / recommended: {cpuRequest, cpuLimit, memoryRequest, memoryLimit};
// zero means absent (the status writes "0", as the Go original does).
struct ResourceValues {
    Quantity cpu_request, cpu_limit, memory_request, memory_limit;
    friend bool operator==(const ResourceValues&, const ResourceValues&) = default;
};

ResourceValues resource_values_of(const ResourceRequirements& live);

// A decrease held back by allowDecrease=false: the caller emits the Normal
// Event DecreaseSuppressed with `message`.
struct SuppressedDecrease {
    ResourceKind resource = ResourceKind::Cpu;
    Quantity current;
    Quantity unclamped;  // what the chain wanted
    std::string message;
};

struct ContainerRecommendation {
    std::string name;
    ResourceValues current;
    ResourceValues recommended;
    double confidence = 0;   // mean of the cpu and memory profiles' confidence
    int data_points = 0;     // cpu points + memory points
    int cpu_points = 0, memory_points = 0;
    int non_finite_dropped_cpu = 0, non_finite_dropped_memory = 0;  // for attune_nan_inf_samples_total
    double last_updated = 0;                     // "now", seconds since the epoch
    std::optional<double> last_data_time;        // newest sample used, seconds since the epoch
    std::optional<ResourceExplanation> cpu;      // absent: cpu kept at current (too few points)
    std::optional<ResourceExplanation> memory;
    std::vector<SuppressedDecrease> suppressed;
};

// Fewer than minimumDataPoints for both resources: no recommendation.
struct InsufficientData {
    std::string name;
    int cpu_points = 0, memory_points = 0;
    int non_finite_dropped_cpu = 0, non_finite_dropped_memory = 0;
    int required = 0;
    int collected() const { return cpu_points > memory_points ? cpu_points : memory_points; }
};

using ContainerOutcome = std::variant<ContainerRecommendation, InsufficientData>;

struct RecommenderSettings {
    ResourceTuning cpu = builtin_tuning(ResourceKind::Cpu);
    ResourceTuning memory = builtin_tuning(ResourceKind::Memory);
    int minimum_data_points = 48;
    std::size_t max_samples = kMaxProfileSamples;  // per resource and container; 0: no cap
};

struct ContainerUsage {
    std::string name;
    std::span<const UsageSample> cpu;     // cores
    std::span<const UsageSample> memory;  // bytes
    ResourceRequirements current;         // live requests/limits
};

// The Prometheus path: profiles from the samples, then the chain for each
// resource that has minimumDataPoints, memoryFromCpuRatio, allowDecrease and
// the RequestsAndLimits limit scaling.
ContainerOutcome recommend_container(const ContainerUsage& usage, const RecommenderSettings& settings, double now);

// One resource's chain from a profile (the Prometheus path) against its
// current request. Exposed for the table tests.
ResourceExplanation explain_resource(ResourceKind kind, const UsageProfile& profile, const Quantity& current,
                                     const ResourceTuning& tuning);

// A single figure instead of a history (the VPA source): confidence 1,
// one data point per resource given, no burst, then the same chain. Absent
// resources stay at current. finalAdjustment notes `source` ("source: VPA").
struct PointEstimate {
    std::string name;
    std::optional<Quantity> cpu;
    std::optional<Quantity> memory;
    ResourceRequirements current;
};
ContainerRecommendation recommend_from_point(const PointEstimate& point, const RecommenderSettings& settings,
                                             double now, const std::string& source);

// RequestsAndLimits: the new limit keeps the live limit/request ratio.
// No live request or limit: zero (no limit, so the QoS class cannot change).
Quantity scale_limit(ResourceKind kind, const Quantity& current_request, const Quantity& current_limit,
                     const Quantity& new_request);

// Stale rule: the newest sample is older than two query steps (at least
// ten minutes: a step of alignment slack plus one missed step). No sample at
// all is stale too. A recommendation carried over from an earlier cycle
// because this cycle's query failed is stale by the caller's decision.
bool is_stale(std::optional<double> last_data_time, double now, double query_step_seconds);

// The workload entry of status.recommendations[] (without workload/kind,
// which the caller knows).
struct WorkloadRecommendation {
    std::vector<ContainerRecommendation> containers;
    std::vector<InsufficientData> insufficient;
    std::optional<double> last_data_time;  // newest over the containers
    bool stale = false;
    int max_data_points = 0;  // largest cpu or memory point count: status.workloads.dataPointsCollected
};

WorkloadRecommendation recommend_workload(std::span<const ContainerUsage> containers,
                                          const RecommenderSettings& settings, double now,
                                          double query_step_seconds);

// The same from outcomes already computed (containers tuned one by one, as
// containerPolicies may): containers in the given order, lastDataTime the
// newest, maxDataPoints the largest count, stale by is_stale.
WorkloadRecommendation collect_workload(std::vector<ContainerOutcome> outcomes, double now,
                                        double query_step_seconds);

// Ready=False InsufficientData message: "Collecting data: N of M points,
// about T remaining", T = (M - N) query steps in whole minutes ("3h29m",
// "5m"), or "under a minute remaining".
std::string insufficient_data_message(int collected, int required, double query_step_seconds);

}  // namespace attune::core
