#pragma once
// A workload that a GitOps tool keeps in sync with Git. Patching its pod
// template makes the live object differ from Git: the tool reports it out of
// sync, or puts Git's resources back on its next sync (docs/resize.md#template-persistence-template_persistence).
// The markers are those each tool writes on the objects it applies:
//  - Argo CD: the annotation argocd.argoproj.io/tracking-id (annotation
//    tracking), or the label argocd.argoproj.io/instance (a custom tracking
//    label). The older default label app.kubernetes.io/instance is not
//    read: Helm charts set it too, so it does not say who applies the object.
//  - Flux: the label kustomize.toolkit.fluxcd.io/name (a Kustomization) or
//    helm.toolkit.fluxcd.io/name (a HelmRelease).
#include <optional>
#include <string>
#include <string_view>

#include "attune/core/policy/annotations.hpp"  // StringMap
#include "attune/core/resize/resize_events.hpp"

namespace attune::core {

struct GitOpsManager {
    std::string tool;    // "Argo CD" | "Flux"
    std::string marker;  // what says so, e.g. "label kustomize.toolkit.fluxcd.io/name=apps"
    friend bool operator==(const GitOpsManager&, const GitOpsManager&) = default;
};

// The tool whose marker the workload carries, Argo CD's first; nullopt when none.
std::optional<GitOpsManager> gitops_manager(const StringMap& annotations, const StringMap& labels);

// The Warning emitted after a template patch of such a workload (deduplicated).
EventIntent gitops_drift_event(std::string_view kind, std::string_view name, const GitOpsManager& by);

}  // namespace attune::core
