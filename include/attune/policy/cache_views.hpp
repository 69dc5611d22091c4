#pragma once
// The informer caches that policy selection and resolution read, and the
// decoded views those caches keep with each object. Shared by the
// controller, the admission webhook and kubectl-attune (which fills caches
// of its own from what it lists), so all three read the same views.
#include <attune/core/policy/policy.hpp>
#include <attune/core/policy/policy_resolution.hpp>
#include <attune/kube/object_cache.hpp>
#include <attune/policy/policy_selection.hpp>

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace attune::policy {

// Read-only views of the informer caches.
struct CacheViews {
    const kube::ObjectCache* deployments = nullptr;
    const kube::ObjectCache* statefulsets = nullptr;
    const kube::ObjectCache* replicasets = nullptr;
    const kube::ObjectCache* daemonsets = nullptr;
    const kube::ObjectCache* jobs = nullptr;
    const kube::ObjectCache* cronjobs = nullptr;
    const kube::ObjectCache* hpas = nullptr;
    const kube::ObjectCache* policies = nullptr;
    const kube::ObjectCache* pods = nullptr;                // the live baseline and pod names
    const kube::ObjectCache* cluster_defaults = nullptr;    // AttuneDefaults
    const kube::ObjectCache* namespace_defaults = nullptr;  // AttuneNamespaceDefaults
    // VerticalPodAutoscalers: null until the manager found the VPA API
    // served and started their informer.
    const kube::ObjectCache* vpas = nullptr;
    // Whether the cache of `what` finished its first list: a workload kind,
    // "AttunePolicy", "AttuneDefaults", "AttuneNamespaceDefaults" or
    // "VerticalPodAutoscaler" (and whatever else a caller's caches hold).
    // Null: every cache is synced (tests).
    std::function<bool(std::string_view what)> synced;

    // Deployment, StatefulSet, ReplicaSet, DaemonSet, Job, CronJob,
    // AttunePolicy; null for any other kind.
    const kube::ObjectCache* for_kind(std::string_view kind) const noexcept;
    bool has_synced(std::string_view what) const { return !synced || synced(what); }
    // Both defaults tiers have listed: before that, an empty tier proves nothing.
    bool defaults_synced() const { return has_synced("AttuneDefaults") && has_synced("AttuneNamespaceDefaults"); }
};

// The policy cache keeps each AttunePolicy decoded (decode_policy, once per
// change) as a PolicyView, so a workload event reads views instead of
// parsing and decoding every policy of its namespace. A policy without
// metadata.name/namespace has no view; one that does not decode otherwise
// has a view with `error` set. Call once on the attunepolicies informer's
// cache (InformerOptions::setup_cache); policies_in and PolicyResolver
// require it.
void index_policies(kube::ObjectCache& policies);
// The decoded policies of the namespace (those without a view are skipped).
std::vector<PolicyView> policies_in(const kube::ObjectCache& policies, std::string_view ns);
std::vector<PolicyView> policies_in(const CacheViews& caches, const std::string& ns);

// The two defaults caches (AttuneDefaults, AttuneNamespaceDefaults) keep
// each object decoded (core::decode_attune_defaults, once per change) as a
// DefaultsView, so a resolution reads views instead of parsing the compact
// text. A view's pointer changes exactly when its object does. The raw
// objects stay readable (all(), in_namespace()).
struct DefaultsView {
    std::string name;
    std::optional<core::AttuneDefaults> defaults;  // unset when it does not decode
    std::string error;                             // why not
};
// Call once on each defaults informer's cache (InformerOptions::setup_cache).
void index_defaults(kube::ObjectCache& defaults);
// The decoded defaults of one tier, sorted by name (a stable order, so two
// reads of an unchanged cache compare equal): ns "" for the cluster-scoped
// AttuneDefaults. Empty for a null cache.
std::vector<std::shared_ptr<const DefaultsView>> defaults_in(const kube::ObjectCache* defaults, std::string_view ns);
// The tier as core::resolve_effective_policy takes it; points into `views`.
std::vector<core::DefaultsInput> defaults_inputs(const std::vector<std::shared_ptr<const DefaultsView>>& views);

}  // namespace attune::policy
