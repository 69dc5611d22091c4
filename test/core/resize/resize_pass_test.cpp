#include "attune/core/resize/resize_pass.hpp"

#include <gtest/gtest.h>

#include "test_pods.hpp"

namespace attune::core {
namespace {

using testing::rl;

std::vector<std::string> names(const std::vector<PassCandidate>& c, const PassSelection& s) {
    std::vector<std::string> out;
    for (auto i : s.pods) out.push_back(c[i].name);
    return out;
}

TEST(ResizePass, WhichPodsAPassResizes) {
    const std::vector<PassCandidate> idle = {{"web-c", true, false}, {"web-a", true, false}, {"web-b", false, false}};
    const std::vector<PassCandidate> one_in_flight = {{"web-a", false, true}, {"web-b", true, false},
                                                      {"web-c", true, false}};
    struct Case {
        const char* name;
        UpdateMode mode;
        const std::vector<PassCandidate>* pods;
        std::vector<std::string> want;
        int max_submissions;
        bool waiting;
    };
    // One row per line where it fits.
    // clang-format off
    const Case cases[] = {
        {"Auto: every eligible pod, by name", UpdateMode::Auto, &idle, {"web-a", "web-c"}, -1, false},
        {"Auto: pods in flight are followed, not resized again", UpdateMode::Auto, &one_in_flight,
         {"web-b", "web-c"}, -1, false},
        {"OneShot: one replica: the first eligible pod that needs a change", UpdateMode::OneShot, &idle,
         {"web-a", "web-c"}, 1, false},
        {"OneShot: nothing while a replica is in flight", UpdateMode::OneShot, &one_in_flight, {}, 0, true},
        {"Canary belongs to the lifecycle (docs/lifecycle.md): nothing here", UpdateMode::Canary, &idle, {}, 0, false},
        {"Recommend never resizes", UpdateMode::Recommend, &idle, {}, 0, false},
        {"Observe never resizes", UpdateMode::Observe, &idle, {}, 0, false},
    };
    // clang-format on
    for (const auto& c : cases) {
        const auto s = select_pass_pods(c.mode, *c.pods);
        EXPECT_EQ(names(*c.pods, s), c.want) << c.name;
        EXPECT_EQ(s.max_submissions, c.max_submissions) << c.name;
        EXPECT_EQ(s.waiting, c.waiting) << c.name;
    }
}

TEST(ResizeCycle, OpensWithTheFirstResizeAndCountsSlotsAndBudget) {
    ResizeCycleBook b;
    EXPECT_FALSE(b.view("shop/web").open);
    b.submit("shop/web", "api", "u1", rl({{"cpu", "200m"}}));
    b.submit("shop/web", "api", "u2", rl({{"cpu", "300m"}, {"memory", "64Mi"}}));
    const auto v = b.view("shop/web");
    EXPECT_TRUE(v.open);
    EXPECT_EQ(v.in_flight, 2);
    EXPECT_EQ(v.increase_used, rl({{"cpu", "500m"}, {"memory", "64Mi"}}));
    EXPECT_FALSE(b.view("shop/other").open) << "cycles are per policy";
}

TEST(ResizeCycle, AWithdrawnResizeGivesItsSlotAndBudgetBack) {
    ResizeCycleBook b;
    b.submit("p", "api", "u1", rl({{"cpu", "200m"}}));
    b.withdraw("p", "u1");
    EXPECT_EQ(b.view("p").in_flight, 0);
    EXPECT_TRUE(b.view("p").increase_used.empty());
    const auto close = b.pass_done("p", "api", false);
    ASSERT_TRUE(close);
    EXPECT_FALSE(close->applied_any) << "nothing applied: no new cooldown anchor";
}

TEST(ResizeCycle, ClosesOnlyWhenNothingIsInFlightAndNoWorkloadWaits) {
    ResizeCycleBook b;
    b.submit("p", "api", "u1", rl({{"cpu", "200m"}}));
    EXPECT_FALSE(b.pass_done("p", "api", true)) << "u1 in flight, and api has pods waiting for a slot";
    b.settle("p", "u1", true);
    EXPECT_EQ(b.view("p").increase_used, rl({{"cpu", "200m"}})) << "an applied increase stays spent";
    EXPECT_EQ(b.waiting_workloads("p"), std::vector<std::string>{"api"});
    EXPECT_FALSE(b.pass_done("p", "worker", false)) << "api still waits";
    b.submit("p", "api", "u2", {});
    EXPECT_FALSE(b.pass_done("p", "api", false));
    b.settle("p", "u2", false);
    const auto close = b.pass_done("p", "api", false);
    ASSERT_TRUE(close);
    EXPECT_TRUE(close->applied_any);
    EXPECT_FALSE(b.view("p").open);
    EXPECT_FALSE(b.pass_done("p", "api", false)) << "no cycle, nothing to close";
}

// A validating lifecycle attempt holds its cycle open between
// steps (nothing in flight during a pause) without being a workload that
// waits for a slot, so no other workload's pass re-queues it in a loop.
TEST(ResizeCycle, AValidatingAttemptHoldsTheCycleOpenWithoutWaitingForASlot) {
    ResizeCycleBook b;
    b.submit("p", "web", "u1", {});
    b.settle("p", "u1", true);
    EXPECT_FALSE(b.pass_done("p", "web", false, true)) << "step 1 paused: the cycle stays open";
    EXPECT_TRUE(b.view("p").open);
    EXPECT_TRUE(b.waiting_workloads("p").empty());
    b.submit("p", "web", "u2", {});
    b.settle("p", "u2", true);
    const auto close = b.pass_done("p", "web", false, false);
    ASSERT_TRUE(close) << "validated: the cycle closes";
    EXPECT_TRUE(close->applied_any);
}

TEST(ResizeCycle, AnEvictionCountsAsAnActionForTheCooldown) {
    ResizeCycleBook b;
    b.submit("p", "api", "u1", {});
    b.settle("p", "u1", false);  // Infeasible
    EXPECT_FALSE(b.view("p").cooldown_applies);
    b.acted("p");                // then evicted
    EXPECT_TRUE(b.view("p").cooldown_applies) << "the recreated pod waits a cooldown";
    const auto close = b.pass_done("p", "api", false);
    ASSERT_TRUE(close);
    EXPECT_TRUE(close->applied_any);
}

TEST(ResizeCycle, AResizeGivenUpReturnsItsBudget) {
    ResizeCycleBook b;
    b.submit("p", "api", "u1", rl({{"memory", "1Gi"}}));
    b.settle("p", "u1", false);
    EXPECT_TRUE(b.view("p").increase_used.empty());
}

}  // namespace
}  // namespace attune::core
