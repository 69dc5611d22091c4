#pragma once
// What `kubectl attune diff` and `export` read: the workloads the policies
// in scope manage (their status.recommendations entries with at least one
// container), each with its live object, and the managing policy's
// effective settings (the manager's own resolution, policy_context.hpp).
#include "object_lookup.hpp"
#include "session.hpp"
#include "workload_manifest.hpp"

#include <attune/core/policy/policy.hpp>
#include <attune/core/recommend/recommendation_status.hpp>

#include <boost/asio/awaitable.hpp>

#include <optional>
#include <string>
#include <vector>

namespace attune::cli {

struct ManagedScope {
    std::string ns;        // "" for every namespace (-A)
    std::string policy;    // "" for every policy
    std::string workload;  // --workload: "" for all, "name" or "Kind/name"
};

struct ManagedWorkload {
    std::string ns, policy;  // the policy's (and the workload's) namespace and name
    core::StatusRecommendation rec;
    ObjectLookup workload;                          // the live object, or why not
    std::optional<core::EffectivePolicy> settings;  // nullopt: the policy does not resolve
    std::string settings_error;                     // why, when it does not
};

struct ManagedWorkloads {
    std::vector<ManagedWorkload> items;  // policy namespace/name order, then status order
    // Fatal, kubectl-worded: the policies could not be listed, the named
    // policy does not exist or has no recommendations yet, a status that
    // does not decode, a --workload that matches nothing. "" when none.
    std::string error;
};

boost::asio::awaitable<ManagedWorkloads> read_managed_workloads(Session& s, ManagedScope scope);

// The workload's manifests (recommended_manifest), or the text after
// "error: " that says why not: the workload is gone or unreadable, its
// policy has no settings, or the recommendation does not fit its template.
core::Result<RecommendedManifest> manifest_of(const ManagedWorkload& w);

}  // namespace attune::cli
