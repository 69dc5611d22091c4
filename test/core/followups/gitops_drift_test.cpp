#include "attune/core/followups/gitops_drift.hpp"

#include <gtest/gtest.h>

namespace attune::core {
namespace {

TEST(GitOpsDrift, NamesTheToolFromTheMarkerItWrites) {
    struct Case {
        const char* what;
        StringMap annotations, labels;
        std::optional<GitOpsManager> want;
    } cases[] = {
        {"no marker", {{"deployment.kubernetes.io/revision", "3"}}, {{"app", "web"}}, std::nullopt},
        {"Helm's instance label alone says nothing", {}, {{"app.kubernetes.io/instance", "web"}}, std::nullopt},
        {"Argo CD annotation tracking",
         {{"argocd.argoproj.io/tracking-id", "shop:apps/Deployment:prod/web"}},
         {},
         GitOpsManager{"Argo CD", "annotation argocd.argoproj.io/tracking-id=shop:apps/Deployment:prod/web"}},
        {"Argo CD custom tracking label",
         {},
         {{"argocd.argoproj.io/instance", "shop"}},
         GitOpsManager{"Argo CD", "label argocd.argoproj.io/instance=shop"}},
        {"a Flux Kustomization",
         {},
         {{"kustomize.toolkit.fluxcd.io/name", "apps"}},
         GitOpsManager{"Flux", "label kustomize.toolkit.fluxcd.io/name=apps"}},
        {"a Flux HelmRelease",
         {},
         {{"helm.toolkit.fluxcd.io/name", "web"}},
         GitOpsManager{"Flux", "label helm.toolkit.fluxcd.io/name=web"}},
        {"an empty value is no marker", {{"argocd.argoproj.io/tracking-id", ""}}, {}, std::nullopt},
        {"a label is not read as an annotation", {{"kustomize.toolkit.fluxcd.io/name", "apps"}}, {}, std::nullopt},
        {"Argo CD first when both are there",
         {{"argocd.argoproj.io/tracking-id", "a"}},
         {{"kustomize.toolkit.fluxcd.io/name", "apps"}},
         GitOpsManager{"Argo CD", "annotation argocd.argoproj.io/tracking-id=a"}},
    };
    for (const auto& c : cases) EXPECT_EQ(gitops_manager(c.annotations, c.labels), c.want) << c.what;
}

TEST(GitOpsDrift, TheWarningNamesTheWorkloadTheToolAndTheWayBack) {
    const auto e = gitops_drift_event("Deployment", "web", {"Flux", "label kustomize.toolkit.fluxcd.io/name=apps"});
    EXPECT_EQ(e.type, "Warning");
    EXPECT_EQ(e.reason, "GitOpsDrift");
    EXPECT_EQ(e.action, "template");
    EXPECT_TRUE(e.dedupe);
    EXPECT_EQ(
        e.note,
        "Deployment web is applied by Flux (label kustomize.toolkit.fluxcd.io/name=apps): its pod template now "
        "differs from Git, and Flux may report it out of sync or restore Git's resources on its next sync. Commit "
        "the new resources to Git.");
}

}  // namespace
}  // namespace attune::core
