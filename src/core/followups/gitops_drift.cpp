#include "attune/core/followups/gitops_drift.hpp"

namespace attune::core {

namespace {
struct Marker {
    std::string_view tool;
    bool annotation;  // else a label
    std::string_view key;
};
constexpr Marker kMarkers[] = {
    {"Argo CD", true, "argocd.argoproj.io/tracking-id"},
    {"Argo CD", false, "argocd.argoproj.io/instance"},
    {"Flux", false, "kustomize.toolkit.fluxcd.io/name"},
    {"Flux", false, "helm.toolkit.fluxcd.io/name"},
};
}  // namespace

std::optional<GitOpsManager> gitops_manager(const StringMap& annotations, const StringMap& labels) {
    for (const auto& m : kMarkers) {
        const auto& map = m.annotation ? annotations : labels;
        const auto it = map.find(m.key);
        if (it == map.end() || it->second.empty()) continue;
        return GitOpsManager{std::string(m.tool), std::string(m.annotation ? "annotation " : "label ") +
                                                      std::string(m.key) + "=" + it->second};
    }
    return std::nullopt;
}

EventIntent gitops_drift_event(std::string_view kind, std::string_view name, const GitOpsManager& by) {
    std::string note = std::string(kind) + " " + std::string(name) + " is applied by " + by.tool + " (" + by.marker +
                       "): its pod template now differs from Git, and " + by.tool +
                       " may report it out of sync or restore Git's resources on its next sync. Commit the new "
                       "resources to Git.";
    return EventIntent{"Warning", std::string(kEventGitOpsDrift), "template", std::move(note), true};
}

}  // namespace attune::core
