#pragma once
// The per-policy status bookkeeping the aggregator coroutine owns. Pure.
//
// A pass starts when a policy is (re)read: it expects one report from every
// workload the policy selects. Workers report each workload they classify,
// naming the policies that select it. When the last expected report of a
// pass arrives the pass is complete and its status is computed; a report
// outside a pass completes at once (a pass of one). The status is written
// only when it differs from what was last written.
#include <attune/core/idle.hpp>

#include <boost/json/value.hpp>

#include <compare>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

namespace attune::controller {

struct idle_workload {
    std::string workload;
    std::string kind;
    std::string reason;  // HPAScaledToZero | WorkloadReplicasZero
    auto operator<=>(const idle_workload&) const = default;
};

struct policy_status {
    std::vector<idle_workload> idle_workloads;  // sorted by kind, then workload
    long long observed_generation = 0;
    bool operator==(const policy_status&) const = default;
};

// One classified workload, as a worker saw it.
struct workload_report {
    std::string ns;
    std::string kind;
    std::string name;
    std::string uid;
    std::string api_version;
    core::IdleKind idle = core::IdleKind::None;
    std::string hpa_name;                  // the matching HPA, if any
    // The policy that manages it (at most one: the winner of select_policy);
    // empty when deleted, unmatched or opted out.
    std::vector<std::string> selected_by;
    std::vector<std::string> conflicting_policies;  // matched but outranked by selected_by (PolicyConflict)
    std::vector<std::string> opted_out_of;          // matched, but attune.io/skip is "true" (WorkloadOptOut)

    std::string key() const { return ns + "/" + kind + "/" + name; }
};

struct completed_pass {
    std::string ns;
    std::string policy;
    policy_status status;
    bool changed = false;  // differs from the last written status: write it
    std::size_t hpa_scaled_to_zero = 0;
    std::size_t manual_zero = 0;
    // Workloads that entered HPAScaledToZero since the previous completed pass (one Event each).
    std::vector<workload_report> entered_hpa_scaled_to_zero;
};

class status_aggregation {
public:
    // `written`: the status the server holds now (from the policy object), used
    // as the baseline the first time the policy is seen. A policy that selects
    // nothing completes at once.
    std::optional<completed_pass> begin_pass(const std::string& ns, const std::string& policy, long long generation,
                    const std::vector<std::string>& target_keys, std::optional<policy_status> written);
    std::vector<completed_pass> report(const workload_report& r);
    void forget_policy(const std::string& ns, const std::string& policy);
    // The status write of a completed pass succeeded.
    void mark_written(const std::string& ns, const std::string& policy, const policy_status& status);

    bool tracks(const std::string& ns, const std::string& policy) const;
    std::size_t pending(const std::string& ns, const std::string& policy) const;

private:
    struct member {
        bool reported = false;
        workload_report last;
    };
    struct policy_state {
        long long generation = 0;
        std::map<std::string, member> members;  // by workload key
        std::set<std::string> pending;
        std::optional<policy_status> written;
        std::set<std::string> hpa_zero_before;  // keys HPAScaledToZero at the previous completed pass
    };
    completed_pass complete(const std::string& ns, const std::string& policy, policy_state& st);

    std::map<std::pair<std::string, std::string>, policy_state> policies_;
};

std::string_view idle_status_reason(core::IdleKind kind) noexcept;  // core::idle_reason

// status.idleWorkloads/observedGeneration as held by a policy object (absent: empty).
policy_status policy_status_from(const boost::json::value& policy);
// The merge-patch body for the status subresource.
std::string status_patch_body(const policy_status& status);

}  // namespace attune::controller
