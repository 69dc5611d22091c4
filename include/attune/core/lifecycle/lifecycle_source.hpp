#pragma once
// What the lifecycle overlays on its frozen baseline (docs/lifecycle.md): for a
// Manual source the overlay's explicit keys as the policy gives them (so
// omitted keys are inherited from the baseline); for VPA and
// Prometheus the values the executor would target (resize_targets: requests,
// and limits where controlledValues is RequestsAndLimits).
#include "attune/core/lifecycle/lifecycle_attempt.hpp"
#include "attune/core/policy/policy.hpp"
#include "attune/core/recommend/recommender.hpp"

namespace attune::core {

LifecycleRecommendation lifecycle_recommendation(const EffectivePolicy& policy, const WorkloadRecommendation& rec);

}  // namespace attune::core
