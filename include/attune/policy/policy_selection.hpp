#pragma once
// Which workloads an AttunePolicy targets, and which policy manages a
// workload. Pure, over decoded views.
//
// spec.targetRef names one kind (Deployment, StatefulSet, DaemonSet,
// ReplicaSet, Job, CronJob) and either one name or a label selector, in the
// policy's own namespace. A ReplicaSet controlled by a Deployment, or a Job
// controlled by a CronJob, is its owner's business and never a target of its
// own. A workload annotated attune.io/skip: "true" opts out. When several
// policies target one workload, the higher weight wins and a tie goes to the
// lexicographically smaller name; the others are reported as conflicting.
#include <attune/core/policy/annotations.hpp>
#include <attune/core/model/label_selector.hpp>
#include <attune/core/model/pod_model.hpp>  // OwnerReference
#include <attune/core/policy/policy.hpp>
#include <attune/core/util/result.hpp>

#include <boost/json/value.hpp>

#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

namespace attune::policy {

struct PolicyView {
    std::string ns;
    std::string name;
    std::string uid;
    long long generation = 0;
    core::TargetRef target;
    int weight = 100;
    // Non-empty: the policy does not decode (core::decode_attune_policy says
    // why); it targets nothing and the controller reports InvalidConfig.
    std::string error;
    // The whole decoded policy when `error` is empty, kept so that merging it
    // with the defaults decodes nothing again (PolicyResolver).
    std::shared_ptr<const core::AttunePolicy> spec;
};

struct WorkloadRef {
    std::string ns;
    std::string kind;
    std::string name;
    core::LabelMap labels;
    bool owned_by_workload = false;  // a Deployment's ReplicaSet, a CronJob's Job
    bool opted_out = false;          // attune.io/skip: "true"

    std::string key() const { return ns + "/" + kind + "/" + name; }
};

// Error code "invalid_policy" only when metadata.name/namespace are missing;
// any other decode failure lands in PolicyView::error.
core::Result<PolicyView> decode_policy(const boost::json::value& policy);

WorkloadRef workload_ref_from(std::string kind, const boost::json::value& workload);

// The ownerReference marked controller: true; nullopt when none.
std::optional<core::OwnerReference> controller_ref(const boost::json::value& obj);

// The kind of the ownerReference marked controller: true; "" when none.
std::string controller_kind(const boost::json::value& obj);

// The policy's targetRef matches the workload (opted out or not).
bool policy_matches(const PolicyView& policy, const WorkloadRef& workload);

// Keys ("ns/Kind/name") of the workloads the policy's targetRef matches,
// sorted. Opted-out and contested workloads are included: their reports
// take them out of the policy's pass.
std::vector<std::string> select_targets(const PolicyView& policy, std::span<const WorkloadRef> workloads);

// Higher weight first, then the smaller name.
bool outranks(const PolicyView& a, const PolicyView& b) noexcept;

struct WorkloadSelection {
    std::string winner;                     // the managing policy; "" when none, or opted out
    std::vector<std::string> losers;        // matched but outranked (PolicyConflict), sorted
    std::vector<std::string> opted_out_of;  // matched, but the workload opted out (WorkloadOptOut), sorted
};

// `policies`: those of the workload's namespace.
WorkloadSelection select_policy(std::span<const PolicyView> policies, const WorkloadRef& workload);

}  // namespace attune::policy
