#include "attune/core/overlay.hpp"

namespace attune::core {

ResourceRequirements overlay_requirements(const ResourceRequirements& base, const ResourceRequirements& overlay) {
    ResourceRequirements out = base;
    for (const auto& [k, q] : overlay.requests) out.requests.insert_or_assign(k, q);
    for (const auto& [k, q] : overlay.limits) out.limits.insert_or_assign(k, q);
    return out;
}

FrozenBaseline freeze_baseline(const Pod& live) {
    FrozenBaseline b;
    for (const auto& c : live.containers) b.containers.emplace(c.name, c.resources);
    for (const auto& c : live.init_containers)
        if (c.is_native_sidecar()) b.containers.emplace(c.name, c.resources);
    return b;
}

result<ContainerResourceMap> apply_manual_overlay(const FrozenBaseline& baseline, const ContainerResourceMap& overlay) {
    ContainerResourceMap out = baseline.containers;
    for (const auto& [name, rr] : overlay) {
        auto it = out.find(name);
        if (it == out.end()) {
            return make_error("unknown_container", "manual recommendation names container \"" + name +
                                                       "\", which the frozen baseline does not have");
        }
        it->second = overlay_requirements(it->second, rr);
    }
    return out;
}

}  // namespace attune::core
