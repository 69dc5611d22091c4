#pragma once
// HPA retune after a CPU resize (docs/resize.md#hpa-retune-hpa_retune: HPAs annotated
// attune.io/auto-tune=true). A utilisation target is relative to the pod's
// CPU request, so the target moves with the request to keep the same
// absolute scaling point:
//   new target = base x base_request / new_request
// where base is attune.io/original-target-cpu (recorded from the live
// target the first time) and base_request the pod CPU request that base
// was chosen for (the workload template's, which in-place resizes leave
// alone). Capped at 100, or at new_limit / new_request x 100 when a limit
// exists; at least 1. Only CPU Utilization targets (Resource and
// ContainerResource) move. HPAConflict is check_hpa_conflict's (idle.hpp).
#include <boost/json/object.hpp>
#include <boost/json/value.hpp>
#include <optional>
#include <string>
#include <variant>

#include "attune/core/model/quantity.hpp"

namespace attune::core {

struct HpaRetune {
    boost::json::object patch;  // JSON merge patch: resourceVersion precondition, annotation, whole spec.metrics
    int base_target = 0;
    int new_target = 0;
};

struct HpaRetuneSkip {
    // not_opted_in | no_cpu_utilization_target | invalid_original_target |
    // invalid_hpa | no_request | unchanged
    std::string reason;
    std::string message;
};

using HpaRetuneDecision = std::variant<HpaRetune, HpaRetuneSkip>;

// `hpa`: the autoscaling/v2 object as read. Requests and limit are the
// pod's CPU totals (sum over its containers).
HpaRetuneDecision retune_hpa(const boost::json::value& hpa, const Quantity& base_request, const Quantity& new_request,
                             const std::optional<Quantity>& new_limit);

// The capped target on its own (exposed for the table test).
int retuned_target(int base, const Quantity& base_request, const Quantity& new_request,
                   const std::optional<Quantity>& new_limit);

}  // namespace attune::core
