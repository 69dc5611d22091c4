#include "attune/core/resize/resize_gates.hpp"

#include <gtest/gtest.h>

#include <boost/json.hpp>

#include "attune/core/resize/qos_compat.hpp"
#include "test_pods.hpp"

namespace attune::core {
namespace {

using namespace std::chrono;
using testing::pod_from_json;
using testing::qty;
using testing::rl;

Capabilities caps(unsigned minor) {
    Capabilities c;
    c.major = 1;
    c.minor = minor;
    c.pods_resize = true;
    c.in_place_pod_level_resources = minor >= 36;
    c.allow_in_place_memory_limit_decrease = minor >= 34;
    c.in_place_sidecar_resize = minor >= 33;
    return c;
}

// Burstable: app requests cpu 1 / memory 1Gi, memory limit 2Gi, on n1.
const Pod kLive = pod_from_json(R"({"metadata":{"uid":"p1"},"spec":{"nodeName":"n1","containers":[{"name":"app",
  "resources":{"requests":{"cpu":"1","memory":"1Gi"},"limits":{"memory":"2Gi"}}}]},"status":{"phase":"Running","qosClass":"Burstable"}})");

const Timestamp kNow = sys_days(2026y / December / 4) + 12h;  // Friday noon UTC

ResizeGateInputs open_gates() {
    ResizeGateInputs g;
    g.now = kNow;
    g.cooldown = cooldown_state(1h, 0);
    g.node = NodeFacts{"n1", rl({{"cpu", "8"}, {"memory", "16Gi"}}), false, false, false};
    g.node_others_requests = rl({{"cpu", "2"}, {"memory", "2Gi"}});
    g.max_concurrent_resizes = 1;
    return g;
}

// Every gate that holds an increase closed; the window and the cooldown open.
ResizeGateInputs increase_gates_closed() {
    ResizeGateInputs g = open_gates();
    g.resizes_in_flight = 5;
    g.max_total_cpu_increase = qty("0");
    g.max_total_memory_increase = qty("0");
    g.node->memory_pressure = g.node->disk_pressure = g.node->pid_pressure = true;
    g.node->allocatable = rl({{"cpu", "1"}, {"memory", "1Gi"}});
    return g;
}

void close_schedule(ResizeGateInputs& g) {
    g.schedule.windows.push_back(parse_schedule_window("02:00", "03:00").value());
    g.zone = time_zone_from_posix("UTC", parse_posix_tz("UTC0").value());
}

std::vector<ContainerTarget> target(const char* cpu, const char* memory) {
    ContainerTarget t{"app", {}, std::nullopt};
    if (cpu) t.resources.requests.emplace("cpu", qty(cpu));
    if (memory) t.resources.requests.emplace("memory", qty(memory));
    return {t};
}

std::string outcome(const ResizeDecision& d) {
    if (const auto* h = std::get_if<ResizeHeld>(&d)) return "held:" + h->reason;
    return "go";
}

ResizeDecision decide(const std::vector<ContainerTarget>& t, const ResizeGateInputs& g, unsigned minor = 36) {
    return decide_resize(kLive, t, caps(minor), ControlledValues::RequestsOnly, {}, g);
}

// The increase gates fail closed and let a decrease through.
TEST(ResizeGates, DecreasesPassEveryIncreaseGate) {
    const auto d = decide(target("500m", "512Mi"), increase_gates_closed());
    ASSERT_EQ(outcome(d), "go");
    const auto& go = std::get<ResizeGo>(d);
    EXPECT_TRUE(go.increase.empty());
    EXPECT_TRUE(go.dropped.empty());
}

// Outside the maintenance window and during the cooldown nothing changes,
// whichever way it moves (docs/resize.md), except a restore; a pod already at
// its target is still a no-op, not a hold.
TEST(ResizeGates, TheWindowAndTheCooldownHoldEveryDirectionButARestore) {
    struct Case {
        const char* what;
        std::function<void(ResizeGateInputs&)> close;
        std::vector<ContainerTarget> targets;
        bool restore;
        const char* want;
        const char* event;
    } cases[] = {
        {"outside the window, an increase", close_schedule, target("2", nullptr), false, "held:outside_schedule",
         "ScheduleSkipped"},
        {"outside the window, a decrease", close_schedule, target("500m", "512Mi"), false, "held:outside_schedule",
         "ScheduleSkipped"},
        {"outside the window, one up and one down", close_schedule, target("2", "512Mi"), false,
         "held:outside_schedule", "ScheduleSkipped"},
        {"outside the window, a restore", close_schedule, target("500m", nullptr), true, "go", ""},
        {"outside the window, nothing to change", close_schedule, target("1", "1Gi"), false, "held:no_change",
         "ResizeUnchanged"},
        {"cooldown, a decrease", [](auto& g) { g.last_resize_time = "2026-12-04T11:30:00Z"; }, target("500m", nullptr),
         false, "held:cooldown", "CooldownActive"},
        {"cooldown, one up and one down", [](auto& g) { g.last_resize_time = "2026-12-04T11:30:00Z"; },
         target("2", "512Mi"), false, "held:cooldown", "CooldownActive"},
        {"invalid cooldown anchor, a decrease", [](auto& g) { g.last_resize_time = "soon"; }, target("500m", nullptr),
         false, "held:cooldown", "CooldownActive"},
        {"cooldown, a restore", [](auto& g) { g.last_resize_time = "2026-12-04T11:30:00Z"; }, target("500m", nullptr),
         true, "go", ""},
        {"cooldown over, a decrease", [](auto& g) { g.last_resize_time = "2026-12-04T10:59:00Z"; },
         target("500m", nullptr), false, "go", ""},
    };
    for (const auto& c : cases) {
        ResizeGateInputs g = open_gates();
        c.close(g);
        g.restore = c.restore;
        const auto d = decide(c.targets, g);
        EXPECT_EQ(outcome(d), c.want) << c.what;
        if (const auto* h = std::get_if<ResizeHeld>(&d)) {
            ASSERT_FALSE(h->events.empty()) << c.what;
            EXPECT_EQ(h->events[0].reason, c.event) << c.what;
            EXPECT_FALSE(h->message.empty()) << c.what;
        }
    }
}

// A restore is exempt from the window and the cooldown only: an increase
// gate still holds what it raises.
TEST(ResizeGates, ARestoreStillMeetsTheIncreaseGates) {
    ResizeGateInputs g = open_gates();
    g.restore = true;
    g.node->disk_pressure = true;
    close_schedule(g);
    EXPECT_EQ(outcome(decide(target("2", nullptr), g)), "held:node_disk_pressure");
}

TEST(ResizeGates, EachGateHoldsAnIncrease) {
    struct Case {
        const char* what;
        std::function<void(ResizeGateInputs&)> close;
        std::vector<ContainerTarget> targets;
        const char* want;
        const char* event;  // "" for none
    } cases[] = {
        {"paused stops all work, even a decrease", [](auto& g) { g.paused = true; }, target("500m", nullptr), "held:paused", ""},
        {"cooldown", [](auto& g) { g.last_resize_time = "2026-12-04T11:30:00Z"; }, target("2", nullptr), "held:cooldown",
         "CooldownActive"},
        {"invalid cooldown anchor fails closed", [](auto& g) { g.last_resize_time = "soon"; }, target("2", nullptr),
         "held:cooldown", "CooldownActive"},
        {"outside the schedule window",
         [](auto& g) {
             g.schedule.windows.push_back(parse_schedule_window("02:00", "03:00").value());
             g.zone = time_zone_from_posix("UTC", parse_posix_tz("UTC0").value());
         },
         target("2", nullptr), "held:outside_schedule", "ScheduleSkipped"},
        {"maxConcurrentResizes reached", [](auto& g) { g.resizes_in_flight = 1; }, target("2", nullptr),
         "held:max_concurrent_resizes", "ResizeSkipped"},
        {"cpu budget used up", [](auto& g) { g.max_total_cpu_increase = qty("1500m"); g.increase_used = rl({{"cpu", "600m"}}); },
         target("2", nullptr), "held:budget_exhausted", "BudgetExhausted"},
        {"memory pressure blocks a memory increase", [](auto& g) { g.node->memory_pressure = true; },
         target(nullptr, "1536Mi"), "held:node_memory_pressure", "ResizeSkipped"},
        {"disk pressure blocks any increase", [](auto& g) { g.node->disk_pressure = true; }, target("2", nullptr),
         "held:node_disk_pressure", "ResizeSkipped"},
        {"PID pressure blocks any increase", [](auto& g) { g.node->pid_pressure = true; }, target("2", nullptr),
         "held:node_pid_pressure", "ResizeSkipped"},
        {"no room on the node", [](auto& g) { g.node_others_requests = rl({{"cpu", "6500m"}}); }, target("2", nullptr),
         "held:node_capacity", "ResizeSkipped"},
        {"node not cached fails closed", [](auto& g) { g.node.reset(); }, target("2", nullptr), "held:node_capacity",
         "ResizeSkipped"},
        {"ResourceQuota headroom",
         [](auto& g) { g.quotas.push_back({"q", rl({{"requests.cpu", "4"}}), rl({{"requests.cpu", "3500m"}})}); },
         target("2", nullptr), "held:resource_quota", "ResizeSkipped"},
        {"LimitRange max", [](auto& g) { g.limit_ranges.push_back({"Container", {}, rl({{"cpu", "1500m"}}), {}}); },
         target("2", nullptr), "held:limit_range", "ResizeSkipped"},
    };
    for (const auto& c : cases) {
        ResizeGateInputs g = open_gates();
        c.close(g);
        const auto d = decide(c.targets, g);
        EXPECT_EQ(outcome(d), c.want) << c.what;
        if (const auto* h = std::get_if<ResizeHeld>(&d)) {
            EXPECT_FALSE(h->message.empty()) << c.what;
            if (*c.event) {
                ASSERT_EQ(h->events.size(), 1u) << c.what;
                EXPECT_EQ(h->events[0].reason, c.event) << c.what;
            } else {
                EXPECT_TRUE(h->events.empty()) << c.what;
            }
        }
        // With the gate open again the same target goes ahead.
        EXPECT_EQ(outcome(decide(c.targets, open_gates())), "go") << c.what;
    }
}

TEST(ResizeGates, MemoryPressureLeavesACpuIncreaseAlone) {
    ResizeGateInputs g = open_gates();
    g.node->memory_pressure = true;
    const auto d = decide(target("2", nullptr), g);
    ASSERT_EQ(outcome(d), "go");
    EXPECT_EQ(std::get<ResizeGo>(d).increase.at("cpu"), qty("1"));
}

TEST(ResizeGates, AnInvalidScheduleZoneFailsOpenAndIsReported) {
    ResizeGateInputs g = open_gates();
    g.schedule.windows.push_back(parse_schedule_window("02:00", "03:00").value());
    g.schedule.timezone = "Mars/Olympus";
    const auto d = decide(target("2", nullptr), g);
    ASSERT_EQ(outcome(d), "go");
    ASSERT_EQ(std::get<ResizeGo>(d).notes.size(), 1u);
    EXPECT_NE(std::get<ResizeGo>(d).notes[0].find("Mars/Olympus"), std::string::npos);
}

// The documented rule for a target that raises one resource and lowers the
// other when only the raise is gated: drop the blocked increase, keep the
// decrease, and say so.
TEST(ResizeGates, BlockedIncreaseIsDroppedAndTheDecreaseGoesAhead) {
    ResizeGateInputs g = open_gates();
    g.max_total_cpu_increase = qty("100m");
    const auto d = decide(target("2", "512Mi"), g);
    ASSERT_EQ(outcome(d), "go");
    const auto& go = std::get<ResizeGo>(d);
    EXPECT_EQ(boost::json::serialize(go.plan.body),
              R"({"spec":{"containers":[{"name":"app","resources":{"requests":{"cpu":"1","memory":"512Mi"},"limits":{"memory":"2Gi"}}}]}})");
    ASSERT_EQ(go.dropped.size(), 1u);
    EXPECT_EQ(go.dropped[0].gate, "budget_exhausted");
    EXPECT_EQ(go.dropped[0].resource, "cpu");
    ASSERT_EQ(go.events.size(), 1u);
    EXPECT_EQ(go.events[0].reason, "BudgetExhausted");
    EXPECT_NE(go.events[0].note.find("cpu increase dropped"), std::string::npos);
    EXPECT_TRUE(go.increase.empty());
}

TEST(ResizeGates, AdmittedIncreaseIsCountedForTheCycleBudget) {
    const auto d = decide(target("1500m", "1536Mi"), open_gates());
    ASSERT_EQ(outcome(d), "go");
    EXPECT_EQ(std::get<ResizeGo>(d).increase.at("cpu"), qty("500m"));
    EXPECT_EQ(std::get<ResizeGo>(d).increase.at("memory").to_string(), "512Mi");
}

// The no-op is ResizeUnchanged, never ResizeDeferred (the kubelet's).
TEST(ResizeGates, UnchangedTargetIsResizeUnchanged) {
    const auto d = decide(target("1", "1Gi"), open_gates());
    ASSERT_EQ(outcome(d), "held:no_change");
    const auto& h = std::get<ResizeHeld>(d);
    ASSERT_EQ(h.events.size(), 1u);
    EXPECT_EQ(h.events[0].reason, "ResizeUnchanged");
    EXPECT_EQ(h.events[0].type, "Normal");
}

// 1.32-1.33: a memory-limit decrease that the clamp cancels is a no-op
// (ResizeUnchanged) with MemoryLimitClamped; 1.34+ applies it.
TEST(ResizeGates, ClampedMemoryLimitDecreaseIsUnchangedAndClampedOn1_33) {
    std::vector<ContainerTarget> t{{"app", {rl({{"memory", "1Gi"}}), rl({{"memory", "1536Mi"}})}, std::nullopt}};
    const auto old = decide_resize(kLive, t, caps(33), ControlledValues::RequestsAndLimits, {}, open_gates());
    ASSERT_EQ(outcome(old), "held:no_change");
    std::vector<std::string> reasons;
    for (const auto& e : std::get<ResizeHeld>(old).events) reasons.push_back(e.reason);
    EXPECT_EQ(reasons, (std::vector<std::string>{"ResizeUnchanged", "MemoryLimitClamped"}));
    EXPECT_EQ(outcome(decide_resize(kLive, t, caps(34), ControlledValues::RequestsAndLimits, {}, open_gates())), "go");
}

TEST(ResizeGates, UsageFloorThatCancelsTheDecreaseIsUnchangedWithUsageFloor) {
    std::vector<ContainerTarget> t{{"app", {{}, rl({{"memory", "1Gi"}})}, qty("1900Mi")}};
    const auto d = decide_resize(kLive, t, caps(36), ControlledValues::RequestsAndLimits, {}, open_gates());
    ASSERT_EQ(outcome(d), "held:no_change");
    EXPECT_EQ(std::get<ResizeHeld>(d).events.back().reason, "MemoryLimitUsageFloor");
}

TEST(ResizeGates, PlannerSkipsAreReportedWithTheirEvent) {
    const Pod guaranteed = pod_from_json(R"({"spec":{"nodeName":"n1","containers":[{"name":"app","resources":
      {"requests":{"cpu":"1","memory":"1Gi"},"limits":{"cpu":"1","memory":"1Gi"}}}]},"status":{"qosClass":"Guaranteed"}})");
    const auto d = decide_resize(guaranteed, target("500m", nullptr), caps(36), ControlledValues::RequestsOnly, {}, open_gates());
    ASSERT_EQ(outcome(d), std::string("held:") + std::string(kReasonWouldChangeQos));
    const auto& ev = std::get<ResizeHeld>(d).events.at(0);
    EXPECT_EQ(ev.reason, "ResizeSkipped");
    EXPECT_FALSE(ev.dedupe);  // the QoS case is not de-duplicated (docs/resize.md)
    EXPECT_EQ(skip_report("envelope_constraint").metric, "attune_envelope_blocked_total");
    EXPECT_EQ(skip_report("no_change").event_reason, "ResizeUnchanged");
}

TEST(ResizeGates, ResourceIncreasesSeeRequestsLimitsAndTheEnvelope) {
    const Pod live = kLive;
    Pod planned = live;
    EXPECT_TRUE(resource_increases(live, planned).empty());
    planned.containers[0].resources.limits["memory"] = qty("3Gi");
    EXPECT_EQ(resource_increases(live, planned), std::vector<std::string>{"memory"});
    planned.containers[0].resources.requests["cpu"] = qty("500m");
    planned.containers[0].resources.limits["cpu"] = qty("2");  // a new limit key is an increase
    EXPECT_EQ(resource_increases(live, planned), (std::vector<std::string>{"cpu", "memory"}));
}

}  // namespace
}  // namespace attune::core
