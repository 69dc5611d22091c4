#pragma once
// Which workloads an AttunePolicy selects. Pure, over decoded views:
// Deployments, StatefulSets, ReplicaSets and DaemonSets in the policy's own
// namespace whose labels match spec.selector; a ReplicaSet controlled by a
// Deployment is that Deployment's business, never a target of its own.
#include <attune/core/label_selector.hpp>
#include <attune/core/result.hpp>

#include <boost/json/value.hpp>

#include <optional>
#include <span>
#include <string>
#include <vector>

namespace attune::controller {

struct policy_view {
    std::string ns;
    std::string name;
    std::string uid;
    long long generation = 0;
    core::LabelSelector selector;
    std::string selector_error;  // non-empty: the selector is invalid and selects nothing
};

struct workload_ref {
    std::string ns;
    std::string kind;
    std::string name;
    core::LabelMap labels;
    bool controlled_by_deployment = false;

    std::string key() const { return ns + "/" + kind + "/" + name; }
};

// Error code "invalid_policy" when metadata.name/namespace are missing; an
// invalid selector is not an error here (see policy_view::selector_error).
core::result<policy_view> decode_policy(const boost::json::value& policy);

workload_ref workload_ref_from(std::string kind, const boost::json::value& workload);

// ownerReferences holds a controller (controller: true) of kind Deployment.
bool controlled_by_deployment(const boost::json::value& obj);

bool policy_selects(const policy_view& policy, const workload_ref& workload);

// Keys ("ns/Kind/name") of the selected workloads, sorted.
std::vector<std::string> select_targets(const policy_view& policy, std::span<const workload_ref> workloads);

// Names of the policies (of the workload's namespace) that select it, sorted.
std::vector<std::string> policies_selecting(std::span<const policy_view> policies, const workload_ref& workload);

}  // namespace attune::controller
