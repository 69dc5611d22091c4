#include "attune/core/resize/resize_tracking.hpp"

#include <gtest/gtest.h>

#include "test_pods.hpp"

namespace attune::core {
namespace {

using namespace std::chrono;
using testing::pod_from_json;
using testing::rl;

const Timestamp kSent = sys_days(2026y / December / 4) + 12h;

TrackedResize tracked() {
    TrackedResize t;
    t.pod_uid = "u1";
    t.pod_name = "web-1";
    t.request.generation = 3;
    t.request.targets["app"] = {rl({{"cpu", "200m"}}), {}};
    t.submitted_at = kSent;
    return t;
}

Pod pod(const char* uid, const char* spec_cpu, const char* status) {
    return pod_from_json(std::string(R"({"metadata":{"uid":")") + uid + R"(","generation":3},"spec":{"containers":[
      {"name":"app","resources":{"requests":{"cpu":")" + spec_cpu + R"("}}}]},"status":)" + status + "}");
}

TEST(ResizeTracking, ASuccessfulPatchIsNotSuccessOnlyAppliedSettles) {
    const auto applied = R"({"observedGeneration":3,"containerStatuses":[{"name":"app","resources":{"requests":{"cpu":"200m"}}}]})";
    const auto running_old = R"({"observedGeneration":3,"containerStatuses":[{"name":"app","resources":{"requests":{"cpu":"500m"}}}]})";
    const auto deferred = R"({"conditions":[{"type":"PodResizePending","status":"True","reason":"Deferred","observedGeneration":3}]})";
    const auto infeasible = R"({"conditions":[{"type":"PodResizePending","status":"True","reason":"Infeasible","observedGeneration":3}]})";
    const auto error = R"({"conditions":[{"type":"PodResizeInProgress","status":"True","reason":"Error","message":"usage above the new limit"}]})";
    struct Case {
        const char* name;
        std::optional<Pod> pod;
        TrackVerdict want;
        bool deferred_now, error_now;
    };
    const Case cases[] = {
        {"PATCH answered 200, runtime still runs the old values: waiting", pod("u1", "200m", running_old),
         TrackVerdict::Waiting, false, false},
        {"spec and status agree: Applied", pod("u1", "200m", applied), TrackVerdict::Applied, false, false},
        {"the kubelet defers it: waiting, first Deferred noted", pod("u1", "200m", deferred), TrackVerdict::Waiting,
         true, false},
        {"the kubelet will never apply it: Infeasible", pod("u1", "200m", infeasible), TrackVerdict::Infeasible,
         false, false},
        {"InProgress with Error: waiting, reported once", pod("u1", "200m", error), TrackVerdict::Waiting, false,
         true},
        {"the spec no longer carries our target: Superseded", pod("u1", "300m", applied), TrackVerdict::Superseded,
         false, false},
        {"a replacement pod of the same name: Gone", pod("u2", "200m", applied), TrackVerdict::Gone, false, false},
        {"deleted: Gone", std::nullopt, TrackVerdict::Gone, false, false},
    };
    for (const auto& c : cases) {
        const auto u = track_resize(tracked(), c.pod ? &*c.pod : nullptr, kSent + 3s);
        EXPECT_EQ(u.verdict, c.want) << c.name;
        EXPECT_EQ(u.became_deferred, c.deferred_now) << c.name;
        EXPECT_EQ(u.error_now, c.error_now) << c.name;
        EXPECT_EQ(u.elapsed, 3s) << c.name;
    }
}

TEST(ResizeTracking, AnInformerThatLagsThePatchIsWaitingNotSuperseded) {
    auto t = tracked();
    t.stale_resource_versions = {"41", "42"};
    const auto old_status = R"({"containerStatuses":[{"name":"app","resources":{"requests":{"cpu":"500m"}}}]})";
    Pod older_generation = pod("u1", "500m", old_status);
    older_generation.generation = 2;
    EXPECT_EQ(track_resize(t, &older_generation, kSent).verdict, TrackVerdict::Waiting) << "generation 2 < 3";
    Pod same_version = pod("u1", "500m", old_status);
    same_version.generation = 0;  // 1.32 reports none
    same_version.resource_version = "42";
    EXPECT_EQ(track_resize(t, &same_version, kSent).verdict, TrackVerdict::Waiting) << "our tracking patch's version";
    same_version.resource_version = "43";
    EXPECT_EQ(track_resize(t, &same_version, kSent).verdict, TrackVerdict::Superseded) << "newer, and not ours";
}

TEST(ResizeTracking, WithoutGenerationsALaggingCacheIsBelievedOnlyAtTheAnsweredVersionOrAfterTheGrace) {
    // 1.32: no generation, and another write (the kubelet's status) landed
    // between our tracking patch and the /resize, so the cache holds a
    // version that is neither stale-listed nor the /resize answer's.
    auto t = tracked();
    t.request.generation = 0;
    t.stale_resource_versions = {"41", "42"};
    t.answered_resource_version = "44";
    const auto old_status = R"({"containerStatuses":[{"name":"app","resources":{"requests":{"cpu":"500m"}}}]})";
    Pod between = pod("u1", "500m", old_status);
    between.generation = 0;
    between.resource_version = "43";
    EXPECT_EQ(track_resize(t, &between, kSent + 1s).verdict, TrackVerdict::Waiting) << "within the grace";
    EXPECT_EQ(track_resize(t, &between, kSent + kInformerLagGrace).verdict, TrackVerdict::Superseded) << "after it";
    Pod answered = between;
    answered.resource_version = "44";
    EXPECT_EQ(track_resize(t, &answered, kSent + 1s).verdict, TrackVerdict::Superseded)
        << "the answered version without our target: someone else wrote it";
    Pod with_target = pod("u1", "200m", old_status);
    with_target.generation = 0;
    with_target.resource_version = "45";
    EXPECT_EQ(track_resize(t, &with_target, kSent + 1s).verdict, TrackVerdict::Waiting) << "ours, not applied yet";
}

TEST(ResizeTracking, DeferredAndErrorAreNotedOnlyTheFirstTime) {
    auto t = tracked();
    t.deferred_since = kSent + 1s;
    t.error_reported = true;
    const Pod d = pod("u1", "200m", R"({"conditions":[{"type":"PodResizePending","status":"True","reason":"Deferred"}]})");
    EXPECT_FALSE(track_resize(t, &d, kSent + 5s).became_deferred);
    const Pod e = pod("u1", "200m", R"({"conditions":[{"type":"PodResizeInProgress","status":"True","reason":"Error"}]})");
    EXPECT_FALSE(track_resize(t, &e, kSent + 5s).error_now);
}

}  // namespace
}  // namespace attune::core
