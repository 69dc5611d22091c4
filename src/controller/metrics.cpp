#include <attune/controller/metrics.hpp>

#include <algorithm>

namespace attune::controller {
using namespace prometheus;

ControllerMetrics::ControllerMetrics(Registry& r)
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
                           .Add({})),
      recommendation_cpu_cores(BuildGauge()
                                   .Name("attune_recommendation_cpu_cores")
                                   .Help("recommended cpu request per container, in cores")
                                   .Register(r)),
      recommendation_memory_bytes(BuildGauge()
                                      .Name("attune_recommendation_memory_bytes")
                                      .Help("recommended memory request per container, in bytes")
                                      .Register(r)),
      confidence(BuildGauge()
                     .Name("attune_confidence")
                     .Help("confidence of the recommendation per container, 0 to 1")
                     .Register(r)),
      prometheus_query_duration(
          BuildHistogram()
              .Name("attune_prometheus_query_duration_seconds")
              .Help("Prometheus range queries by query_type (cpu, memory), whatever their outcome")
              .Register(r)),
      prometheus_query_errors(BuildCounter()
                                  .Name("attune_prometheus_query_errors_total")
                                  .Help("Prometheus queries that failed (unreachable, timeout, error answer, garbage)")
                                  .Register(r)),
      nan_inf_samples(BuildCounter()
                          .Name("attune_nan_inf_samples_total")
                          .Help("NaN and infinite samples dropped from Prometheus answers")
                          .Register(r)),
      reclaimed_cpu_cores(BuildGauge()
                              .Name("attune_reclaimed_request_cpu_cores")
                              .Help("CPU requests the policy's recommendations would reclaim, in cores")
                              .Register(r)),
      reclaimed_memory_bytes(BuildGauge()
                                 .Name("attune_reclaimed_request_memory_bytes")
                                 .Help("Memory requests the policy's recommendations would reclaim, in bytes")
                                 .Register(r)),
      savings_cpu_cores(BuildGauge()
                            .Name("attune_savings_cpu_cores_total")
                            .Help("CPU requests the namespace's policies would reclaim, in cores")
                            .Register(r)),
      savings_memory_bytes(BuildGauge()
                               .Name("attune_savings_memory_bytes_total")
                               .Help("Memory requests the namespace's policies would reclaim, in bytes")
                               .Register(r)),
      savings_monthly_dollars(
          BuildGauge()
              .Name("attune_savings_estimated_monthly_dollars")
              .Help("Estimated monthly savings of the namespace's policies, priced with costPricing")
              .Register(r)),
      policy_events(BuildCounter()
                        .Name("attune_policy_events_total")
                        .Help("Events decided by the controller, by what became of them")
                        .Register(r)),
      gitops_pr(BuildCounter()
                    .Name("attune_gitops_pr_total")
                    .Help("GitOps pull request attempts by result (created, updated, dry_run, failed)")
                    .Register(r)),
      event_queue_depth(
          BuildGauge().Name("attune_event_queue_depth").Help("Events waiting to be sent").Register(r).Add({})) {}

void ControllerMetrics::set_idle(const std::string& ns, const std::string& policy, std::size_t hpa_scaled_to_zero,
                                 std::size_t manual_zero) {
    workload_idle.Add({{"namespace", ns}, {"policy", policy}, {"reason", "hpa_scaled_to_zero"}})
        .Set(static_cast<double>(hpa_scaled_to_zero));
    workload_idle.Add({{"namespace", ns}, {"policy", policy}, {"reason", "manual_zero"}})
        .Set(static_cast<double>(manual_zero));
}

void ControllerMetrics::remove_idle(const std::string& ns, const std::string& policy) {
    for (const char* reason : {"hpa_scaled_to_zero", "manual_zero"}) {
        auto& g = workload_idle.Add({{"namespace", ns}, {"policy", policy}, {"reason", reason}});
        workload_idle.Remove(&g);
    }
}

void ControllerMetrics::set_savings(const std::string& ns, const std::string& policy, PolicySavings s) {
    const Labels labels{{"namespace", ns}, {"policy", policy}};
    reclaimed_cpu_cores.Add(labels).Set(s.cpu_cores);
    reclaimed_memory_bytes.Add(labels).Set(s.memory_bytes);
    auto& known = savings_[{ns, policy}];
    if (known == s && savings_cpu_cores.Has({{"namespace", ns}})) return;
    known = s;
    publish_namespace_savings(ns);
}

void ControllerMetrics::remove_savings(const std::string& ns, const std::string& policy) {
    const Labels labels{{"namespace", ns}, {"policy", policy}};
    reclaimed_cpu_cores.Remove(&reclaimed_cpu_cores.Add(labels));
    reclaimed_memory_bytes.Remove(&reclaimed_memory_bytes.Add(labels));
    if (savings_.erase({ns, policy}) > 0) publish_namespace_savings(ns);
}

void ControllerMetrics::publish_namespace_savings(const std::string& ns) {
    PolicySavings sum;
    bool any = false;
    for (auto it = savings_.lower_bound({ns, std::string()}); it != savings_.end() && it->first.first == ns; ++it) {
        sum.cpu_cores += it->second.cpu_cores;
        sum.memory_bytes += it->second.memory_bytes;
        sum.monthly_dollars += it->second.monthly_dollars;
        any = true;
    }
    const Labels labels{{"namespace", ns}};
    if (!any) {
        savings_cpu_cores.Remove(&savings_cpu_cores.Add(labels));
        savings_memory_bytes.Remove(&savings_memory_bytes.Add(labels));
        savings_monthly_dollars.Remove(&savings_monthly_dollars.Add(labels));
        return;
    }
    savings_cpu_cores.Add(labels).Set(sum.cpu_cores);
    savings_memory_bytes.Add(labels).Set(sum.memory_bytes);
    savings_monthly_dollars.Add(labels).Set(sum.monthly_dollars);
}

void ControllerMetrics::set_recommendation(const std::string& ns, const std::string& workload,
                                           const std::vector<ContainerFigures>& containers) {
    auto labels = [&](const std::string& c) {
        return Labels{{"namespace", ns}, {"workload", workload}, {"container", c}};
    };
    const auto id = std::make_pair(ns, workload);
    auto& before = published_[id];
    for (const auto& old : before) {
        if (std::any_of(containers.begin(), containers.end(), [&](const auto& c) { return c.container == old; }))
            continue;
        for (auto* f : {&recommendation_cpu_cores, &recommendation_memory_bytes, &confidence})
            f->Remove(&f->Add(labels(old)));
    }
    before.clear();
    for (const auto& c : containers) {
        recommendation_cpu_cores.Add(labels(c.container)).Set(c.cpu_cores);
        recommendation_memory_bytes.Add(labels(c.container)).Set(c.memory_bytes);
        confidence.Add(labels(c.container)).Set(c.confidence);
        before.push_back(c.container);
    }
    if (before.empty()) published_.erase(id);
}

void ControllerMetrics::observe_query(std::string_view query_type, double seconds) {
    prometheus_query_duration
        .Add({{"query_type", std::string(query_type)}}, Histogram::BucketBoundaries{0.005, 0.01, 0.025, 0.05, 0.1, 0.25,
                                                                                    0.5, 1, 2.5, 5, 10})
        .Observe(seconds);
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
