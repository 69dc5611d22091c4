#pragma once
// What a worker does with one key, read from the informer caches only (no
// I/O, no co_await: the snapshot cannot change under it). The results go to
// the status aggregator.
#include <attune/controller/status_aggregation.hpp>
#include <attune/controller/workload_key.hpp>
#include <attune/core/model/hpa.hpp>
#include <attune/core/policy/policy.hpp>
#include <attune/kube/object_cache.hpp>
#include <attune/policy/cache_views.hpp>
#include <attune/policy/policy_selection.hpp>

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace attune::controller {

// The HPA cache keeps each HPA decoded (core::decode_hpa, once per change)
// and indexed by its scale target, so a workload event costs one index
// lookup instead of decoding every HPA of its namespace. Call once on the
// HPA informer's cache (InformerOptions::setup_cache).
void index_hpas(kube::ObjectCache& hpas);
// The index value: "namespace/Kind/name" of the scale target.
std::string hpa_scale_target_key(std::string_view ns, std::string_view kind, std::string_view name);
// The decoded HPAs whose scale target is this workload (usually none or one).
std::vector<core::HpaView> hpas_targeting(const policy::CacheViews& caches, const ObjectKey& key);

// The workload as it is now: the policy that manages it (select_policy over
// the namespace's policies, with the outranked and opted-out ones reported)
// and its idle state (core::classify_workload_idle with the matching HPA).
// A workload missing from the cache reports as deleted (selected by nobody).
// A workload that does not decode reports as active: server data never stops
// a pass.
WorkloadReport classify_workload(const policy::CacheViews& caches, const ObjectKey& key);

struct PolicyPassPlan {
    bool deleted = false;  // the policy is gone: forget it
    policy::PolicyView policy;
    std::vector<std::string> targets;  // keys of the workloads its targetRef matches
    PolicyStatus written;              // status as the server holds it
    // The policy's own part of its status; plan_policy_pass fills uid,
    // generation and discovery_error, the controller the rest from the
    // merged settings (context_of).
    PolicyContext context;
};

PolicyPassPlan plan_policy_pass(const policy::CacheViews& caches, const ObjectKey& key);

}  // namespace attune::controller
