#pragma once
// What a worker reads from the informer caches for one workload before it
// asks any source: who manages it and with which merged settings, its pods
// (their names for the usage query, one of them for the live baseline), the
// VPA it reads, and the HPA that conflicts with it. Pure over the caches:
// no co_await can run while it is taken, so it is one consistent view, and
// it is immutable afterwards.
#include <attune/controller/reconcile.hpp>
#include <attune/core/resize/hpa_conflict.hpp>
#include <attune/core/policy/overlay.hpp>
#include <attune/core/policy/policy.hpp>
#include <attune/core/policy/policy_validation.hpp>
#include <attune/core/policy/prometheus_discovery.hpp>
#include <attune/kube/event_recorder.hpp>  // ObjectReference
#include <attune/policy/policy_resolver.hpp>

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace attune::controller {

struct ListedPod;

// A policy object with the defaults objects now in the caches.
struct ResolvedPolicy {
    kube::ObjectCache::ObjectPtr object;
    std::shared_ptr<const core::EffectivePolicy> effective;  // null when ConfigError is set
    std::string config_error;  // Ready=False InvalidConfig: a defaults lookup, decode or validation failed
    std::string source_error;  // no usable metrics source (PrometheusUnavailable), "" when there is one
    // The source is an auto-discovered Prometheus: what the Ready message says
    // of it ("Prometheus auto-discovered at http://... (Service ns/name)").
    std::string discovered_source;
};

// The merged settings per policy: policy::PolicyResolver (the resolution
// the webhook and the CLI share), memoized while the policy's and the
// defaults objects' decoded views stay the same, so an unchanged policy
// hands out the same pointer, which the recommendation store reads as "same
// settings". Pure.
class EffectivePolicies {
public:
    explicit EffectivePolicies(core::PolicyValidationOptions opts) : resolver_(opts) {}
    // A policy whose merged settings name no source gets the discovered
    // Prometheus as its source (the same pointer while neither changes).
    ResolvedPolicy resolve(const policy::CacheViews& caches, const kube::ObjectCache::ObjectPtr& policy);
    void forget(const std::string& ns, const std::string& name) {
        resolver_.forget(ns, name);
        with_discovered_.erase(ns + "/" + name);
    }
    // What auto-discovery found last (nullopt: nothing). True when it changed.
    bool set_discovered_prometheus(std::optional<core::DiscoveredPrometheus> found);
    const std::optional<core::DiscoveredPrometheus>& discovered_prometheus() const noexcept { return discovered_; }
    std::size_t size() const noexcept { return resolver_.size(); }
    const core::PolicyValidationOptions& options() const noexcept { return resolver_.options(); }

private:
    // Per policy: the settings as merged, and the same with the discovered source.
    struct WithDiscovered {
        std::shared_ptr<const core::EffectivePolicy> merged;
        std::uint64_t discovery_generation = 0;
        std::shared_ptr<const core::EffectivePolicy> effective;
    };
    policy::PolicyResolver resolver_;
    std::optional<core::DiscoveredPrometheus> discovered_;
    std::uint64_t discovery_generation_ = 0;
    std::map<std::string, WithDiscovered> with_discovered_;
};

// "" when the merged source can be queried; else why not: no source at all
// (and auto-discovery found none).
std::string unusable_source(const core::EffectivePolicy& policy);

// The policy's own part of its status, from its resolution.
void fill_context(PolicyContext& context, const ResolvedPolicy& resolved);

// The reference an Event regarding this policy carries.
kube::ObjectReference policy_reference(const kube::ObjectCache::ObjectPtr& policy);

// Another policy that matched the workload, for PolicyConflict / WorkloadOptOut.
struct OtherPolicy {
    kube::ObjectReference ref;
    std::string suppress_warnings;
};

struct WorkloadSnapshot {
    ObjectKey key;
    WorkloadReport report;                // selection and idle (classify_workload)
    ResolvedPolicy policy;                // the winner's; no object when nobody manages it
    std::vector<OtherPolicy> outranked;   // report.conflicting_policies, resolved
    std::vector<OtherPolicy> opted_out;   // report.opted_out_of, resolved
    std::vector<std::string> pod_names;   // every pod of the workload, sorted
    core::FrozenBaseline baseline;        // live resources, excluded containers left out
    std::string baseline_error;           // the template did not decode and no pod runs
    std::optional<core::HpaConflict> hpa_conflict;
    // VPA source: the object, or why there is none.
    kube::ObjectCache::ObjectPtr vpa;
    std::string vpa_problem;
    bool vpa_not_synced = false;

    const core::EffectivePolicy* effective() const noexcept { return policy.effective.get(); }
    long long policy_generation() const;
    std::string suppress_warnings() const;
};

WorkloadSnapshot take_snapshot(const policy::CacheViews& caches, EffectivePolicies& policies, const ObjectKey& key);

// A workload's pods: owned by it, or (Deployment, CronJob) by the
// ReplicaSets / Jobs it owns.
std::vector<kube::ObjectCache::ObjectPtr> pods_of(const policy::CacheViews& caches, std::string_view kind,
                                                  std::string_view uid);
// The same pods as kept listed (listed_pod.hpp): the pods cache must keep
// them (keep_listed_pods).
std::vector<kube::ObjectCache::KeyedView<ListedPod>> listed_pods_of(const policy::CacheViews& caches,
                                                                    std::string_view kind, std::string_view uid);

// What the worker does next with a snapshot.
enum class WorkloadStep {
    Unmanaged,      // deleted, unmatched, opted out, outranked: its entry goes
    Idle,           // HPA-held or manual zero: nothing is queried, the entry stays
    ConfigFailed,   // InvalidConfig: the entry goes
    Paused,         // the entry stays, with the paused settings
    Observe,        // Observe: no source, no entry
    SourceFailed,   // the policy has no usable source: the entry stays, stale
    NothingToSize,  // no container left to size
    QuerySource,    // Prometheus, VPA or Manual
};
WorkloadStep next_step(const WorkloadSnapshot& s);

}  // namespace attune::controller
