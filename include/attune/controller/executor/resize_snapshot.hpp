#pragma once
// What one executor pass reads about a workload, taken from the informer
// caches in one synchronous step (no co_await: the view cannot change under
// it) and decoded into the core's values. Server data that does not decode
// is reported and left out; it never stops the pass.
#include <attune/controller/reconcile.hpp>
#include <attune/controller/status_aggregation.hpp>
#include <attune/controller/workload_key.hpp>
#include <attune/core/resize/admission_limits.hpp>
#include <attune/core/policy/annotations.hpp>
#include <attune/core/model/capabilities.hpp>
#include <attune/core/resize/node_fit.hpp>
#include <attune/core/model/pod_model.hpp>
#include <attune/kube/object_cache.hpp>

#include <optional>
#include <string>
#include <vector>

namespace attune::controller {

// The caches the executor reads, beside the controller's (pods among them).
struct ExecutorCaches {
    policy::CacheViews views;
    const kube::ObjectCache* nodes = nullptr;
    const kube::ObjectCache* namespaces = nullptr;
    const kube::ObjectCache* limit_ranges = nullptr;
    const kube::ObjectCache* resource_quotas = nullptr;
};

struct ExecutorSnapshot {
    ObjectKey key;
    kube::ObjectCache::ObjectPtr workload;  // as cached (template persistence reads it)
    std::string uid;
    core::StringMap annotations;
    WorkloadReport report;                    // the managing policy and the idle state
    kube::ObjectCache::ObjectPtr policy;      // the managing AttunePolicy as cached
    std::vector<core::Pod> pods;              // decoded, by name
    std::vector<std::string> undecodable;     // "name: error" of pods left out
    // The namespace's annotations; nullopt when the cache does not hold it
    // (eligibility then fails closed: a freeze cannot be ruled out).
    std::optional<core::StringMap> namespace_annotations;
    std::vector<core::LimitRangeItem> limit_ranges;
    std::vector<core::QuotaFacts> quotas;
};

// nullopt when the workload is not in its cache (deleted).
std::optional<ExecutorSnapshot> take_executor_snapshot(const ExecutorCaches& caches, const ObjectKey& key);

struct NodeView {
    std::optional<core::NodeFacts> facts;  // nullopt: not cached, or does not decode (increases fail closed)
    std::optional<core::NodeProbe> probe;  // the pod-level resize rule's input (PlanOptions::node)
};
// A node's view, decoded once per change: the nodes cache keeps it
// (decode_nodes, called once on the nodes informer's cache), and node_of
// reads it, so an executor pass parses no node (docs/manager.md, "What a
// pass reads").
void decode_nodes(kube::ObjectCache& nodes);
NodeView node_of(const ExecutorCaches& caches, std::string_view node_name);

}  // namespace attune::controller
