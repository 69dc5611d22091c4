#pragma once
// What the executor asks plan_resize for, from a workload's recommendation
// (docs/resize.md): per container, the recommended requests, and the
// recommended limits where the recommendation sets one (a zero figure means
// "absent": the recommender writes "0" for a limit the pod does not have).
// The usage floor on a memory-limit decrease reads the memory chain's raw
// percentile as the observed working set.
//
// controlledValues is per resource, and containerPolicies may set it per
// container; plan_resize takes one value for the pod. A limit is therefore
// targeted only where that container's resource is RequestsAndLimits, and
// the pod is planned RequestsAndLimits when any target names a limit
// (RequestsOnly otherwise), so a RequestsOnly limit is never moved.
#include <vector>

#include "attune/core/resize/plan_resize.hpp"
#include "attune/core/policy/policy.hpp"
#include "attune/core/recommend/recommender.hpp"
#include "attune/core/resize/resize_gates.hpp"

namespace attune::core {

struct ResizeTargets {
    std::vector<ContainerTarget> targets;
    ControlledValues controlled_values = ControlledValues::RequestsOnly;
};

ResizeTargets resize_targets(const WorkloadRecommendation& rec, const EffectivePolicy& policy);

// Whether a held resize is reported (Event, history, metric). Every
// reason is, except a no_change that nothing caused: a no_change is reported
// (ResizeUnchanged, never the kubelet's ResizeDeferred) only when something
// cancelled a change the user would expect: the memory clamp, the usage
// floor, or the recommender's change filter holding a container at its
// current value. A pod that already sits at its recommendation is not news.
bool skip_is_reported(const ResizeHeld& held, const WorkloadRecommendation& rec);

}  // namespace attune::core
