#include "attune/core/safety/original_values.hpp"

#include <gtest/gtest.h>

#include <boost/json.hpp>

#include "test_pods.hpp"

namespace attune::core {
namespace {

using namespace std::chrono;
using testing::pod_from_json;
using testing::rl;

const Pod kLive = pod_from_json(R"({"metadata":{"name":"web-1"},"spec":{"containers":[
  {"name":"app","resources":{"requests":{"cpu":"500m","memory":"256Mi"},"limits":{"cpu":"0","memory":"512Mi"}}},
  {"name":"log","resources":{"requests":{"cpu":"50m"}}}]},
  "status":{"containerStatuses":[{"name":"app","restartCount":2},{"name":"log","restartCount":0}]}})");

const Timestamp kNow = sys_days(2026y / December / 1) + 10h;

TEST(OriginalValues, TrackingPatchHoldsEveryKeyAndLimitsOnlyWhenNonZero) {
    const std::vector<std::string> names{"app"};
    const auto patch = tracking_patch(capture_originals(kLive, names), "web", kNow);
    EXPECT_EQ(boost::json::serialize(patch),
              R"({"metadata":{"labels":{"attune.io/tracked":"true"},"annotations":{)"
              R"("attune.io/original-cpu-request.app":"500m","attune.io/original-memory-request.app":"256Mi",)"
              R"("attune.io/original-memory-limit.app":"512Mi","attune.io/original-restart-count.app":"2",)"
              R"("attune.io/resized-at":"2026-12-01T10:00:00Z","attune.io/resized-workload":"web",)"
              R"("attune.io/resized-containers":"app"}}})");
}

TEST(OriginalValues, RoundTripThroughThePodAnnotations) {
    const std::vector<std::string> names{"app", "log"};
    const auto originals = capture_originals(kLive, names);
    const auto patch = tracking_patch(originals, "web", kNow);
    StringMap ann;
    for (const auto& [k, v] : patch.at("metadata").at("annotations").as_object()) ann[k] = std::string(v.as_string());
    const auto back = decode_originals(ann);
    ASSERT_TRUE(back.ok()) << back.error().message;
    ASSERT_TRUE(back.value().has_value());
    EXPECT_EQ(back.value()->containers, originals.containers);
    EXPECT_EQ(back.value()->resized_at, kNow);
    EXPECT_EQ(back.value()->workload, "web");
    EXPECT_EQ(back.value()->containers.at("app").resources.limits, rl({{"memory", "512Mi"}}));  // cpu limit 0 left out
}

// Only the first resize's values are kept: a second resize before the
// revert window closed must not overwrite them with Attune's own values.
TEST(OriginalValues, ExistingOriginalsAreNeverOverwritten) {
    Pod resized = kLive;
    resized.annotations = {{"attune.io/original-cpu-request.app", "1"}, {"attune.io/original-restart-count.app", "0"},
                           {"attune.io/resized-containers", "app"}};
    const std::vector<std::string> names{"app", "log"};
    const auto o = capture_originals(resized, names);
    EXPECT_EQ(o.containers.at("app").resources.requests, rl({{"cpu", "1"}}));
    EXPECT_EQ(o.containers.at("app").restart_count, 0);
    EXPECT_EQ(o.containers.at("log").resources.requests, rl({{"cpu", "50m"}}));
}

TEST(OriginalValues, NoAnnotationsMeansNoOriginals) {
    const auto r = decode_originals({{"other.io/x", "y"}, {"attune.io/original-target-cpu", "80"}});
    ASSERT_TRUE(r.ok());
    EXPECT_FALSE(r.value().has_value());
}

TEST(OriginalValues, BadValuesAreErrorsNotCrashes) {
    for (const auto& [k, v] : std::vector<std::pair<std::string, std::string>>{
             {"attune.io/original-cpu-request.app", "lots"},
             {"attune.io/original-restart-count.app", "-1"},
             {"attune.io/original-restart-count.app", "3x"},
             {"attune.io/original-restart-count.", "3"},
             {"attune.io/original-gpu-request.app", "1"},
             {"attune.io/original-cpu-maximum.app", "1"},
             {"attune.io/original-cpu-request", "1"},
             {"attune.io/resized-at", "tuesday"},
             {"attune.io/resized-containers", "ghost"}}) {
        const auto r = decode_originals({{k, v}});
        ASSERT_FALSE(r.ok()) << k << "=" << v;
        EXPECT_EQ(r.error().code, "invalid_original_annotation");
        EXPECT_NE(r.error().message.find(k), std::string::npos) << r.error().message;
    }
}

TEST(OriginalValues, ClearPatchNullsEveryTrackingKey) {
    Pod tracked = kLive;
    tracked.annotations = {{"attune.io/original-cpu-request.app", "1"}, {"attune.io/resized-at", "x"},
                           {"attune.io/policy", "p"}};
    EXPECT_EQ(boost::json::serialize(clear_tracking_patch(tracked)),
              R"({"metadata":{"labels":{"attune.io/tracked":null},"annotations":{"attune.io/original-cpu-request.app":null,"attune.io/resized-at":null}}})");
}

}  // namespace
}  // namespace attune::core
