#include "attune/core/resize/resize_gate_inputs.hpp"

#include <gtest/gtest.h>

#include "test_pods.hpp"

namespace attune::core {
namespace {

using namespace std::chrono;
using testing::qty;

const Timestamp kNow = sys_days(2026y / December / 4) + 12h;

HistoryEntry entry(HistoryResult r) {
    HistoryEntry e;
    e.timestamp = kNow - 1h;
    e.workload = "web";
    e.container = "app";
    e.result = r;
    return e;
}

TEST(ResizeGateInputs, ThePolicysPartOfTheGates) {
    EffectivePolicy p;
    p.paused = true;
    p.update_strategy.cooldown = minutes(10);
    p.update_strategy.max_concurrent_resizes = 3;
    p.update_strategy.max_total_cpu_increase = qty("2");
    EffectiveSchedule s;
    s.windows.push_back({22 * 60, 2 * 60});
    s.days_of_week = {Weekday::Friday, Weekday::Sunday};
    s.timezone = "Europe/Berlin";
    p.update_strategy.schedule = s;
    const std::vector<HistoryEntry> h = {entry(HistoryResult::Success), entry(HistoryResult::Reverted),
                                         entry(HistoryResult::Reverted)};

    const auto g = policy_gate_inputs(p, h, std::string("2026-12-04T11:55:00Z"), kNow);
    EXPECT_TRUE(g.paused);
    EXPECT_EQ(g.now, kNow);
    EXPECT_EQ(g.cooldown.consecutive_reverts, 2) << "two reverts since the last success";
    EXPECT_EQ(g.cooldown.backoff_multiplier, 4);
    EXPECT_EQ(g.cooldown.effective, minutes(40));
    EXPECT_EQ(g.last_resize_time, "2026-12-04T11:55:00Z");
    ASSERT_EQ(g.schedule.windows.size(), 1u);
    EXPECT_EQ(g.schedule.windows[0].start_minute, 22 * 60);
    EXPECT_EQ(g.schedule.windows[0].end_minute, 2 * 60);
    EXPECT_EQ(g.schedule.days, (std::vector<weekday>{Friday, Sunday}));
    EXPECT_EQ(g.schedule.timezone, "Europe/Berlin");
    EXPECT_FALSE(g.zone) << "the shell loads the zone";
    EXPECT_EQ(g.max_concurrent_resizes, 3);
    EXPECT_EQ(g.max_total_cpu_increase, qty("2"));
    EXPECT_FALSE(g.max_total_memory_increase) << "unset is unlimited";
}

TEST(ResizeGateInputs, NoScheduleAndAnUnsetConcurrencyMeanTheDefaults) {
    EffectivePolicy p;
    p.update_strategy.max_concurrent_resizes = 0;
    const auto g = policy_gate_inputs(p, {}, std::nullopt, kNow);
    EXPECT_TRUE(g.schedule.windows.empty());
    EXPECT_EQ(g.max_concurrent_resizes, 1) << "0 counts as unset (docs/api.md#attunepolicy-spec)";
    EXPECT_FALSE(g.last_resize_time);
    EXPECT_EQ(g.cooldown.effective, hours(1));
}

// The open cycle: in flight and budget used always; the cooldown anchor is
// dropped inside an open cycle unless that cycle evicted a pod.
TEST(ResizeGateInputs, TheOpenCyclesPart) {
    struct Case {
        const char* name;
        CycleView cycle;
        bool anchor_kept;
    };
    const Case cases[] = {
        {"no cycle open: the cooldown gates", {}, true},
        {"inside an open cycle: its own pods are not held", {true, false, 2, {{"cpu", qty("300m")}}}, false},
        {"the open cycle evicted a pod: the cooldown holds the rest", {true, true, 1, {}}, true},
    };
    for (const auto& c : cases) {
        auto g = policy_gate_inputs(EffectivePolicy{}, {}, std::string("2026-12-04T11:55:00Z"), kNow);
        apply_cycle(g, c.cycle);
        EXPECT_EQ(g.last_resize_time.has_value(), c.anchor_kept) << c.name;
        EXPECT_EQ(g.resizes_in_flight, c.cycle.in_flight) << c.name;
        EXPECT_EQ(g.increase_used, c.cycle.increase_used) << c.name;
    }
}

}  // namespace
}  // namespace attune::core
