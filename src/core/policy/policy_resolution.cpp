#include "attune/core/policy/policy_resolution.hpp"

#include <vector>

namespace attune::core {

std::string_view to_string(ResolutionFailure f) noexcept {
    switch (f) {
    case ResolutionFailure::None: return "";
    case ResolutionFailure::DefaultsNotSynced: return "defaults_not_synced";
    case ResolutionFailure::InvalidPolicy: return "invalid_policy";
    case ResolutionFailure::InvalidDefaults: return "invalid_defaults";
    case ResolutionFailure::ValidationFailed: return "policy_validation_failed";
    }
    return "";
}

namespace {

PolicyResolution failed(ResolutionFailure f, std::string message) {
    PolicyResolution out;
    out.failure = f;
    out.message = std::move(message);
    return out;
}

// The tier's decoded objects, or the first that does not decode.
std::optional<std::string> collect(std::span<const DefaultsInput> tier, std::string_view kind,
                                   std::vector<AttuneDefaults>& out) {
    for (const auto& d : tier) {
        if (!d.defaults) return std::string(kind) + " " + d.name + ": " + d.error;
        out.push_back(*d.defaults);
    }
    return std::nullopt;
}

}  // namespace

PolicyResolution resolve_effective_policy(const PolicyResolutionInput& in) {
    if (!in.defaults_synced)
        // As the Go original fails on a list error: an empty cache proves no
        // tier is empty.
        return failed(ResolutionFailure::DefaultsNotSynced,
                      "Failed to fetch defaults: the AttuneDefaults and AttuneNamespaceDefaults caches have not "
                      "finished their first list");
    if (!in.policy)
        return failed(ResolutionFailure::InvalidPolicy,
                      in.policy_error.empty() ? "the policy does not decode" : in.policy_error);
    std::vector<AttuneDefaults> cluster, namespaced;
    if (auto err = collect(in.cluster_defaults, "AttuneDefaults", cluster))
        return failed(ResolutionFailure::InvalidDefaults, std::move(*err));
    if (auto err = collect(in.namespace_defaults, "AttuneNamespaceDefaults", namespaced))
        return failed(ResolutionFailure::InvalidDefaults, std::move(*err));
    auto merged = merge_effective_policy(*in.policy, cluster, namespaced);
    if (auto err = validate_effective_policy(merged, in.validation))
        return failed(ResolutionFailure::ValidationFailed, err->message);
    PolicyResolution out;
    out.effective = std::move(merged);
    return out;
}

}  // namespace attune::core
