#include <attune/controller/metrics.hpp>

#include <prometheus/registry.h>
#include <prometheus/text_serializer.h>

#include <gtest/gtest.h>

namespace attune::controller {
namespace {

TEST(ControllerMetrics, WorkloadIdleGaugeLabels) {
    prometheus::Registry reg;
    ControllerMetrics m(reg);
    m.set_idle("team-a", "web", 2, 1);
    const auto text = prometheus::TextSerializer().Serialize(reg.Collect());
    EXPECT_NE(text.find(R"(attune_workload_idle{namespace="team-a",policy="web",reason="hpa_scaled_to_zero"} 2)"),
              std::string::npos)
        << text;
    EXPECT_NE(text.find(R"(attune_workload_idle{namespace="team-a",policy="web",reason="manual_zero"} 1)"),
              std::string::npos);
    m.remove_idle("team-a", "web");
    const auto after = prometheus::TextSerializer().Serialize(reg.Collect());
    EXPECT_EQ(after.find(R"(policy="web")"), std::string::npos) << after;
}

TEST(ControllerMetrics, ReasonLabelValues) {
    EXPECT_EQ(idle_metric_reason(core::IdleKind::HPAScaledToZero), "hpa_scaled_to_zero");
    EXPECT_EQ(idle_metric_reason(core::IdleKind::ManualZero), "manual_zero");
    EXPECT_EQ(idle_metric_reason(core::IdleKind::None), "");
}

TEST(ControllerMetrics, CoroutineRestartsByTask) {
    prometheus::Registry reg;
    ControllerMetrics m(reg);
    m.coroutine_restarts.Add({{"task", "worker"}}).Increment();
    const auto text = prometheus::TextSerializer().Serialize(reg.Collect());
    EXPECT_NE(text.find(R"(attune_coroutine_restarts_total{task="worker"} 1)"), std::string::npos) << text;
}

TEST(ControllerMetrics, RecommendationGaugesFollowTheContainersAWorkloadHas) {
    prometheus::Registry reg;
    ControllerMetrics m(reg);
    m.set_recommendation("ns", "web", {{"app", 0.25, 268435456, 0.5}, {"side", 0.01, 1048576, 0.5}});
    auto text = prometheus::TextSerializer().Serialize(reg.Collect());
    EXPECT_NE(text.find(R"(attune_recommendation_cpu_cores{container="app",namespace="ns",workload="web"} 0.25)"),
              std::string::npos) << text;
    EXPECT_NE(text.find(R"(attune_recommendation_memory_bytes{container="side",namespace="ns",workload="web"} 1048576)"),
              std::string::npos);
    EXPECT_NE(text.find(R"(attune_confidence{container="app",namespace="ns",workload="web"} 0.5)"), std::string::npos);
    m.set_recommendation("ns", "web", {{"app", 0.3, 268435456, 0.6}});  // side went away
    text = prometheus::TextSerializer().Serialize(reg.Collect());
    EXPECT_EQ(text.find(R"(container="side")"), std::string::npos) << text;
    EXPECT_NE(text.find(R"(attune_recommendation_cpu_cores{container="app",namespace="ns",workload="web"} 0.3)"),
              std::string::npos);
    m.set_recommendation("ns", "web", {});  // the workload left the store
    text = prometheus::TextSerializer().Serialize(reg.Collect());
    EXPECT_EQ(text.find(R"(workload="web")"), std::string::npos) << text;
}

}  // namespace
TEST(ControllerMetrics, SavingsPerPolicyAndSummedPerNamespace) {
    prometheus::Registry reg;
    ControllerMetrics m(reg);
    auto text = [&] { return prometheus::TextSerializer().Serialize(reg.Collect()); };
    auto has = [&](const std::string& line) { return text().find(line) != std::string::npos; };
    m.set_savings("shop", "web", {0.3, 134217728, 11.86});
    m.set_savings("shop", "api", {0.2, 0, 4.5});
    m.set_savings("other", "db", {1, 0, 22.63});
    EXPECT_TRUE(has(R"(attune_reclaimed_request_cpu_cores{namespace="shop",policy="web"} 0.3)")) << text();
    EXPECT_TRUE(has(R"(attune_reclaimed_request_memory_bytes{namespace="shop",policy="web"} 134217728)"));
    EXPECT_TRUE(has(R"(attune_savings_cpu_cores_total{namespace="shop"} 0.5)"));
    EXPECT_TRUE(has(R"(attune_savings_memory_bytes_total{namespace="shop"} 134217728)"));
    EXPECT_TRUE(has(R"(attune_savings_estimated_monthly_dollars{namespace="shop"} 16.36)"));
    EXPECT_TRUE(has(R"(attune_savings_cpu_cores_total{namespace="other"} 1)"));
    // A policy's new figures replace its old ones in the sum.
    m.set_savings("shop", "api", {0, 0, 0});
    EXPECT_TRUE(has(R"(attune_savings_cpu_cores_total{namespace="shop"} 0.3)")) << text();
    // A deleted policy leaves the sum; the namespace's last one takes its series with it.
    m.remove_savings("shop", "web");
    EXPECT_FALSE(has(R"(policy="web")")) << text();
    EXPECT_TRUE(has(R"(attune_savings_cpu_cores_total{namespace="shop"} 0)"));
    m.remove_savings("shop", "api");
    EXPECT_FALSE(has(R"(namespace="shop")")) << text();
    EXPECT_TRUE(has(R"(attune_savings_cpu_cores_total{namespace="other"} 1)"));
}

}  // namespace attune::controller
