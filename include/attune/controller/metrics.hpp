#pragma once
// The controller's metrics, built once against the manager's one registry.
// Labels stay low-cardinality: a namespace and policy name (bounded by the
// number of policies), a workload and container name (bounded by the
// workloads with recommendations; their series leave with them), a reason
// keyword, a task name. Names as docs/api.md#metrics lists them.
#include <attune/core/model/idle.hpp>

#include <prometheus/counter.h>
#include <prometheus/family.h>
#include <prometheus/gauge.h>
#include <prometheus/histogram.h>
#include <prometheus/registry.h>

#include <map>
#include <string>
#include <string_view>
#include <vector>

namespace attune::controller {

struct ControllerMetrics {
    explicit ControllerMetrics(prometheus::Registry& registry);

    prometheus::Family<prometheus::Gauge>& workload_idle;         // {namespace, policy, reason}
    prometheus::Family<prometheus::Counter>& coroutine_restarts;  // {task}
    prometheus::Family<prometheus::Counter>& reconciles;          // {kind, result}
    prometheus::Family<prometheus::Counter>& status_writes;       // {result}
    prometheus::Family<prometheus::Counter>& passes;              // {result}: complete
    prometheus::Gauge& workqueue_depth;
    prometheus::Counter& workqueue_adds;
    prometheus::Counter& workqueue_retries;
    prometheus::Gauge& informers_synced;

    // Recommendations (docs/api.md#metrics), per container of a workload in the store.
    prometheus::Family<prometheus::Gauge>& recommendation_cpu_cores;     // {namespace, workload, container}
    prometheus::Family<prometheus::Gauge>& recommendation_memory_bytes;  // {namespace, workload, container}
    prometheus::Family<prometheus::Gauge>& confidence;                   // {namespace, workload, container}
    prometheus::Family<prometheus::Histogram>& prometheus_query_duration;  // {query_type}: cpu | memory
    prometheus::Family<prometheus::Counter>& prometheus_query_errors;      // {namespace, query_type}
    prometheus::Family<prometheus::Counter>& nan_inf_samples;  // {namespace, policy, container, metric_type}
    // Savings (docs/api.md#metrics), from each policy's status.savings:
    // per policy what its recommendations would reclaim, per namespace the
    // sum over its policies.
    prometheus::Family<prometheus::Gauge>& reclaimed_cpu_cores;      // {namespace, policy}
    prometheus::Family<prometheus::Gauge>& reclaimed_memory_bytes;   // {namespace, policy}
    prometheus::Family<prometheus::Gauge>& savings_cpu_cores;        // {namespace}
    prometheus::Family<prometheus::Gauge>& savings_memory_bytes;     // {namespace}
    prometheus::Family<prometheus::Gauge>& savings_monthly_dollars;  // {namespace}
    // Attune's own: what became of each Event a worker or the aggregator
    // decided: queued | deduplicated | suppressed | dropped (queue full).
    prometheus::Family<prometheus::Counter>& policy_events;  // {result}
    // GitOps pull request attempts (docs/api.md#metrics): created | updated | dry_run | failed.
    prometheus::Family<prometheus::Counter>& gitops_pr;  // {namespace, policy, result}
    prometheus::Gauge& event_queue_depth;

    // Sets attune_workload_idle for both reasons of one policy.
    void set_idle(const std::string& ns, const std::string& policy, std::size_t hpa_scaled_to_zero,
                  std::size_t manual_zero);
    // Drops a deleted policy's series.
    void remove_idle(const std::string& ns, const std::string& policy);

    struct ContainerFigures {
        std::string container;
        double cpu_cores = 0;
        double memory_bytes = 0;
        double confidence = 0;
    };
    // The three gauges of one workload's containers; the series of
    // containers it had before and no longer has are removed, and an empty
    // list removes the workload's series (it left the store).
    void set_recommendation(const std::string& ns, const std::string& workload,
                            const std::vector<ContainerFigures>& containers);

    void observe_query(std::string_view query_type, double seconds);

    struct PolicySavings {
        double cpu_cores = 0;
        double memory_bytes = 0;
        double monthly_dollars = 0;
        bool operator==(const PolicySavings&) const = default;
    };
    // One policy's savings (zero: none), and its namespace's sums again.
    void set_savings(const std::string& ns, const std::string& policy, PolicySavings s);
    // Drops a deleted policy's series; the namespace's sums go without it.
    void remove_savings(const std::string& ns, const std::string& policy);

private:
    void publish_namespace_savings(const std::string& ns);

    std::map<std::pair<std::string, std::string>, std::vector<std::string>> published_;  // (ns, workload) -> containers
    std::map<std::pair<std::string, std::string>, PolicySavings> savings_;               // (ns, policy)
};

// The gauge's reason label: "hpa_scaled_to_zero" | "manual_zero" | "" (None).
std::string_view idle_metric_reason(core::IdleKind kind) noexcept;

}  // namespace attune::controller
