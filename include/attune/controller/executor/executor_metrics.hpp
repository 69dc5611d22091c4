#pragma once
// The resize executor's metrics (docs/resize.md#metrics, names and labels as the
// Go manager exports them), built once against the manager's one registry.
// Labels stay bounded: namespace, workload and policy names (one series per
// managed workload or policy), a resource, a result or reason keyword.
#include <prometheus/counter.h>
#include <prometheus/family.h>
#include <prometheus/gauge.h>
#include <prometheus/histogram.h>
#include <prometheus/registry.h>

#include <string>

namespace attune::controller {

struct ExecutorMetrics {
    explicit ExecutorMetrics(prometheus::Registry& registry);

    prometheus::Family<prometheus::Counter>& resize_total;        // {namespace, workload, resource, result}
    prometheus::Family<prometheus::Histogram>& resize_duration;   // {namespace, workload}: PATCH to Applied
    prometheus::Family<prometheus::Counter>& envelope_raised;     // {namespace, policy, resource}
    prometheus::Family<prometheus::Counter>& envelope_blocked;    // {namespace, policy}
    prometheus::Family<prometheus::Gauge>& pods_deferred;         // {namespace, policy}: kubelet Deferred only
    prometheus::Family<prometheus::Gauge>& pods_infeasible;       // {namespace, policy}: kubelet Infeasible only
    prometheus::Family<prometheus::Histogram>& deferred_age;      // {namespace, policy}
    prometheus::Family<prometheus::Counter>& reverts;             // {namespace, workload, reason}
    prometheus::Family<prometheus::Counter>& revert_failures;     // {namespace, workload, reason}
    prometheus::Family<prometheus::Counter>& evictions;           // {namespace, workload, result}
    prometheus::Family<prometheus::Counter>& infeasible_skipped;  // {namespace, workload}
    prometheus::Family<prometheus::Counter>& template_patches;    // {namespace, workload, result}
    prometheus::Family<prometheus::Counter>& startup_boost;       // {namespace, policy, action}: bounded by the policies
    prometheus::Family<prometheus::Counter>& capacity_skips;      // {namespace, policy, reason}
    prometheus::Family<prometheus::Counter>& schedule_skipped;    // {namespace, policy}
    prometheus::Family<prometheus::Counter>& budget_exhausted;    // {namespace, policy}
    prometheus::Family<prometheus::Counter>& memory_limit_decrease;  // {namespace, policy, result}: applied | clamped

    // Counts a skip by the metric skip_report names for its reason
    // (attune_capacity_skip_total{reason}, attune_envelope_blocked_total,
    // attune_schedule_skipped_total, attune_budget_exhausted_total).
    void count_skip(const std::string& ns, const std::string& policy, std::string_view reason);
    // attune_resize_duration_seconds with the Go client's default buckets.
    void observe_resize_duration(const std::string& ns, const std::string& workload, double seconds);
    // attune_deferred_age_seconds with buckets from 30 s to 2 h (docs/resize.md#metrics).
    void observe_deferred_age(const std::string& ns, const std::string& policy, double seconds);
    void set_kubelet_states(const std::string& ns, const std::string& policy, int deferred, int infeasible);
    void remove_policy(const std::string& ns, const std::string& policy);
};

}  // namespace attune::controller
