#include <attune/controller/metrics.hpp>

namespace attune::controller {
using namespace prometheus;

controller_metrics::controller_metrics(Registry& r)
    : workload_idle(BuildGauge()
                        .Name("attune_workload_idle")
                        .Help("workloads a policy selects that are idle, by reason (hpa_scaled_to_zero, manual_zero)")
                        .Register(r)),
      coroutine_restarts(BuildCounter()
                             .Name("attune_coroutine_restarts_total")
                             .Help("spawned tasks restarted after an infrastructure failure")
                             .Register(r)),
      reconciles(BuildCounter().Name("attune_reconciles_total").Help("workqueue keys processed").Register(r)),
      status_writes(BuildCounter()
                        .Name("attune_policy_status_writes_total")
                        .Help("AttunePolicy status patches by result")
                        .Register(r)),
      passes(BuildCounter()
                 .Name("attune_policy_passes_total")
                 .Help("policy passes in which every selected workload reported")
                 .Register(r)),
      workqueue_depth(BuildGauge()
                          .Name("attune_workqueue_depth")
                          .Help("keys waiting in the workqueue (ready and delayed)")
                          .Register(r)
                          .Add({})),
      workqueue_adds(BuildCounter().Name("attune_workqueue_adds_total").Help("keys added").Register(r).Add({})),
      workqueue_retries(BuildCounter()
                            .Name("attune_workqueue_retries_total")
                            .Help("keys re-queued with backoff after a failure")
                            .Register(r)
                            .Add({})),
      informers_synced(BuildGauge()
                           .Name("attune_informers_synced")
                           .Help("1 once every informer finished its first list")
                           .Register(r)
                           .Add({})) {}

void controller_metrics::set_idle(const std::string& ns, const std::string& policy, std::size_t hpa_scaled_to_zero,
                                  std::size_t manual_zero) {
    workload_idle.Add({{"namespace", ns}, {"policy", policy}, {"reason", "hpa_scaled_to_zero"}})
        .Set(static_cast<double>(hpa_scaled_to_zero));
    workload_idle.Add({{"namespace", ns}, {"policy", policy}, {"reason", "manual_zero"}})
        .Set(static_cast<double>(manual_zero));
}

void controller_metrics::remove_idle(const std::string& ns, const std::string& policy) {
    for (const char* reason : {"hpa_scaled_to_zero", "manual_zero"}) {
        auto& g = workload_idle.Add({{"namespace", ns}, {"policy", policy}, {"reason", reason}});
        workload_idle.Remove(&g);
    }
}

std::string_view idle_metric_reason(core::IdleKind kind) noexcept {
    switch (kind) {
        case core::IdleKind::HPAScaledToZero: return "hpa_scaled_to_zero";
        case core::IdleKind::ManualZero: return "manual_zero";
        case core::IdleKind::None: break;
    }
    return "";
}

}  // namespace attune::controller
