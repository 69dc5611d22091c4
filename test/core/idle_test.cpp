#include "attune/core/idle.hpp"

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

// Seed 000 Feature 2 "Tests": table-driven ClassifyWorkloadIdle.
TEST(ClassifyWorkloadIdle, SeedTable) {
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
    };
    for (const auto& c : cases) EXPECT_EQ(classify_workload_idle(c.w, c.hpa), c.want) << c.name;
}

// Seed: status.replicas==0 with spec.replicas==3 must be IdleNone.
TEST(ClassifyWorkloadIdle, StatusReplicasZeroWithSpecReplicasThreeIsNone) {
    auto w = decode_workload("Deployment", boost::json::parse(
                                               R"({"metadata":{"name":"web"},"spec":{"replicas":3},"status":{"replicas":0}})"));
    ASSERT_TRUE(w.ok());
    EXPECT_EQ(w.value().spec_replicas, 3);
    EXPECT_EQ(classify_workload_idle(w.value(), nullptr), IdleKind::None);
}

TEST(DecodeWorkload, ReadsSpecReplicasOnlyAndNothingForDaemonSetJobOrCronJob) {
    auto zero = decode_workload("StatefulSet", boost::json::parse(R"({"spec":{"replicas":0},"status":{"replicas":2}})"));
    ASSERT_TRUE(zero.ok());
    EXPECT_EQ(zero.value().spec_replicas, 0);
    auto defaulted = decode_workload("ReplicaSet", boost::json::parse(R"({"spec":{}})"));
    EXPECT_EQ(defaulted.value().spec_replicas, 1);
    for (const char* k : {"DaemonSet", "Job", "CronJob"}) {
        auto w = decode_workload(k, boost::json::parse(R"({"spec":{"replicas":0}})"));
        ASSERT_TRUE(w.ok());
        EXPECT_FALSE(w.value().spec_replicas.has_value()) << k;
        EXPECT_EQ(classify_workload_idle(w.value(), nullptr), IdleKind::None) << k;  // never idle-classified
    }
    EXPECT_FALSE(decode_workload("Pod", boost::json::parse("{}")).ok());
    auto bad = decode_workload("Deployment", boost::json::parse(R"({"spec":{"replicas":"three"}})"));
    ASSERT_FALSE(bad.ok());
    EXPECT_EQ(bad.error().code, "invalid_workload");
}

TEST(IdleReason, Strings) {
    EXPECT_EQ(idle_reason(IdleKind::HPAScaledToZero), "HPAScaledToZero");
    EXPECT_EQ(idle_reason(IdleKind::ManualZero), "WorkloadReplicasZero");
    EXPECT_EQ(idle_reason(IdleKind::None), "");
}

// Seed: CheckHPAConflict with resource vs object vs external metrics.
TEST(CheckHpaConflict, OnlyCpuOrMemoryResourceMetricsConflict) {
    struct Case {
        const char* name;
        std::vector<HpaMetric> metrics;
        bool conflict;
    } cases[] = {
        {"Resource cpu", {{"Resource", "cpu"}}, true},
        {"Resource memory", {{"Resource", "memory"}}, true},
        {"ContainerResource cpu", {{"ContainerResource", "cpu"}}, true},
        {"Object only", {{"Object", ""}}, false},
        {"External only", {{"External", ""}}, false},
        {"Pods metric", {{"Pods", ""}}, false},
        {"External plus Resource cpu", {{"External", ""}, {"Resource", "cpu"}}, true},
        {"Resource ephemeral-storage", {{"Resource", "ephemeral-storage"}}, false},
        {"no metrics defaults to 80% CPU", {}, true},
    };
    for (const auto& c : cases) {
        const HpaView hpas[] = {hpa_with({}, 1, c.metrics)};
        EXPECT_EQ(check_hpa_conflict(hpas, "web", "Deployment").has_value(), c.conflict) << c.name;
        EXPECT_FALSE(check_hpa_conflict(hpas, "other", "Deployment").has_value()) << c.name;
        EXPECT_FALSE(check_hpa_conflict(hpas, "web", "StatefulSet").has_value()) << c.name;
    }
}

constexpr const char* kHpaJson = R"({
  "metadata": {"name": "web", "namespace": "shop", "managedFields": [{"manager": "kube-controller-manager"}]},
  "spec": {"scaleTargetRef": {"apiVersion": "apps/v1", "kind": "Deployment", "name": "web"},
           "minReplicas": 0, "maxReplicas": 5,
           "metrics": [{"type": "External", "external": {"metric": {"name": "queue"}}},
                       {"type": "ContainerResource", "containerResource": {"name": "memory", "container": "app"}}]},
  "status": {"currentMetrics": [{"type": "External"}],
             "conditions": [{"type": "ScaledToZero", "status": "True", "reason": "ScaledToZero", "message": "idle"}]}
})";

TEST(DecodeHpa, ReadsTargetMetricsAndConditions) {
    auto r = decode_hpa(boost::json::parse(kHpaJson));
    ASSERT_TRUE(r.ok()) << r.error().message;
    const HpaView& h = r.value();
    EXPECT_EQ(h.target_kind, "Deployment");
    EXPECT_EQ(h.min_replicas, 0);
    EXPECT_EQ(h.max_replicas, 5);
    ASSERT_EQ(h.metrics.size(), 2u);
    EXPECT_EQ(h.metrics[1].resource_name, "memory");
    EXPECT_TRUE(hpa_has_resource_metric(h, {"memory"}));
    EXPECT_FALSE(hpa_has_resource_metric(h, {"cpu"}));
    const HpaView hpas[] = {h};
    EXPECT_EQ(find_matching_hpa(hpas, "Deployment", "web"), &hpas[0]);
    EXPECT_EQ(find_matching_hpa(hpas, "Deployment", "api"), nullptr);
    EXPECT_FALSE(decode_hpa(boost::json::parse(R"({"spec":{}})")).ok());
}

// Seed: "Add a unit test that a ScaledToZero=True condition survives
// StripHPAFields."
TEST(StripHpaJson, ScaledToZeroConditionSurvivesStrip) {
    auto json = boost::json::parse(kHpaJson);
    strip_hpa_json(json.as_object());
    EXPECT_FALSE(json.at("metadata").as_object().contains("managedFields"));
    EXPECT_FALSE(json.at("status").as_object().contains("currentMetrics"));
    auto r = decode_hpa(json);
    ASSERT_TRUE(r.ok());
    EXPECT_EQ(classify_workload_idle(deploy(0), &r.value()), IdleKind::HPAScaledToZero);
}

}  // namespace
}  // namespace attune::core
