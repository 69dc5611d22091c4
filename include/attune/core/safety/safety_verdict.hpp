#pragma once
// The safety monitor's verdict on one resized pod during
// safetyObservationPeriod (default 5m), from the pod now, its stored
// originals, the resize time, now and optional measurements (docs/safety.md).
// In order, the first that holds wins:
//   oomkill    a tracked container was OOMKilled after the resize
//   restart    a tracked container restarted 2 or more times since
//   notready   the pod's Ready condition is False
//   throttle   CPU throttling ratio > 0.5, once a 5-minute grace has passed
//   slo:<name> an sloGuardrails breach (a failed query passes)
// Otherwise Keep while the period runs, then Done.
#include <chrono>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "attune/core/model/capabilities.hpp"
#include "attune/core/safety/original_values.hpp"
#include "attune/core/resize/plan_resize.hpp"
#include "attune/core/util/timestamp.hpp"

namespace attune::core {

inline constexpr std::chrono::seconds kDefaultSafetyObservationPeriod{300};
inline constexpr std::chrono::seconds kThrottleGrace{300};
inline constexpr double kThrottleRevertRatio = 0.5;

struct SloMeasurement {
    std::string name;
    bool below = false;  // comparison: above (default) breaches when value > threshold, below when value < threshold
    double threshold = 0;
    std::chrono::seconds evaluation_window{300};  // checked only this long after the resize
    // The query's result; nullopt when the query failed or returned nothing:
    // that passes (docs/safety.md#the-verdict-judge_safety).
    std::optional<double> value;
};

struct SafetyInputs {
    Timestamp resized_at;
    Timestamp now;
    std::chrono::seconds observation_period{kDefaultSafetyObservationPeriod};
    std::optional<double> throttling_ratio;  // throttled / total CFS periods over the window; nullopt: no data
    std::vector<SloMeasurement> slo;
};

enum class SafetyVerdictKind { Keep, Revert, Done };

struct SafetyVerdict {
    SafetyVerdictKind kind = SafetyVerdictKind::Keep;
    std::string reason;  // Revert: oomkill | restart | notready | throttle | slo:<name>
    std::string message;
};

SafetyVerdict judge_safety(const Pod& pod, const OriginalValues& originals, const SafetyInputs& in);

// The revert: back to the stored originals through plan_resize, with the
// memory clamp on (reverts keep allow_in_place_memory_limit_decrease false on
// every minor, docs/safety.md#the-revert-plan_revert) and RequestsAndLimits, so limits come back too where they were
// recorded. A limit key the resize added cannot be removed in place and
// stays. A no_change Skip means the pod already has its originals.
PlanOutcome plan_revert(const Pod& live, const OriginalValues& originals, const Capabilities& caps,
                        const PlanOptions& options);

}  // namespace attune::core
