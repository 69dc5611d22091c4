#include "attune/core/model/pod_owner.hpp"

#include <algorithm>
#include <cctype>

namespace attune::core {
namespace {

// "<parent>-<suffix>" -> "<parent>" when the suffix is `suffix`; "" otherwise.
std::string strip_suffix(std::string_view name, std::string_view suffix) {
    if (suffix.empty() || name.size() <= suffix.size() + 1) return {};
    if (name.substr(name.size() - suffix.size()) != suffix) return {};
    if (name[name.size() - suffix.size() - 1] != '-') return {};
    return std::string(name.substr(0, name.size() - suffix.size() - 1));
}

std::optional<PodWorkload> parent_of(std::string_view child_kind, std::string_view child_name,
                                     std::string_view parent_kind, const std::string& guessed_parent,
                                     const OwnerLookup& lookup) {
    if (lookup.controller_of) {
        if (const auto cached = lookup.controller_of(child_kind, child_name)) {
            const auto& ctrl = *cached;
            if (ctrl && ctrl->kind == parent_kind) return PodWorkload{ctrl->kind, ctrl->name};
            return PodWorkload{std::string(child_kind), std::string(child_name)};
        }
    }
    if (!guessed_parent.empty() && lookup.exists && lookup.exists(parent_kind, guessed_parent))
        return PodWorkload{std::string(parent_kind), guessed_parent};
    return PodWorkload{std::string(child_kind), std::string(child_name)};
}

}  // namespace

std::optional<PodWorkload> resolve_pod_workload(const Pod& pod, const OwnerLookup& lookup) {
    const OwnerReference* ref = pod.controller_ref();
    if (!ref || ref->name.empty()) return std::nullopt;
    if (ref->kind == "ReplicaSet") {
        std::string guess;
        if (auto it = pod.labels.find("pod-template-hash"); it != pod.labels.end())
            guess = strip_suffix(ref->name, it->second);
        return parent_of("ReplicaSet", ref->name, "Deployment", guess, lookup);
    }
    if (ref->kind == "Job") {
        std::string guess;
        if (const auto dash = ref->name.rfind('-'); dash != std::string::npos) {
            const std::string_view suffix = std::string_view(ref->name).substr(dash + 1);
            if (!suffix.empty() && std::all_of(suffix.begin(), suffix.end(), [](char c) { return std::isdigit(static_cast<unsigned char>(c)); }))
                guess = ref->name.substr(0, dash);
        }
        return parent_of("Job", ref->name, "CronJob", guess, lookup);
    }
    return PodWorkload{ref->kind, ref->name};
}

}  // namespace attune::core
