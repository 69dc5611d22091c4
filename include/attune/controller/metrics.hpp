#pragma once
// The controller's metrics, built once against the manager's one registry.
// Labels stay low-cardinality: a namespace and policy name (bounded by the
// number of policies), a reason keyword, a task name.
#include <attune/core/idle.hpp>

#include <prometheus/counter.h>
#include <prometheus/family.h>
#include <prometheus/gauge.h>
#include <prometheus/registry.h>

#include <string>
#include <string_view>

namespace attune::controller {

struct controller_metrics {
    explicit controller_metrics(prometheus::Registry& registry);

    prometheus::Family<prometheus::Gauge>& workload_idle;         // {namespace, policy, reason}
    prometheus::Family<prometheus::Counter>& coroutine_restarts;  // {task}
    prometheus::Family<prometheus::Counter>& reconciles;          // {kind, result}
    prometheus::Family<prometheus::Counter>& status_writes;       // {result}
    prometheus::Family<prometheus::Counter>& passes;              // {result}: complete
    prometheus::Gauge& workqueue_depth;
    prometheus::Counter& workqueue_adds;
    prometheus::Counter& workqueue_retries;
    prometheus::Gauge& informers_synced;

    // Sets attune_workload_idle for both reasons of one policy.
    void set_idle(const std::string& ns, const std::string& policy, std::size_t hpa_scaled_to_zero,
                  std::size_t manual_zero);
    // Drops a deleted policy's series.
    void remove_idle(const std::string& ns, const std::string& policy);
};

// The gauge's reason label: "hpa_scaled_to_zero" | "manual_zero" | "" (None).
std::string_view idle_metric_reason(core::IdleKind kind) noexcept;

}  // namespace attune::controller
