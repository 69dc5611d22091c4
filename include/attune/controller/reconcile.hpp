#pragma once
// What a worker does with one key, read from the informer caches only (no
// I/O, no co_await: the snapshot cannot change under it). The results go to
// the status aggregator.
#include <attune/controller/policy_selection.hpp>
#include <attune/controller/status_aggregation.hpp>
#include <attune/controller/workload_key.hpp>
#include <attune/core/hpa.hpp>
#include <attune/core/policy.hpp>
#include <attune/kube/object_cache.hpp>

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace attune::controller {

// Read-only views of the informer caches the controller uses.
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
    // "AttuneDefaults", "AttuneNamespaceDefaults" or "VerticalPodAutoscaler".
    // Null: every cache is synced (tests).
    std::function<bool(std::string_view what)> synced;

    const kube::object_cache* for_kind(std::string_view kind) const noexcept;
    bool has_synced(std::string_view what) const { return !synced || synced(what); }
};

// The policy cache keeps each AttunePolicy decoded (decode_policy, once per
// change) as a policy_view, so a workload event reads views instead of
// parsing and decoding every policy of its namespace. A policy without
// metadata.name/namespace has no view; one that does not decode otherwise
// has a view with `error` set. Call once on the attunepolicies informer's
// cache (informer_options::setup_cache); policies_in and plan_policy_pass
// require it.
void index_policies(kube::object_cache& policies);
// The decoded policies of the namespace (those without a view are skipped).
std::vector<policy_view> policies_in(const kube::object_cache& policies, std::string_view ns);
std::vector<policy_view> policies_in(const cache_views& caches, const std::string& ns);

// The two defaults caches (AttuneDefaults, AttuneNamespaceDefaults) keep
// each object decoded (core::decode_attune_defaults, once per change) as a
// defaults_view, so the admission webhook reads views instead of parsing the
// compact text on every review. A view's pointer changes exactly when its
// object does. The raw objects stay readable (all(), in_namespace()).
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

// The HPA cache keeps each HPA decoded (core::decode_hpa, once per change)
// and indexed by its scale target, so a workload event costs one index
// lookup instead of decoding every HPA of its namespace. Call once on the
// HPA informer's cache (informer_options::setup_cache).
void index_hpas(kube::object_cache& hpas);
// The index value: "namespace/Kind/name" of the scale target.
std::string hpa_scale_target_key(std::string_view ns, std::string_view kind, std::string_view name);
// The decoded HPAs whose scale target is this workload (usually none or one).
std::vector<core::HpaView> hpas_targeting(const cache_views& caches, const object_key& key);

// The workload as it is now: the policy that manages it (select_policy over
// the namespace's policies, with the outranked and opted-out ones reported)
// and its idle state (core::classify_workload_idle with the matching HPA).
// A workload missing from the cache reports as deleted (selected by nobody).
// A workload that does not decode reports as active: server data never stops
// a pass.
workload_report classify_workload(const cache_views& caches, const object_key& key);

struct policy_pass_plan {
    bool deleted = false;  // the policy is gone: forget it
    policy_view policy;
    std::vector<std::string> targets;  // keys of the workloads its targetRef matches
    policy_status written;             // status as the server holds it
    // The policy's own part of its status; plan_policy_pass fills uid,
    // generation and discovery_error, the controller the rest from the
    // merged settings (context_of).
    policy_context context;
};

policy_pass_plan plan_policy_pass(const cache_views& caches, const object_key& key);

}  // namespace attune::controller
