#include <attune/controller/status_aggregation.hpp>

#include <boost/json/parse.hpp>

#include <gtest/gtest.h>

namespace attune::controller {
namespace {
using core::IdleKind;

workload_report rep(std::string name, IdleKind idle, std::vector<std::string> by = {"p"},
                    std::string kind = "Deployment") {
    workload_report r;
    r.ns = "ns";
    r.kind = std::move(kind);
    r.name = std::move(name);
    r.uid = r.name + "-uid";
    r.api_version = "apps/v1";
    r.idle = idle;
    r.hpa_name = idle == IdleKind::HPAScaledToZero ? "h" : "";
    r.selected_by = std::move(by);
    return r;
}

TEST(StatusAggregation, PassCompletesOnlyWhenEveryTargetReported) {
    status_aggregation s;
    EXPECT_FALSE(s.begin_pass("ns", "p", 1, {"ns/Deployment/a", "ns/Deployment/b", "ns/Deployment/c"}, std::nullopt));
    EXPECT_TRUE(s.report(rep("a", IdleKind::ManualZero)).empty());
    EXPECT_TRUE(s.report(rep("b", IdleKind::None)).empty());
    EXPECT_EQ(s.pending("ns", "p"), 1u);
    auto done = s.report(rep("c", IdleKind::HPAScaledToZero));
    ASSERT_EQ(done.size(), 1u);
    const auto& c = done[0];
    EXPECT_TRUE(c.changed);
    EXPECT_EQ(c.status.observed_generation, 1);
    EXPECT_EQ(c.status.idle_workloads,
              (std::vector<idle_workload>{{"a", "Deployment", "WorkloadReplicasZero"}, {"c", "Deployment", "HPAScaledToZero"}}));
    EXPECT_EQ(c.hpa_scaled_to_zero, 1u);
    EXPECT_EQ(c.manual_zero, 1u);
    ASSERT_EQ(c.entered_hpa_scaled_to_zero.size(), 1u);
    EXPECT_EQ(c.entered_hpa_scaled_to_zero[0].name, "c");
}

TEST(StatusAggregation, PolicyWithoutTargetsCompletesAtOnce) {
    status_aggregation s;
    auto c = s.begin_pass("ns", "p", 2, {}, std::nullopt);
    ASSERT_TRUE(c);
    EXPECT_TRUE(c->status.idle_workloads.empty());
    EXPECT_TRUE(c->changed);  // never written: write the empty status once
}

TEST(StatusAggregation, UnchangedStatusIsNotWrittenAgain) {
    status_aggregation s;
    s.begin_pass("ns", "p", 1, {"ns/Deployment/a"}, std::nullopt);
    auto first = s.report(rep("a", IdleKind::ManualZero));
    ASSERT_EQ(first.size(), 1u);
    s.mark_written("ns", "p", first[0].status);
    auto again = s.report(rep("a", IdleKind::ManualZero));  // a pass of one
    ASSERT_EQ(again.size(), 1u);
    EXPECT_FALSE(again[0].changed);
    auto moved = s.report(rep("a", IdleKind::None));
    ASSERT_EQ(moved.size(), 1u);
    EXPECT_TRUE(moved[0].changed);
    EXPECT_TRUE(moved[0].status.idle_workloads.empty());
}

TEST(StatusAggregation, ServerStatusIsTheFirstBaseline) {
    status_aggregation s;
    policy_status on_server{{{"a", "Deployment", "HPAScaledToZero"}}, 1};
    s.begin_pass("ns", "p", 1, {"ns/Deployment/a"}, on_server);
    auto c = s.report(rep("a", IdleKind::HPAScaledToZero));
    ASSERT_EQ(c.size(), 1u);
    EXPECT_FALSE(c[0].changed);                          // a restart does not rewrite it
    EXPECT_TRUE(c[0].entered_hpa_scaled_to_zero.empty());  // nor re-announce it
}

TEST(StatusAggregation, HpaScaledToZeroEventOnlyWhenEntering) {
    status_aggregation s;
    s.begin_pass("ns", "p", 1, {"ns/Deployment/a"}, std::nullopt);
    EXPECT_EQ(s.report(rep("a", IdleKind::HPAScaledToZero))[0].entered_hpa_scaled_to_zero.size(), 1u);
    EXPECT_EQ(s.report(rep("a", IdleKind::HPAScaledToZero))[0].entered_hpa_scaled_to_zero.size(), 0u);
    s.report(rep("a", IdleKind::None));
    EXPECT_EQ(s.report(rep("a", IdleKind::HPAScaledToZero))[0].entered_hpa_scaled_to_zero.size(), 1u);
}

TEST(StatusAggregation, DeletedOrUnselectedWorkloadsLeaveTheStatus) {
    status_aggregation s;
    s.begin_pass("ns", "p", 1, {"ns/Deployment/a", "ns/Deployment/b"}, std::nullopt);
    s.report(rep("a", IdleKind::ManualZero));
    s.report(rep("b", IdleKind::ManualZero));
    auto gone = s.report(rep("a", IdleKind::None, {}));  // deleted: selected by nobody
    ASSERT_EQ(gone.size(), 1u);
    EXPECT_EQ(gone[0].status.idle_workloads, (std::vector<idle_workload>{{"b", "Deployment", "WorkloadReplicasZero"}}));
    auto relabelled = s.report(rep("b", IdleKind::ManualZero, {"other"}));
    ASSERT_EQ(relabelled.size(), 1u);
    EXPECT_TRUE(relabelled[0].status.idle_workloads.empty());
}

TEST(StatusAggregation, NewlySelectedWorkloadJoinsOutsideAPass) {
    status_aggregation s;
    s.begin_pass("ns", "p", 1, {}, std::nullopt);
    auto c = s.report(rep("new", IdleKind::ManualZero, {"p"}, "StatefulSet"));
    ASSERT_EQ(c.size(), 1u);
    EXPECT_EQ(c[0].status.idle_workloads, (std::vector<idle_workload>{{"new", "StatefulSet", "WorkloadReplicasZero"}}));
}

TEST(StatusAggregation, ReportsConcernOnlyPoliciesOfTheirNamespaceThatTrackThem) {
    status_aggregation s;
    s.begin_pass("ns", "p", 1, {"ns/Deployment/a"}, std::nullopt);
    s.begin_pass("ns", "q", 1, {"ns/Deployment/b"}, std::nullopt);
    s.begin_pass("other", "p", 1, {"other/Deployment/a"}, std::nullopt);
    auto c = s.report(rep("a", IdleKind::ManualZero, {"p"}));
    ASSERT_EQ(c.size(), 1u);
    EXPECT_EQ(c[0].ns, "ns");
    EXPECT_EQ(c[0].policy, "p");
    EXPECT_EQ(s.pending("ns", "q"), 1u);
    EXPECT_EQ(s.pending("other", "p"), 1u);
    EXPECT_TRUE(s.report(rep("zzz", IdleKind::ManualZero, {})).empty());  // unrelated
}

TEST(StatusAggregation, NewPassRestartsPendingAndDropsUnselected) {
    status_aggregation s;
    s.begin_pass("ns", "p", 1, {"ns/Deployment/a", "ns/Deployment/b"}, std::nullopt);
    s.report(rep("a", IdleKind::ManualZero));
    s.report(rep("b", IdleKind::ManualZero));
    s.begin_pass("ns", "p", 2, {"ns/Deployment/a"}, std::nullopt);  // spec changed: b no longer selected
    EXPECT_EQ(s.pending("ns", "p"), 1u);
    auto c = s.report(rep("a", IdleKind::ManualZero));
    ASSERT_EQ(c.size(), 1u);
    EXPECT_EQ(c[0].status.observed_generation, 2);
    EXPECT_EQ(c[0].status.idle_workloads.size(), 1u);
    s.forget_policy("ns", "p");
    EXPECT_FALSE(s.tracks("ns", "p"));
}

TEST(StatusAggregation, StatusFromPolicyAndPatchBody) {
    auto p = boost::json::parse(R"({"status":{"observedGeneration":4,"idleWorkloads":[
        {"workload":"z","kind":"StatefulSet","reason":"WorkloadReplicasZero"},
        {"workload":"a","kind":"Deployment","reason":"HPAScaledToZero"}]}})");
    auto st = policy_status_from(p);
    EXPECT_EQ(st.observed_generation, 4);
    ASSERT_EQ(st.idle_workloads.size(), 2u);
    EXPECT_EQ(st.idle_workloads[0].workload, "a");  // sorted like ours
    EXPECT_EQ(policy_status_from(boost::json::parse("{}")), policy_status{});
    EXPECT_EQ(status_patch_body(policy_status{{}, 3}), R"({"status":{"idleWorkloads":[],"observedGeneration":3}})");
    EXPECT_EQ(status_patch_body(policy_status{{{"w", "Deployment", "HPAScaledToZero"}}, 1}),
              R"({"status":{"idleWorkloads":[{"workload":"w","kind":"Deployment","reason":"HPAScaledToZero"}],"observedGeneration":1}})");
}

}  // namespace
}  // namespace attune::controller
