#pragma once
// The per-policy status bookkeeping the aggregator coroutine owns. Pure.
//
// A pass starts when a policy is (re)read: it expects one report from every
// workload the policy selects. Workers report each workload they look at,
// naming the policy that manages it. When the last expected report of a
// pass arrives the pass is complete and its status is computed; a report
// outside a pass completes at once (a pass of one). The status is written
// only when it differs from what was last written.
//
// The status holds (docs/api.md#attunepolicy-status): idleWorkloads, the
// workloads counters, the Ready and ScaledToZero conditions
// (policy_conditions.hpp; conditions of other types are kept as they are),
// recommendations[] read from the recommendation store, and
// lastReconcileTime, which moves only with another change.
#include <attune/controller/recommendation_store.hpp>
#include <attune/controller/executor/resize_ledger.hpp>
#include <attune/core/followups/pull_request.hpp>
#include <attune/core/policy/condition.hpp>
#include <attune/core/resize/cooldown.hpp>
#include <attune/core/resize/resize_history.hpp>
#include <attune/core/model/idle.hpp>
#include <attune/core/util/timestamp.hpp>

#include <boost/json/array.hpp>
#include <boost/json/value.hpp>

#include <chrono>
#include <compare>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

namespace attune::controller {

struct IdleWorkload {
    std::string workload;
    std::string kind;
    std::string reason;  // HPAScaledToZero | WorkloadReplicasZero
    auto operator<=>(const IdleWorkload&) const = default;
};

// status.workloads (docs/api.md#attunepolicy-status).
struct WorkloadCounts {
    int discovered = 0;            // workloads the policy manages (targeted, won, not opted out)
    int with_recommendations = 0;  // of those, with an entry in the store
    int resized = 0;               // the executor's: workloads whose resized pods are all Applied
    int pending = 0;               // with_recommendations - resized
    int data_points_collected = 0;  // the largest count of any managed workload
    int data_points_required = 0;   // metricsSource.minimumDataPoints
    int deferred = 0;              // pods whose kubelet resize is Deferred (the executor's)
    int infeasible = 0;            // pods whose kubelet resize is Infeasible
    bool operator==(const WorkloadCounts&) const = default;
};

struct PolicyStatus {
    std::vector<IdleWorkload> idle_workloads;  // sorted by kind, then workload
    long long observed_generation = 0;
    WorkloadCounts workloads;
    std::vector<core::Condition> conditions;
    boost::json::array recommendations;  // status.recommendations[], as written
    // status.savings over every recommendation (not the truncated list), as
    // the Go Attune writes it (core::savings_status_json); empty with no
    // recommendation, and then removed from the server's status.
    boost::json::object savings;
    std::vector<core::HistoryEntry> resize_history;  // status.resizeHistory (the executor's ledger)
    std::optional<core::CooldownState> cooldown;     // status.cooldown, in resizing modes
    // status.lifecycle.workloads (the lifecycle's entries in the ledger);
    // written only once owned, so a policy that never ran Canary has none.
    std::vector<core::LifecycleStatusEntry> lifecycle;
    bool lifecycle_owned = false;
    // status.gitopsPR (core/followups/pull_request.hpp): kept as written until
    // the pull request exporter records an attempt.
    std::optional<core::PullRequestRecord> gitops_pr;
    // Set when the status is written; not part of the comparison (a new
    // heartbeat alone is no reason to write).
    std::optional<core::Timestamp> last_reconcile_time;

    bool operator==(const PolicyStatus& o) const {
        return idle_workloads == o.idle_workloads && observed_generation == o.observed_generation &&
               workloads == o.workloads && conditions == o.conditions && recommendations == o.recommendations &&
               savings == o.savings && resize_history == o.resize_history && cooldown == o.cooldown &&
               lifecycle == o.lifecycle && lifecycle_owned == o.lifecycle_owned && gitops_pr == o.gitops_pr;
    }
};

// What a worker learnt about a managed workload's recommendation.
enum class RecommendationState {
    None,               // not looked at: unmanaged, deleted, idle
    Observe,            // updateStrategy.type Observe: no source is queried
    Paused,             // spec.paused
    InvalidConfig,      // the settings or the source's data cannot be used (message)
    SourceUnavailable,  // the query or read failed (message); an older entry stays, stale
    Collecting,         // fewer than minimumDataPoints, or the source has nothing yet (message)
    Recommended,        // the store holds its recommendation
};

struct RecommendationReport {
    RecommendationState state = RecommendationState::None;
    std::string message;
    int points_collected = 0;  // the largest count of any of its containers
    bool operator==(const RecommendationReport&) const = default;
};

// One workload, as a worker saw it.
struct WorkloadReport {
    std::string ns;
    std::string kind;
    std::string name;
    std::string uid;
    std::string api_version;
    core::IdleKind idle = core::IdleKind::None;
    std::string hpa_name;  // the matching HPA, if any
    // The policy that manages it (at most one: the winner of select_policy);
    // empty when deleted, unmatched or opted out.
    std::vector<std::string> selected_by;
    std::vector<std::string> conflicting_policies;  // matched but outranked by selected_by (PolicyConflict)
    std::vector<std::string> opted_out_of;          // matched, but attune.io/skip is "true" (WorkloadOptOut)
    RecommendationReport recommendation;

    std::string key() const { return ns + "/" + kind + "/" + name; }
};

// What the policy itself says, read when its pass begins.
struct PolicyContext {
    std::string uid;
    long long generation = 0;
    std::string config_error;     // Ready=False InvalidConfig (a defaults lookup or validation failed)
    bool paused = false;          // Ready=False Paused
    std::string source_error;     // Ready=False PrometheusUnavailable (no usable metrics source)
    std::string discovered_source;  // the source is an auto-discovered Prometheus: the Ready message says which
    std::string discovery_error;  // Ready=False WorkloadDiscoveryFailed (the target kind's cache is not there)
    bool observe = false;         // updateStrategy.type Observe
    int max_status_recommendations = 100;
    bool include_explanations = true;
    int minimum_data_points = 48;
    double query_step_seconds = 300;
    bool resizing_mode = false;         // OneShot, Canary or Auto: Resizing, status.cooldown
    std::chrono::seconds cooldown{3600};  // updateStrategy.cooldown, the base of status.cooldown
};

// What the pull request exporter says of a policy: its GitOpsPullRequest
// condition (nullopt: none) and status.gitopsPR (nullopt: as written).
struct PullRequestStatus {
    std::optional<core::Condition> condition;
    std::optional<core::PullRequestRecord> record;
    friend bool operator==(const PullRequestStatus&, const PullRequestStatus&) = default;
};

struct CompletedPass {
    std::string ns;
    std::string policy;
    std::string policy_uid;
    PolicyStatus status;
    bool changed = false;  // differs from the last written status: write it
    std::size_t hpa_scaled_to_zero = 0;
    std::size_t manual_zero = 0;
    // Workloads that entered HPAScaledToZero since the previous completed pass (one Event each).
    std::vector<WorkloadReport> entered_hpa_scaled_to_zero;
    // withRecommendations went from 0 to more (Event RecommendationsReady).
    bool first_recommendations = false;
    // What status.savings says, as numbers, for the savings gauges.
    double reclaimed_cpu_cores = 0;
    double reclaimed_memory_bytes = 0;
    double monthly_savings_dollars = 0;
};

class StatusAggregation {
public:
    // `store` (may be null: no recommendations) is read when a pass completes.
    explicit StatusAggregation(const RecommendationStore* store = nullptr) : store_(store) {}
    // The executor's resize ledger (null: no resize status), read when a pass
    // completes: resizeHistory, cooldown, the resized/deferred/infeasible
    // counts and the ResizeBlocked, Resizing, Degraded and ScheduleBlocked
    // conditions (core::apply_resize_conditions).
    void set_resize_ledger(const ResizeLedger* ledger) { ledger_ = ledger; }
    // The ledger moved for this policy: its status again, outside a pass
    // (nullopt while a pass is open, whose completion reads it anyway, or for
    // a policy never seen).
    std::optional<CompletedPass> refresh(const std::string& ns, const std::string& policy, core::Timestamp now);

    // `written`: the status the server holds now (from the policy object), used
    // as the baseline the first time the policy is seen. A policy that selects
    // nothing completes at once. `now` stamps condition transitions.
    std::optional<CompletedPass> begin_pass(const std::string& ns, const std::string& policy,
                                            const PolicyContext& context, const std::vector<std::string>& target_keys,
                                            std::optional<PolicyStatus> written, core::Timestamp now);
    std::vector<CompletedPass> report(const WorkloadReport& r, core::Timestamp now);
    // report() without completing: the policies ({ns, name}) whose pass the
    // report leaves with nothing pending, to be completed by refresh(). A
    // batch of reports then costs one completion per policy, not one per
    // report (a completion reads every member and recommendation).
    std::vector<std::pair<std::string, std::string>> absorb(const WorkloadReport& r);
    void forget_policy(const std::string& ns, const std::string& policy);
    // The pull request exporter's part of a tracked policy's status, applied
    // from its next completion on; true when it changed.
    bool set_pull_request(const std::string& ns, const std::string& policy, const PullRequestStatus& pr);
    // The status write of a completed pass succeeded.
    void mark_written(const std::string& ns, const std::string& policy, const PolicyStatus& status);

    bool tracks(const std::string& ns, const std::string& policy) const;
    std::size_t pending(const std::string& ns, const std::string& policy) const;

private:
    struct Member {
        bool reported = false;
        WorkloadReport last;
        // Matched by the targetRef, but another policy outranks this one or
        // the workload opted out: counted in workloads.discovered only.
        bool matched_only = false;
    };
    struct PolicyState {
        PolicyContext context;
        std::map<std::string, Member> members;  // by workload key
        std::set<std::string> pending;
        std::optional<PolicyStatus> written;
        std::vector<core::Condition> conditions;  // as last computed (transition times kept)
        std::set<std::string> hpa_zero_before;  // keys HPAScaledToZero at the previous completed pass
        int with_recommendations_before = 0;
        std::optional<PullRequestStatus> pull_request;  // the exporter's, once it said something
    };
    CompletedPass complete(const std::string& ns, const std::string& policy, PolicyState& st, core::Timestamp now);

    const RecommendationStore* store_;
    const ResizeLedger* ledger_ = nullptr;
    std::map<std::pair<std::string, std::string>, PolicyState> policies_;
};

std::string_view idle_status_reason(core::IdleKind kind) noexcept;  // core::idle_reason

// The status as held by a policy object (absent parts: empty).
PolicyStatus policy_status_from(const boost::json::value& policy);
// The merge-patch body for the status subresource. A merge patch replaces
// lists whole, so an empty list clears the field.
std::string status_patch_body(const PolicyStatus& status);

}  // namespace attune::controller
