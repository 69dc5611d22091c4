#include <attune/controller/policy_conditions.hpp>

namespace attune::controller {

namespace {
core::Condition ready(const PolicyContext& p, bool ok, std::string reason, std::string message) {
    core::Condition c;
    c.type = std::string(kConditionReady);
    c.status = ok ? "True" : "False";
    c.reason = std::move(reason);
    c.message = std::move(message);
    c.observed_generation = p.generation;
    return c;
}

std::string plural(int n, const char* one, const char* many) {
    return std::to_string(n) + " " + (n == 1 ? one : many);
}
}  // namespace

namespace {
core::Condition ready_after_source(const PolicyContext& p, const PassFacts& f);
}  // namespace

core::Condition ready_condition(const PolicyContext& p, const PassFacts& f) {
    if (!p.config_error.empty()) return ready(p, false, "InvalidConfig", p.config_error);
    if (p.paused) return ready(p, false, "Paused", "Reconciliation paused by spec.paused=true");
    auto c = ready_after_source(p, f);
    // Where the data came from is part of every answer that used the source.
    if (!p.discovered_source.empty()) c.message += " (" + p.discovered_source + ")";
    return c;
}

namespace {
core::Condition ready_after_source(const PolicyContext& p, const PassFacts& f) {
    if (!p.source_error.empty())
        return ready(p, false, "PrometheusUnavailable", "Cannot resolve metrics source: " + p.source_error);
    if (!p.discovery_error.empty())
        return ready(p, false, "WorkloadDiscoveryFailed", "Failed to discover workloads: " + p.discovery_error);
    if (f.managed == 0 && f.matched_only > 0)
        return ready(p, false, "NoWorkloadsFound",
                     "The targetRef matches " + plural(f.matched_only, "workload", "workloads") +
                         ", but none is managed by this policy: another policy outranks it (PolicyConflict) or the "
                         "workload opted out with attune.io/skip (WorkloadOptOut)");
    if (f.managed == 0)
        return ready(p, false, "NoWorkloadsFound",
                     "No matching workloads found; check that targetRef name or selector matches an existing "
                     "workload in this namespace");
    if (p.observe)
        return ready(p, true, "Monitoring",
                     "Observing " + plural(f.managed, "workload", "workloads") +
                         "; updateStrategy.type Observe computes no recommendations");
    if (f.with_recommendations > 0) {
        std::string m = "Watching " + plural(f.managed, "workload", "workloads") + ", " +
                        std::to_string(f.with_recommendations) + " with recommendations";
        if (f.source_failures > 0)
            m += "; metrics source errors on " + plural(f.source_failures, "workload", "workloads") +
                 " (recommendations kept, marked stale): " + f.source_failure;
        if (f.invalid > 0) m += "; " + plural(f.invalid, "workload", "workloads") + " not usable: " + f.invalid_message;
        return ready(p, true, "Monitoring", std::move(m));
    }
    if (f.source_failures > 0)
        return ready(p, false, "PrometheusUnavailable",
                     "Metrics source errors on " + std::to_string(f.source_failures) + " of " +
                         plural(f.managed, "workload", "workloads") + ": " + f.source_failure);
    if (f.invalid > 0) return ready(p, false, "InvalidConfig", f.invalid_message);
    if (f.collecting > 0) return ready(p, false, "InsufficientData", f.collecting_message);
    return ready(p, true, "Monitoring",
                 "Watching " + plural(f.managed, "workload", "workloads") + ", 0 with recommendations (" +
                     std::to_string(f.idle) + " idle)");
}
}  // namespace

std::optional<core::Condition> scaled_to_zero_condition(const PolicyContext& p, const PassFacts& f) {
    if (f.scaleable == 0 || f.scaleable_idle < f.scaleable) return std::nullopt;
    core::Condition c;
    c.type = std::string(kConditionScaledToZero);
    c.status = "True";
    c.reason = "AllTargetsIdle";
    c.message = "All " + plural(f.scaleable, "scaleable target is", "scaleable targets are") + " idle: " +
                std::to_string(f.hpa_idle) + " held at zero by an HPA, " + std::to_string(f.manual_idle) +
                " with spec.replicas 0";
    c.observed_generation = p.generation;
    return c;
}

}  // namespace attune::controller
