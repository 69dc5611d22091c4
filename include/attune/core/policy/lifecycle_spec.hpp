#pragma once
// spec.lifecycle of an AttunePolicy (docs/lifecycle.md): the progressive
// validation steps, the throttling analysis, persistence, and the
// revalidation token; plus the updateStrategy.canary shorthand. Decoded
// from JSON with errors that name the path, validated, and resolved into an
// EffectiveLifecycle where every field holds a concrete value.
// docs/lifecycle.md has the CRD schema and the defaults.
#include <chrono>
#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "attune/core/util/result.hpp"

namespace boost::json {
class value;
}  // namespace boost::json

namespace attune::core {

using Seconds = std::chrono::seconds;

enum class ThrottlingMode { AnyPod, PercentageOfPods, Average };
enum class OnMetricsUnavailable { Pass, Fail };
enum class PersistenceMode { AdmissionOnNextPodTemplateChange, TemplatePatch, Disabled };

std::string_view throttling_mode_name(ThrottlingMode m) noexcept;
std::string_view persistence_mode_name(PersistenceMode m) noexcept;

// ---- the spec as written (unset kept apart from set) ----

struct LifecycleStepSpec {
    unsigned percent = 0;
    std::optional<Seconds> pause;
    friend bool operator==(const LifecycleStepSpec&, const LifecycleStepSpec&) = default;
};

struct CpuThrottlingSpec {
    std::optional<bool> enabled;
    std::optional<double> threshold_fraction;
    std::optional<Seconds> window;
    std::optional<ThrottlingMode> mode;
    std::optional<unsigned> percentage_of_pods_threshold;
    std::optional<OnMetricsUnavailable> on_metrics_unavailable;
    friend bool operator==(const CpuThrottlingSpec&, const CpuThrottlingSpec&) = default;
};

struct LifecycleSpec {
    std::optional<std::vector<LifecycleStepSpec>> steps;
    std::optional<Seconds> initial_delay;
    std::optional<int> max_concurrent_resizes;
    std::optional<CpuThrottlingSpec> cpu_throttling;  // analysis.cpuThrottling
    std::optional<PersistenceMode> persistence_mode;  // persistence.mode
    std::string revalidation_token;                   // "" = none
    friend bool operator==(const LifecycleSpec&, const LifecycleSpec&) = default;
};

// updateStrategy.canary as the policy model decodes it (docs/api.md#attunepolicy-spec).
struct CanaryShorthand {
    unsigned percentage = 0;    // 1..100
    Seconds observation_period{0};  // 0: the default observation period
    bool auto_promote = false;
};

// Decodes and validates the spec.lifecycle object. `path` prefixes error
// messages ("spec.lifecycle"). Error code "invalid_lifecycle"; the message
// names the field at fault.
Result<LifecycleSpec> decode_lifecycle_spec(const boost::json::value& json, const std::string& path);

// The rules the CRD schema states (decode_lifecycle_spec applies them) (docs/lifecycle.md has the same rules as
// schema bounds and CEL): steps 1..10 of percent 1..100, strictly
// increasing, ending at 100; durations >= 0 (window 1m..1h); threshold in
// (0, 1]; percentageOfPodsThreshold 1..100; maxConcurrentResizes 1..50;
// revalidationToken <= 253 characters. Error code "invalid_lifecycle".
Result<LifecycleSpec> validate_lifecycle_spec(LifecycleSpec spec, const std::string& path);

// ---- the effective lifecycle ----

struct LifecycleStep {
    unsigned percent = 100;
    Seconds pause{0};
    // The canary shorthand without autoPromote: once this step's analysis
    // passed, hold at PausedAtStep until the hold is lifted.
    bool hold = false;
    friend bool operator==(const LifecycleStep&, const LifecycleStep&) = default;
};

struct CpuThrottlingAnalysis {
    bool enabled = false;
    double threshold_fraction = 0.25;  // a pod throttled in more than 25% of its periods is throttled
    Seconds window{300};               // the increase() window, and the settle gate's lookback
    ThrottlingMode mode = ThrottlingMode::AnyPod;
    unsigned percentage_of_pods_threshold = 50;  // PercentageOfPods: fail above 50% of the pods
    OnMetricsUnavailable on_metrics_unavailable = OnMetricsUnavailable::Fail;
    friend bool operator==(const CpuThrottlingAnalysis&, const CpuThrottlingAnalysis&) = default;
};

struct EffectiveLifecycle {
    std::vector<LifecycleStep> steps;  // never empty, ends at 100
    Seconds initial_delay{0};
    int max_concurrent_resizes = 1;
    // How long a pod may stay not Ready after reaching the candidate before
    // validation fails (not in the API; docs/lifecycle.md).
    Seconds readiness_timeout{600};
    CpuThrottlingAnalysis cpu_throttling;
    PersistenceMode persistence = PersistenceMode::AdmissionOnNextPodTemplateChange;
    std::string revalidation_token;
    friend bool operator==(const EffectiveLifecycle&, const EffectiveLifecycle&) = default;
};

// Used where no pause or observation period is given.
inline constexpr Seconds kDefaultObservationPeriod{300};

// Resolves the steps and defaults (docs/lifecycle.md "Defaults"):
//  - spec.lifecycle.steps when given (each pause defaults to 0);
//  - else the canary shorthand: [{percentage, observationPeriod (0 -> 5m)},
//    {100}], the first step holding unless autoPromote;
//  - else [{10, 5m}, {50, 5m}, {100, 5m}];
//  - maxConcurrentResizes: spec.lifecycle's, else `fallback_max_concurrent`
//    (updateStrategy.maxConcurrentResizes), else 1.
// `spec` must have passed validate_lifecycle_spec.
EffectiveLifecycle effective_lifecycle(const std::optional<LifecycleSpec>& spec,
                                       const std::optional<CanaryShorthand>& canary,
                                       std::optional<int> fallback_max_concurrent);

}  // namespace attune::core
