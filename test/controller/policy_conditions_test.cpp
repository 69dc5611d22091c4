// The Ready and ScaledToZero conditions (docs/api.md#conditions), one row per reason.
#include <attune/controller/policy_conditions.hpp>

#include <gtest/gtest.h>

#include <functional>

namespace attune::controller {
namespace {

TEST(PolicyConditions, ReadyReasonsInPrecedenceOrder) {
    struct Row {
        const char* what;
        std::function<void(PolicyContext&, PassFacts&)> set;
        const char* status;
        const char* reason;
        const char* message;  // a part of it
    };
    const std::vector<Row> rows = {
        {"a failed defaults lookup beats everything",
         [](auto& p, auto& f) {
             p.config_error = "Failed to fetch defaults: x";
             p.paused = true;
             f.with_recommendations = 1;
         },
         "False", "InvalidConfig", "Failed to fetch defaults: x"},
        {"paused",
         [](auto& p, auto& f) {
             p.paused = true;
             f.with_recommendations = 1;
         },
         "False", "Paused", "Reconciliation paused by spec.paused=true"},
        {"no usable source", [](auto& p, auto&) { p.source_error = "no metrics source"; }, "False",
         "PrometheusUnavailable", "Cannot resolve metrics source: no metrics source"},
        {"the target kind's cache is missing", [](auto& p, auto&) { p.discovery_error = "not listed"; }, "False",
         "WorkloadDiscoveryFailed", "Failed to discover workloads: not listed"},
        {"nothing matched", [](auto&, auto& f) { f.managed = 0; }, "False", "NoWorkloadsFound",
         "No matching workloads found"},
        {"matched, but every one outranked or opted out",
         [](auto&, auto& f) {
             f.managed = 0;
             f.matched_only = 1;
         },
         "False", "NoWorkloadsFound",
         "The targetRef matches 1 workload, but none is managed by this policy: another policy outranks it "
         "(PolicyConflict) or the workload opted out with attune.io/skip (WorkloadOptOut)"},
        {"matched-only workloads beside managed ones are not watched",
         [](auto&, auto& f) {
             f.matched_only = 3;
             f.with_recommendations = 1;
         },
         "True", "Monitoring", "Watching 2 workloads, 1 with recommendations"},
        {"Observe", [](auto& p, auto&) { p.observe = true; }, "True", "Monitoring",
         "Observing 2 workloads; updateStrategy.type Observe computes no recommendations"},
        {"recommendations", [](auto&, auto& f) { f.with_recommendations = 1; }, "True", "Monitoring",
         "Watching 2 workloads, 1 with recommendations"},
        {"recommendations and a failed read",
         [](auto&, auto& f) {
             f.with_recommendations = 1;
             f.source_failures = 1;
             f.source_failure = "Deployment b: cpu query: timeout";
         },
         "True", "Monitoring",
         "metrics source errors on 1 workload (recommendations kept, marked stale): Deployment b"},
        {"only failed reads",
         [](auto&, auto& f) {
             f.source_failures = 2;
             f.source_failure = "Deployment a: cpu query: unreachable";
         },
         "False", "PrometheusUnavailable", "Metrics source errors on 2 of 2 workloads: Deployment a: cpu query"},
        {"a workload's data unusable",
         [](auto&, auto& f) {
             f.invalid = 1;
             f.invalid_message = "Deployment a: spec.metricsSource.manual: unknown container";
         },
         "False", "InvalidConfig", "Deployment a: spec.metricsSource.manual"},
        {"collecting",
         [](auto&, auto& f) {
             f.collecting = 2;
             f.collecting_message = "Collecting data: 3 of 48 points, about 22m remaining";
         },
         "False", "InsufficientData", "Collecting data: 3 of 48 points, about 22m remaining"},
        {"every target idle", [](auto&, auto& f) { f.idle = 2; }, "True", "Monitoring",
         "Watching 2 workloads, 0 with recommendations (2 idle)"},
    };
    for (const auto& r : rows) {
        SCOPED_TRACE(r.what);
        PolicyContext p;
        p.generation = 7;
        PassFacts f;
        f.managed = 2;
        r.set(p, f);
        const auto c = ready_condition(p, f);
        EXPECT_EQ(c.type, "Ready");
        EXPECT_EQ(c.status, r.status);
        EXPECT_EQ(c.reason, r.reason);
        EXPECT_NE(c.message.find(r.message), std::string::npos) << c.message;
        EXPECT_EQ(c.observed_generation, 7);
    }
}

TEST(PolicyConditions, TheReadyMessageNamesAnAutoDiscoveredPrometheus) {
    const std::string note =
        "Prometheus auto-discovered at http://prometheus-server.monitoring:9090 (Service "
        "monitoring/prometheus-server)";
    struct Row {
        const char* what;
        std::function<void(PolicyContext&, PassFacts&)> set;
        std::string message;  // the whole message
    };
    const std::vector<Row> rows = {
        {"recommendations", [](auto&, auto& f) { f.with_recommendations = 1; },
         "Watching 2 workloads, 1 with recommendations (" + note + ")"},
        {"the discovered Prometheus does not answer",
         [](auto&, auto& f) {
             f.source_failures = 2;
             f.source_failure = "Deployment a: cpu query: unreachable";
         },
         "Metrics source errors on 2 of 2 workloads: Deployment a: cpu query: unreachable (" + note + ")"},
        // Reasons decided before the source is resolved say nothing of it.
        {"paused", [](auto& p, auto&) { p.paused = true; }, "Reconciliation paused by spec.paused=true"},
        {"invalid", [](auto& p, auto&) { p.config_error = "bad"; }, "bad"},
    };
    for (const auto& r : rows) {
        SCOPED_TRACE(r.what);
        PolicyContext p;
        p.discovered_source = note;
        PassFacts f;
        f.managed = 2;
        r.set(p, f);
        EXPECT_EQ(ready_condition(p, f).message, r.message);
    }
}

TEST(PolicyConditions, ScaledToZeroNeedsEveryScaleableTargetIdle) {
    PolicyContext p;
    PassFacts f;
    EXPECT_FALSE(scaled_to_zero_condition(p, f));  // no scaleable target at all (DaemonSets only, say)
    f.scaleable = 2;
    f.scaleable_idle = 1;
    EXPECT_FALSE(scaled_to_zero_condition(p, f));
    f.scaleable_idle = 2;
    f.hpa_idle = 2;
    auto c = scaled_to_zero_condition(p, f);
    ASSERT_TRUE(c);
    EXPECT_EQ(c->type, "ScaledToZero");
    EXPECT_EQ(c->status, "True");
    EXPECT_EQ(c->reason, "AllTargetsIdle");
}

}  // namespace
}  // namespace attune::controller
