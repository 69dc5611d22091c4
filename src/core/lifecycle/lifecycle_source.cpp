#include "attune/core/lifecycle/lifecycle_source.hpp"

#include "attune/core/resize/resize_targets.hpp"

namespace attune::core {

LifecycleRecommendation lifecycle_recommendation(const EffectivePolicy& policy, const WorkloadRecommendation& rec) {
    LifecycleRecommendation out;
    if (const auto* manual = std::get_if<ManualSource>(&policy.metrics.provider)) {
        out.source = RecommendationSource::Manual;
        out.containers = manual->containers;
        return out;
    }
    // Datadog and CloudWatch are metrics-backed like Prometheus: the status enum has no name of their own.
    out.source = std::holds_alternative<VpaSource>(policy.metrics.provider) ? RecommendationSource::Vpa
                                                                             : RecommendationSource::Prometheus;
    for (auto& t : resize_targets(rec, policy).targets) out.containers.emplace(t.name, std::move(t.resources));
    return out;
}

}  // namespace attune::core
