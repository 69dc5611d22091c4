#include "attune/core/followups/startup_boost_restore.hpp"

#include <gtest/gtest.h>

#include <boost/json.hpp>

#include "test_pods.hpp"

namespace attune::core {
namespace {

using namespace std::chrono;
using testing::pod_from_json;
using testing::qty;
using testing::rl;

Pod boosted(const char* at) {
    return pod_from_json(std::string(R"({"metadata":{"annotations":{"attune.io/startup-boost-at":")") + at +
                         R"("}},"spec":{"containers":[{"name":"app","resources":{"requests":{"cpu":"1500m","memory":"1Gi"}}}]}})");
}

BoostRestoreInputs inputs(seconds after_boost) {
    BoostRestoreInputs in;
    in.now = sys_days(2026y / December / 1) + 10h + after_boost;
    in.duration = 60s;
    in.multiplier = 2.0;
    return in;
}

TEST(StartupBoostRestore, Table) {
    const Pod p = boosted("2026-12-01T10:00:00Z");
    const auto running = decide_boost_restore(p, inputs(30s));
    EXPECT_EQ(running.action, BoostRestoreAction::Boosting);
    EXPECT_EQ(running.remaining, 30s);
    // Expired: back to live / multiplier.
    const auto expired = decide_boost_restore(p, inputs(60s));
    ASSERT_EQ(expired.action, BoostRestoreAction::Restore);
    ASSERT_EQ(expired.targets.size(), 1u);
    EXPECT_EQ(expired.targets[0].resources.requests, rl({{"cpu", "750m"}}));
    EXPECT_TRUE(expired.targets[0].resources.limits.empty());
    // The recommendation the webhook sized from wins over the division.
    BoostRestoreInputs known = inputs(120s);
    known.unboosted["app"] = {rl({{"cpu", "700m"}}), {}};
    EXPECT_EQ(decide_boost_restore(p, known).targets[0].resources.requests, rl({{"cpu", "700m"}}));
    // Already restored: only the annotation goes.
    known.unboosted["app"] = {rl({{"cpu", "1500m"}}), {}};
    EXPECT_EQ(decide_boost_restore(p, known).action, BoostRestoreAction::Clear);
    // Not boosted at all.
    EXPECT_EQ(decide_boost_restore(pod_from_json(R"({"spec":{"containers":[{"name":"a"}]}})"), inputs(0s)).action,
              BoostRestoreAction::NotBoosted);
}

TEST(StartupBoostRestore, AnUnreadableAnnotationRestoresAtOnce) {
    const auto d = decide_boost_restore(boosted("a while ago"), inputs(0s));
    EXPECT_EQ(d.action, BoostRestoreAction::Restore);
    EXPECT_NE(d.message.find("unreadable"), std::string::npos);
}

// The restore is an ordinary in-place decrease through plan_resize.
TEST(StartupBoostRestore, TargetsPlanAsACpuRequestDecrease) {
    const auto d = decide_boost_restore(boosted("2026-12-01T10:00:00Z"), inputs(90s));
    Capabilities caps;
    caps.minor = 36;
    caps.major = 1;
    const auto o = plan_resize(boosted("2026-12-01T10:00:00Z"), d.targets, caps, ControlledValues::RequestsOnly);
    ASSERT_TRUE(std::holds_alternative<ResizePlan>(o)) << std::get<Skip>(o).message;
    EXPECT_EQ(boost::json::serialize(std::get<ResizePlan>(o).body),
              R"({"spec":{"containers":[{"name":"app","resources":{"requests":{"cpu":"750m","memory":"1Gi"}}}]}})");
    EXPECT_EQ(boost::json::serialize(boost_restore_done_patch()),
              R"({"metadata":{"annotations":{"attune.io/startup-boost-at":null}}})");
}

}  // namespace
}  // namespace attune::core
