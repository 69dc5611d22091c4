#include "attune/core/model/idle.hpp"

#include <gtest/gtest.h>

#include <boost/json.hpp>

namespace attune::core {
namespace {

HpaView hpa_with(std::vector<HpaCondition> conds, std::optional<std::int32_t> min_replicas = 1,
                 std::vector<HpaMetric> metrics = {{"External", ""}}) {
    HpaView h;
    h.name = "web";
    h.target_kind = "Deployment";
    h.target_name = "web";
    h.min_replicas = min_replicas;
    h.metrics = std::move(metrics);
    h.conditions = std::move(conds);
    return h;
}

WorkloadView deploy(std::optional<std::int32_t> replicas) { return {"Deployment", "web", replicas}; }

// Table-driven ClassifyWorkloadIdle: each kind, replica count and HPA state.
TEST(ClassifyWorkloadIdle, EachKindReplicaCountAndHpaState) {
    const HpaView scaled = hpa_with({{"ScaledToZero", "True", "ScaledToZero", ""}}, 0);
    const HpaView not_scaled = hpa_with({{"ScaledToZero", "False", "", ""}}, 0);
    const HpaView absent = hpa_with({{"AbleToScale", "True", "", ""}}, 0);
    const HpaView min_one = hpa_with({}, 1);
    struct Case {
        const char* name;
        WorkloadView w;
        const HpaView* hpa;
        IdleKind want;
    } cases[] = {
        {"ScaledToZero True => HPA-held idle", deploy(0), &scaled, IdleKind::HPAScaledToZero},
        {"ScaledToZero True wins even if spec.replicas still reads 1", deploy(1), &scaled, IdleKind::HPAScaledToZero},
        {"ScaledToZero False, replicas 3 => active", deploy(3), &not_scaled, IdleKind::None},
        {"ScaledToZero False, replicas 0 => manual zero", deploy(0), &not_scaled, IdleKind::ManualZero},
        {"ScaledToZero absent, replicas 0 => manual zero", deploy(0), &absent, IdleKind::ManualZero},
        {"minReplicas 0 alone is not idle", deploy(3), &absent, IdleKind::None},
        {"minReplicas 1, replicas 3 => active", deploy(3), &min_one, IdleKind::None},
        {"spec.replicas 0 vs 3: 0 is manual zero", deploy(0), nullptr, IdleKind::ManualZero},
        {"spec.replicas 0 vs 3: 3 is active", deploy(3), nullptr, IdleKind::None},
        {"nil HPA, replicas 1 => active", deploy(1), nullptr, IdleKind::None},
        {"DaemonSet (Replicas()==nil) => active", {"DaemonSet", "agent", std::nullopt}, nullptr, IdleKind::None},
        {"Job (no replicas) => never idle", {"Job", "migrate", std::nullopt}, nullptr, IdleKind::None},
        {"CronJob (no replicas) => never idle", {"CronJob", "nightly", std::nullopt}, nullptr, IdleKind::None},
    };
    for (const auto& c : cases) EXPECT_EQ(classify_workload_idle(c.w, c.hpa), c.want) << c.name;
}

// status.replicas==0 with spec.replicas==3 must be IdleNone.
TEST(ClassifyWorkloadIdle, StatusReplicasZeroWithSpecReplicasThreeIsNone) {
    auto w = decode_workload("Deployment", boost::json::parse(
                                               R"({"metadata":{"name":"web"},"spec":{"replicas":3},"status":{"replicas":0}})"));
    ASSERT_TRUE(w.ok());
    EXPECT_EQ(w.value().spec_replicas, 3);
    EXPECT_EQ(classify_workload_idle(w.value(), nullptr), IdleKind::None);
}

TEST(IdleReason, Strings) {
    EXPECT_EQ(idle_reason(IdleKind::HPAScaledToZero), "HPAScaledToZero");
    EXPECT_EQ(idle_reason(IdleKind::ManualZero), "WorkloadReplicasZero");
    EXPECT_EQ(idle_reason(IdleKind::None), "");
}

}  // namespace
}  // namespace attune::core
