#include "attune/core/policy/overlay.hpp"

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

Result<ContainerResourceMap> apply_manual_overlay(const FrozenBaseline& baseline, const ContainerResourceMap& overlay) {
    ContainerResourceMap out = baseline.containers;
    for (const auto& [name, rr] : overlay) {
        auto it = out.find(name);
        if (it == out.end()) {
            return make_error("unknown_container", "manual recommendation names container \"" + name +
                                                       "\", which the frozen baseline does not have");
        }
        it->second = overlay_requirements(it->second, rr);
        // A request above its limit would be refused by the apiserver; say
        // so here, naming which side the overlay set.
        for (const auto& [res, req] : it->second.requests) {
            const auto lim = it->second.limits.find(res);
            if (lim == it->second.limits.end() || !(lim->second < req)) continue;
            const bool limit_inherited = rr.limits.find(res) == rr.limits.end();
            const bool request_inherited = rr.requests.find(res) == rr.requests.end();
            return make_error("invalid_overlay",
                              "manual recommendation for container \"" + name + "\": " + res + " request " +
                                  req.to_string() + (request_inherited ? " (live)" : "") + " exceeds its limit " +
                                  lim->second.to_string() + (limit_inherited ? " (live)" : ""));
        }
    }
    return out;
}

}  // namespace attune::core
