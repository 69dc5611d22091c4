#include <attune/controller/executor/executor_metrics.hpp>

#include <attune/core/resize/resize_events.hpp>

namespace attune::controller {
using namespace prometheus;

namespace {
Family<Counter>& counter(Registry& r, const char* name, const char* help) {
    return BuildCounter().Name(name).Help(help).Register(r);
}
Family<Gauge>& gauge(Registry& r, const char* name, const char* help) {
    return BuildGauge().Name(name).Help(help).Register(r);
}
Family<Histogram>& histogram(Registry& r, const char* name, const char* help) {
    return BuildHistogram().Name(name).Help(help).Register(r);
}
}  // namespace

ExecutorMetrics::ExecutorMetrics(Registry& r)
    : resize_total(counter(r, "attune_resize_total", "in-place resizes by resource and result (success: Applied)")),
      resize_duration(histogram(r, "attune_resize_duration_seconds",
                                "time from the /resize PATCH until the pod reported the resize Applied")),
      envelope_raised(counter(r, "attune_envelope_raised_total",
                              "pod-level envelopes (spec.resources) raised in the same /resize")),
      envelope_blocked(counter(r, "attune_envelope_blocked_total",
                               "resizes skipped because the pod-level envelope cannot be raised here")),
      pods_deferred(gauge(r, "attune_pods_deferred", "pods whose kubelet reports the resize Deferred")),
      pods_infeasible(gauge(r, "attune_pods_infeasible", "pods whose kubelet reports the resize Infeasible")),
      deferred_age(BuildHistogram()
                       .Name("attune_deferred_age_seconds")
                       .Help("how long a resize stayed Deferred before it settled")
                       .Register(r)),
      reverts(counter(r, "attune_reverts_total", "safety reverts to the stored originals, by reason")),
      revert_failures(counter(r, "attune_revert_failures_total", "safety reverts that could not be sent")),
      evictions(counter(r, "attune_eviction_total", "InPlaceOrRecreate evictions, by result")),
      infeasible_skipped(counter(r, "attune_infeasible_skipped_total",
                                 "Infeasible resizes left alone under InPlaceOnly (InfeasibleBlocked)")),
      template_patches(counter(r, "attune_template_patch_total", "pod template persistence patches, by result")),
      startup_boost(
          counter(r, "attune_startup_boost_total",
                  "startup CPU boosts, by namespace, policy and action (applied at CREATE, restored, cleared)")),
      capacity_skips(counter(r, "attune_capacity_skip_total", "resizes held by a gate or the planner, by reason")),
      schedule_skipped(counter(r, "attune_schedule_skipped_total", "increases held outside the schedule windows")),
      budget_exhausted(counter(r, "attune_budget_exhausted_total", "increases held by the cycle budget")),
      memory_limit_decrease(
          counter(r, "attune_memory_limit_decrease_total", "memory limit decreases, applied in place or clamped")) {}

void ExecutorMetrics::count_skip(const std::string& ns, const std::string& policy, std::string_view reason) {
    const auto metric = core::skip_report(reason).metric;
    if (metric == "attune_capacity_skip_total")
        capacity_skips.Add({{"namespace", ns}, {"policy", policy}, {"reason", std::string(reason)}}).Increment();
    else if (metric == "attune_envelope_blocked_total")
        envelope_blocked.Add({{"namespace", ns}, {"policy", policy}}).Increment();
    else if (metric == "attune_schedule_skipped_total")
        schedule_skipped.Add({{"namespace", ns}, {"policy", policy}}).Increment();
    else if (metric == "attune_budget_exhausted_total")
        budget_exhausted.Add({{"namespace", ns}, {"policy", policy}}).Increment();
}

void ExecutorMetrics::observe_resize_duration(const std::string& ns, const std::string& workload, double seconds) {
    static const Histogram::BucketBoundaries kDefault{.005, .01, .025, .05, .1, .25, .5, 1, 2.5, 5, 10};
    resize_duration.Add({{"namespace", ns}, {"workload", workload}}, kDefault).Observe(seconds);
}

void ExecutorMetrics::observe_deferred_age(const std::string& ns, const std::string& policy, double seconds) {
    static const Histogram::BucketBoundaries kAge{30, 60, 120, 300, 600, 1800, 3600, 7200};
    deferred_age.Add({{"namespace", ns}, {"policy", policy}}, kAge).Observe(seconds);
}

void ExecutorMetrics::set_kubelet_states(const std::string& ns, const std::string& policy, int deferred,
                                         int infeasible) {
    pods_deferred.Add({{"namespace", ns}, {"policy", policy}}).Set(deferred);
    pods_infeasible.Add({{"namespace", ns}, {"policy", policy}}).Set(infeasible);
}

void ExecutorMetrics::remove_policy(const std::string& ns, const std::string& policy) {
    pods_deferred.Remove(&pods_deferred.Add({{"namespace", ns}, {"policy", policy}}));
    pods_infeasible.Remove(&pods_infeasible.Add({{"namespace", ns}, {"policy", policy}}));
}

}  // namespace attune::controller
