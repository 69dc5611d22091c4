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
}  // namespace attune::controller
