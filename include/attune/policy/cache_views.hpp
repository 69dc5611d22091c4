#pragma once
// The informer caches that policy selection and resolution read, and the
// decoded views those caches keep with each object. Shared by the
// controller, the admission webhook and kubectl-attune (which fills caches
// of its own from what it lists), so all three read the same views.
#include <attune/core/policy/policy.hpp>
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
struct cache_views {
    const kube::object_cache* deployments = nullptr;
    const kube::object_cache* statefulsets = nullptr;
    const kube::object_cache* replicasets = nullptr;
    const kube::object_cache* daemonsets = nullptr;
    const kube::object_cache* jobs = nullptr;
    const kube::object_cache* cronjobs = nullptr;
    const kube::object_cache* hpas = nullptr;
    const kube::object_cache* policies = nullptr;
    const kube::object_cache* pods = nullptr;                // the live baseline and pod names
    const kube::object_cache* cluster_defaults = nullptr;    // AttuneDefaults
    const kube::object_cache* namespace_defaults = nullptr;  // AttuneNamespaceDefaults
    // VerticalPodAutoscalers: null until the manager found the VPA API
    // served and started their informer.
    const kube::object_cache* vpas = nullptr;
    // Whether the cache of `what` finished its first list: a workload kind,
    // "AttunePolicy", "AttuneDefaults", "AttuneNamespaceDefaults" or
    // "VerticalPodAutoscaler" (and whatever else a caller's caches hold).
    // Null: every cache is synced (tests).
    std::function<bool(std::string_view what)> synced;

    // Deployment, StatefulSet, ReplicaSet, DaemonSet, Job, CronJob,
    // AttunePolicy; null for any other kind.
    const kube::object_cache* for_kind(std::string_view kind) const noexcept;
    bool has_synced(std::string_view what) const { return !synced || synced(what); }
    // Both defaults tiers have listed: before that, an empty tier proves nothing.
    bool defaults_synced() const { return has_synced("AttuneDefaults") && has_synced("AttuneNamespaceDefaults"); }
};

// The policy cache keeps each AttunePolicy decoded (decode_policy, once per
// change) as a policy_view, so a workload event reads views instead of
// parsing and decoding every policy of its namespace. A policy without
// metadata.name/namespace has no view; one that does not decode otherwise
// has a view with `error` set. Call once on the attunepolicies informer's
// cache (informer_options::setup_cache); policies_in and policy_resolver
// require it.
void index_policies(kube::object_cache& policies);
// The decoded policies of the namespace (those without a view are skipped).
std::vector<policy_view> policies_in(const kube::object_cache& policies, std::string_view ns);
std::vector<policy_view> policies_in(const cache_views& caches, const std::string& ns);

// The two defaults caches (AttuneDefaults, AttuneNamespaceDefaults) keep
// each object decoded (core::decode_attune_defaults, once per change) as a
// defaults_view, so a resolution reads views instead of parsing the compact
// text. A view's pointer changes exactly when its object does. The raw
// objects stay readable (all(), in_namespace()).
struct defaults_view {
    std::string name;
    std::optional<core::AttuneDefaults> defaults;  // unset when it does not decode
    std::string error;                             // why not
};
// Call once on each defaults informer's cache (informer_options::setup_cache).
void index_defaults(kube::object_cache& defaults);
// The decoded defaults of one tier, sorted by name (a stable order, so two
// reads of an unchanged cache compare equal): ns "" for the cluster-scoped
// AttuneDefaults. Empty for a null cache.
std::vector<std::shared_ptr<const defaults_view>> defaults_in(const kube::object_cache* defaults, std::string_view ns);

}  // namespace attune::policy
