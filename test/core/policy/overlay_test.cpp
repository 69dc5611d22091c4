#include "attune/core/policy/overlay.hpp"

#include <gtest/gtest.h>

#include "test_pods.hpp"

namespace attune::core {
namespace {

using testing::pod_from_json;
using testing::qty;
using testing::rl;

constexpr const char* kLive = R"({"spec":{
  "initContainers":[{"name":"proxy","restartPolicy":"Always","resources":{"requests":{"cpu":"100m"}}},{"name":"setup"}],
  "containers":[{"name":"app","resources":{"requests":{"cpu":"1","memory":"1Gi"},"limits":{"cpu":"2","memory":"2Gi"}}}]}})";

// Manual keys given (a request or a limit) replace the baseline's; the
// keys left out are inherited.
TEST(ManualOverlay, ExplicitKeysReplaceOmittedKeysInherit) {
    const FrozenBaseline b = freeze_baseline(pod_from_json(kLive));
    ContainerResourceMap manual{{"app", {rl({{"cpu", "1500m"}}), rl({{"memory", "3Gi"}})}}};
    auto r = apply_manual_overlay(b, manual);
    ASSERT_TRUE(r.ok());
    const auto& app = r.value().at("app");
    EXPECT_EQ(app.requests.at("cpu"), qty("1.5"));
    EXPECT_EQ(app.requests.at("memory"), qty("1Gi"));  // inherited
    EXPECT_EQ(app.limits.at("cpu"), qty("2"));         // inherited
    EXPECT_EQ(app.limits.at("memory"), qty("3Gi"));
    EXPECT_EQ(r.value().at("proxy").requests.at("cpu"), qty("100m"));  // untouched sidecar carried
}

// The baseline is frozen for the validation cycle, so Attune's own
// progressive rollout does not change the effective candidate between steps.
TEST(ManualOverlay, FrozenBaselineIgnoresLaterLiveChanges) {
    Pod live = pod_from_json(kLive);
    const FrozenBaseline b = freeze_baseline(live);
    ContainerResourceMap manual{{"app", {rl({{"cpu", "1500m"}}), {}}}};
    const auto step1 = apply_manual_overlay(b, manual).value();
    live.containers[0].resources.requests.insert_or_assign("memory", qty("4Gi"));  // step 1 resized the pod
    const auto step2 = apply_manual_overlay(b, manual).value();
    EXPECT_EQ(step1, step2);
    EXPECT_EQ(step2.at("app").requests.at("memory"), qty("1Gi"));
}

TEST(ManualOverlay, OnlyResizableContainersAreFrozenAndUnknownNamesFail) {
    const FrozenBaseline b = freeze_baseline(pod_from_json(kLive));
    EXPECT_EQ(b.containers.count("setup"), 0u);
    auto r = apply_manual_overlay(b, {{"setup", {rl({{"cpu", "1"}}), {}}}});
    ASSERT_FALSE(r.ok());
    EXPECT_EQ(r.error().code, "unknown_container");
}

// A request set above an inherited limit (or a limit below an inherited
// request) is refused, naming the container and which side is live: the
// apiserver would reject such a resize.
TEST(ManualOverlay, ARequestAboveItsLimitIsRefused) {
    const FrozenBaseline b = freeze_baseline(pod_from_json(kLive));
    auto r = apply_manual_overlay(b, {{"app", {rl({{"cpu", "3"}}), {}}}});
    ASSERT_FALSE(r.ok());
    EXPECT_EQ(r.error().code, "invalid_overlay");
    EXPECT_EQ(r.error().message, "manual recommendation for container \"app\": cpu request 3 exceeds its limit 2 (live)");
    r = apply_manual_overlay(b, {{"app", {{}, rl({{"memory", "512Mi"}})}}});
    ASSERT_FALSE(r.ok());
    EXPECT_EQ(r.error().message,
              "manual recommendation for container \"app\": memory request 1Gi (live) exceeds its limit 512Mi");
    // Raising both together is fine.
    EXPECT_TRUE(apply_manual_overlay(b, {{"app", {rl({{"cpu", "3"}}), rl({{"cpu", "3"}})}}}).ok());
}

}  // namespace
}  // namespace attune::core
