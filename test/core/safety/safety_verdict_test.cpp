#include "attune/core/safety/safety_verdict.hpp"

#include <gtest/gtest.h>

#include <boost/json.hpp>

#include "test_pods.hpp"

namespace attune::core {
namespace {

using namespace std::chrono;
using testing::pod_from_json;
using testing::rl;

const Timestamp kResized = sys_days(2026y / December / 1) + 10h;

OriginalValues originals() {
    OriginalValues o;
    o.containers["app"] = {{rl({{"cpu", "1"}, {"memory", "1Gi"}}), rl({{"memory", "2Gi"}})}, 1};
    o.resized_at = kResized;
    return o;
}

Pod pod(const char* status) {
    return pod_from_json(std::string(R"({"spec":{"containers":[{"name":"app","resources":{"requests":{"cpu":"500m","memory":"512Mi"},
      "limits":{"memory":"1Gi"}}}]},"status":)") + status + "}");
}

constexpr const char* kHealthy = R"({"phase":"Running","conditions":[{"type":"Ready","status":"True"}],
  "containerStatuses":[{"name":"app","ready":true,"restartCount":1}]})";

SafetyInputs at(seconds since) { return SafetyInputs{kResized, kResized + since, kDefaultSafetyObservationPeriod, {}, {}}; }

TEST(SafetyVerdict, Table) {
    struct Case {
        const char* what;
        const char* status;
        SafetyInputs in;
        SafetyVerdictKind kind;
        const char* reason;
    } cases[] = {
        {"healthy inside the period: keep", kHealthy, at(60s), SafetyVerdictKind::Keep, ""},
        {"healthy at the end of the period: done", kHealthy, at(300s), SafetyVerdictKind::Done, ""},
        {"OOMKilled after the resize",
         R"({"containerStatuses":[{"name":"app","restartCount":2,"lastState":{"terminated":{"reason":"OOMKilled","finishedAt":"2026-12-01T10:01:00Z"}}}]})",
         at(90s), SafetyVerdictKind::Revert, "oomkill"},
        {"an OOMKill from before the resize does not count",
         R"({"containerStatuses":[{"name":"app","restartCount":1,"lastState":{"terminated":{"reason":"OOMKilled","finishedAt":"2026-12-01T09:00:00Z"}}}]})",
         at(90s), SafetyVerdictKind::Keep, ""},
        {"OOMKilled without a time counts when it came with a restart",
         R"({"containerStatuses":[{"name":"app","restartCount":2,"lastState":{"terminated":{"reason":"OOMKilled"}}}]})", at(90s),
         SafetyVerdictKind::Revert, "oomkill"},
        {"currently terminated OOMKilled", R"({"containerStatuses":[{"name":"app","restartCount":1,"state":{"terminated":{"reason":"OOMKilled","finishedAt":"2026-12-01T10:00:30Z"}}}]})",
         at(60s), SafetyVerdictKind::Revert, "oomkill"},
        {"one restart is tolerated", R"({"containerStatuses":[{"name":"app","restartCount":2}]})", at(60s),
         SafetyVerdictKind::Keep, ""},
        {"two restarts revert", R"({"containerStatuses":[{"name":"app","restartCount":3,"lastState":{"terminated":{"reason":"Error"}}}]})",
         at(60s), SafetyVerdictKind::Revert, "restart"},
        {"NotReady reverts", R"({"conditions":[{"type":"Ready","status":"False","reason":"ContainersNotReady"}],
           "containerStatuses":[{"name":"app","restartCount":1}]})", at(60s), SafetyVerdictKind::Revert, "notready"},
        {"no Ready condition is not NotReady", R"({"containerStatuses":[{"name":"app","restartCount":1}]})", at(60s),
         SafetyVerdictKind::Keep, ""},
    };
    for (const auto& c : cases) {
        const auto v = judge_safety(pod(c.status), originals(), c.in);
        EXPECT_EQ(v.kind, c.kind) << c.what << ": " << v.message;
        EXPECT_EQ(v.reason, c.reason) << c.what;
    }
}

TEST(SafetyVerdict, ThrottlingRevertsOnlyAfterTheGrace) {
    SafetyInputs in = at(240s);
    in.throttling_ratio = 0.8;
    EXPECT_EQ(judge_safety(pod(kHealthy), originals(), in).kind, SafetyVerdictKind::Keep);
    in.now = kResized + 300s;  // grace over; checked before Done
    const auto v = judge_safety(pod(kHealthy), originals(), in);
    EXPECT_EQ(v.reason, "throttle");
    EXPECT_EQ(v.message, "CPU throttled in 80% of CFS periods > 50%");  // the Reverted Event's words
    in.throttling_ratio = 0.5;  // not above 0.5
    EXPECT_EQ(judge_safety(pod(kHealthy), originals(), in).kind, SafetyVerdictKind::Done);
}

TEST(SafetyVerdict, SloGuardrails) {
    SafetyInputs in = at(120s);
    in.slo = {{"latency", false, 0.25, 300s, 0.2}, {"success", true, 0.99, 300s, 0.97}};
    EXPECT_EQ(judge_safety(pod(kHealthy), originals(), in).reason, "slo:success");  // below 0.99
    in.slo[1].value.reset();  // a failed query passes
    EXPECT_EQ(judge_safety(pod(kHealthy), originals(), in).kind, SafetyVerdictKind::Keep);
    in.slo[0].value = 0.3;  // above 0.25
    EXPECT_EQ(judge_safety(pod(kHealthy), originals(), in).reason, "slo:latency");
    in.slo[0].evaluation_window = 60s;  // past its window: no longer checked
    EXPECT_EQ(judge_safety(pod(kHealthy), originals(), in).kind, SafetyVerdictKind::Keep);
}

// Reverts go through plan_resize with the memory clamp on, back to the
// stored originals, requests and limits.
TEST(SafetyVerdict, RevertPlansBackToTheOriginalsWithTheMemoryClampOn) {
    Capabilities caps;
    caps.major = 1;
    caps.minor = 36;
    caps.allow_in_place_memory_limit_decrease = true;  // the revert turns it off
    const Pod resized = pod_from_json(R"({"spec":{"containers":[{"name":"app","resources":{"requests":{"cpu":"500m","memory":"512Mi"},
      "limits":{"memory":"3Gi"}}}]},"status":{"qosClass":"Burstable"}})");
    const auto o = plan_revert(resized, originals(), caps, {});
    const auto* plan = std::get_if<ResizePlan>(&o);
    ASSERT_NE(plan, nullptr) << std::get<Skip>(o).message;
    // cpu and memory requests back up; the memory limit 3Gi -> 2Gi is a
    // decrease and stays clamped at 3Gi.
    EXPECT_EQ(boost::json::serialize(plan->body),
              R"({"spec":{"containers":[{"name":"app","resources":{"requests":{"cpu":"1","memory":"1Gi"},"limits":{"memory":"3Gi"}}}]}})");
    EXPECT_EQ(plan->memory_clamped, std::vector<std::string>{"app"});
    // Already at the originals: nothing to do.
    const Pod back = pod_from_json(R"({"spec":{"containers":[{"name":"app","resources":{"requests":{"cpu":"1","memory":"1Gi"},
      "limits":{"memory":"2Gi"}}}]}})");
    EXPECT_EQ(std::get<Skip>(plan_revert(back, originals(), caps, {})).reason, "no_change");
}

}  // namespace
}  // namespace attune::core
