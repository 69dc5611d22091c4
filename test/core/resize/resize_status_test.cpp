#include "attune/core/resize/resize_status.hpp"

#include <gtest/gtest.h>

#include <boost/json.hpp>

namespace attune::core {
namespace {

using namespace std::chrono;
using S = ResizeState;

const Timestamp t0 = sys_days(2026y / December / 1);

TEST(ResizeStatus, WorkloadCounts) {
    const std::vector<WorkloadResizeView> w{
        {"done", {S::Applied, S::Applied}},
        {"moving", {S::Applied, S::InProgress}},
        {"stuck", {S::Deferred, S::Infeasible, S::Deferred}},
        {"untouched", {}},
    };
    EXPECT_EQ(count_workloads(w), (WorkloadCounts{1, 2, 2, 1}));
}

std::string reason(const std::vector<Condition>& cs, const char* type) {
    const Condition* c = find_condition(cs, type);
    return c ? c->status + "/" + c->reason : "absent";
}

TEST(ResizeStatus, ResizeBlockedReasons) {
    const struct {
        WorkloadCounts counts;
        const char* want;
    } cases[] = {
        {{0, 1, 2, 0}, "True/PodsDeferred"},
        {{0, 1, 0, 1}, "True/PodsInfeasible"},
        {{0, 2, 1, 1}, "True/PodsDeferredAndInfeasible"},
        {{1, 0, 0, 0}, "absent"},
    };
    std::vector<Condition> cs;
    for (const auto& c : cases) {
        ResizeConditionInputs in{t0, 1, true, false, false, c.counts, {}, std::nullopt};
        apply_resize_conditions(cs, in);
        EXPECT_EQ(reason(cs, "ResizeBlocked"), c.want);
    }
}

// A QoS block of the lifecycle is the reason shown, even with
// pods Deferred; once it is lifted the kubelet's states show again.
TEST(ResizeStatus, TheLifecycleBlockWinsAndGoesAway) {
    std::vector<Condition> cs;
    ResizeConditionInputs in{t0, 1, true, false, false, {0, 1, 2, 0}, {}, std::nullopt};
    in.lifecycle_blocked = std::pair<std::string, std::string>{"InPlaceResizeWouldChangeQoSClass", "pod web-0: ..."};
    apply_resize_conditions(cs, in);
    EXPECT_EQ(reason(cs, "ResizeBlocked"), "True/InPlaceResizeWouldChangeQoSClass");
    in.lifecycle_blocked.reset();
    apply_resize_conditions(cs, in);
    EXPECT_EQ(reason(cs, "ResizeBlocked"), "True/PodsDeferred");
}

TEST(ResizeStatus, ResizingDegradedAndSchedule) {
    std::vector<Condition> cs{{"Ready", "True", "Monitoring", "", t0, 1}};
    std::vector<HistoryEntry> h(3);
    for (auto& e : h) e.result = HistoryResult::Reverted;
    ResizeConditionInputs in{t0, 1, true, true, false, {}, h, false};
    EXPECT_TRUE(apply_resize_conditions(cs, in));
    EXPECT_EQ(reason(cs, "Resizing"), "True/InProgress");
    EXPECT_EQ(reason(cs, "Degraded"), "True/HighRevertRate");
    EXPECT_EQ(reason(cs, "ScheduleBlocked"), "True/OutsideWindow");
    EXPECT_EQ(reason(cs, "Ready"), "True/Monitoring");  // not ours: untouched
    EXPECT_FALSE(apply_resize_conditions(cs, in));       // idempotent

    in.resized_this_cycle = false;
    in.cooldown_active = true;
    in.history = {};
    in.inside_schedule_window = true;
    apply_resize_conditions(cs, in);
    EXPECT_EQ(reason(cs, "Resizing"), "False/CooldownActive");
    EXPECT_EQ(reason(cs, "Degraded"), "absent");
    EXPECT_EQ(reason(cs, "ScheduleBlocked"), "False/InsideWindow");

    in.cooldown_active = false;
    in.inside_schedule_window.reset();
    apply_resize_conditions(cs, in);
    EXPECT_EQ(reason(cs, "Resizing"), "False/Idle");
    EXPECT_EQ(reason(cs, "ScheduleBlocked"), "absent");
    in.resizing_mode = false;  // Observe / Recommend
    apply_resize_conditions(cs, in);
    EXPECT_EQ(reason(cs, "Resizing"), "absent");
}

TEST(ResizeStatus, StatusJsonShape) {
    HistoryEntry e;
    e.timestamp = t0;
    e.workload = "web";
    e.container = "app";
    e.from = "1";
    e.to = "500m";
    e.resource = HistoryResource::Cpu;
    const std::vector<HistoryEntry> h{e};
    EXPECT_EQ(boost::json::serialize(resize_status_json({1, 0, 0, 0}, cooldown_state(1h, 0), h)),
              R"({"workloads":{"resized":1,"pending":0,"deferred":0,"infeasible":0},)"
              R"("cooldown":{"effectiveCooldown":"1h0m0s","backoffMultiplier":1,"consecutiveReverts":0},)"
              R"("resizeHistory":[{"timestamp":"2026-12-01T00:00:00Z","workload":"web","container":"app","from":"1","to":"500m",)"
              R"("resource":"cpu","method":"InPlace","result":"Success"}]})");
}

}  // namespace
}  // namespace attune::core
