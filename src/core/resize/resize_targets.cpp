#include "attune/core/resize/resize_targets.hpp"

namespace attune::core {
namespace {

void put(ResourceList& list, std::string_view name, const Quantity& q) {
    if (q.sign() > 0) list.insert_or_assign(std::string(name), q);
}

}  // namespace

ResizeTargets resize_targets(const WorkloadRecommendation& rec, const EffectivePolicy& policy) {
    ResizeTargets out;
    out.targets.reserve(rec.containers.size());
    auto limits_too = [&](std::string_view container, ResourceKind kind) {
        return policy.tuning_for(container, kind).controlled_values == ControlledValues::RequestsAndLimits;
    };
    for (const auto& c : rec.containers) {
        ContainerTarget t;
        t.name = c.name;
        put(t.resources.requests, kCpu, c.recommended.cpu_request);
        put(t.resources.requests, kMemory, c.recommended.memory_request);
        if (limits_too(c.name, ResourceKind::Cpu)) put(t.resources.limits, kCpu, c.recommended.cpu_limit);
        if (limits_too(c.name, ResourceKind::Memory)) put(t.resources.limits, kMemory, c.recommended.memory_limit);
        if (c.memory && c.memory->raw_percentile.sign() > 0) t.memory_usage = c.memory->raw_percentile;
        if (t.resources.requests.empty() && t.resources.limits.empty()) continue;
        if (!t.resources.limits.empty()) out.controlled_values = ControlledValues::RequestsAndLimits;
        out.targets.push_back(std::move(t));
    }
    return out;
}

bool skip_is_reported(const ResizeHeld& held, const WorkloadRecommendation& rec) {
    if (held.reason != "no_change") return true;
    // decide_resize adds these Events exactly when the clamp or the floor cancelled a change.
    for (const auto& e : held.events)
        if (e.reason == kEventMemoryLimitClamped || e.reason == kEventMemoryLimitUsageFloor) return true;
    for (const auto& c : rec.containers)
        for (const auto* e : {c.cpu ? &*c.cpu : nullptr, c.memory ? &*c.memory : nullptr})
            if (e && e->change_filter_applied == "min_change_filtered") return true;
    return false;
}

}  // namespace attune::core
