#include "attune/core/resize/resize_state.hpp"

#include <gtest/gtest.h>

#include "test_pods.hpp"

namespace attune::core {
namespace {

using testing::pod_from_json;
using testing::rl;

Pod pod_with_status(const char* status) {
    return pod_from_json(std::string(R"({"metadata":{"generation":4},"spec":{"containers":[{"name":"app","resources":
      {"requests":{"cpu":"500m","memory":"512Mi"},"limits":{"memory":"512Mi"}}}]},"status":)") + status + "}");
}

ResizeRequest request(std::int64_t generation = 4) {
    ResizeRequest r;
    r.generation = generation;
    r.targets["app"] = {rl({{"cpu", "0.5"}, {"memory", "512Mi"}}), rl({{"memory", "536870912"}})};
    return r;
}

struct Case {
    const char* name;
    const char* status;
    std::int64_t generation;
    ResizeState want;
};

// How the kubelet's answer to a resize is classified, with 1.32 status.resize
// and 1.33+ conditions (docs/resize.md).
TEST(ResizeState, EachKubeletAnswerOnEachMinor) {
    const Case cases[] = {
        {"Applied: spec and status both reflect the target (compared as Quantities)",
         R"({"containerStatuses":[{"name":"app","resources":{"requests":{"cpu":"500m","memory":"512Mi"},"limits":{"memory":"512Mi"}},
             "allocatedResources":{"cpu":"500m","memory":"512Mi"}}]})", 4, ResizeState::Applied},
        {"InProgress: missing status resources means not applied", R"({"containerStatuses":[{"name":"app"}]})", 4,
         ResizeState::InProgress},
        {"InProgress: no container status at all", R"({})", 4, ResizeState::InProgress},
        {"InProgress: runtime still has the old values",
         R"({"containerStatuses":[{"name":"app","resources":{"requests":{"cpu":"250m","memory":"512Mi"},"limits":{"memory":"512Mi"}}}]})", 4,
         ResizeState::InProgress},
        {"InProgress: allocated differs",
         R"({"containerStatuses":[{"name":"app","resources":{"requests":{"cpu":"500m","memory":"512Mi"},"limits":{"memory":"512Mi"}},
             "allocatedResources":{"cpu":"250m"}}]})", 4, ResizeState::InProgress},
        {"Deferred: PodResizePending Deferred at our generation",
         R"({"conditions":[{"type":"PodResizePending","status":"True","reason":"Deferred","observedGeneration":4}]})", 4,
         ResizeState::Deferred},
        {"Infeasible: PodResizePending Infeasible, observedGeneration unset",
         R"({"conditions":[{"type":"PodResizePending","status":"True","reason":"Infeasible","message":"Node didn't have enough capacity"}]})", 4,
         ResizeState::Infeasible},
        {"stale PodResizePending from an older generation is ignored",
         R"({"conditions":[{"type":"PodResizePending","status":"True","reason":"Infeasible","observedGeneration":3}],
             "containerStatuses":[{"name":"app","resources":{"requests":{"cpu":"500m","memory":"512Mi"},"limits":{"memory":"512Mi"}}}]})", 4,
         ResizeState::Applied},
        {"InProgress: PodResizeInProgress condition",
         R"({"conditions":[{"type":"PodResizeInProgress","status":"True"}],
             "containerStatuses":[{"name":"app","resources":{"requests":{"cpu":"500m","memory":"512Mi"},"limits":{"memory":"512Mi"}}}]})", 4,
         ResizeState::InProgress},
        {"InProgress: matching status, but status.observedGeneration is behind our generation",
         R"({"observedGeneration":3,"containerStatuses":[{"name":"app","resources":{"requests":{"cpu":"500m","memory":"512Mi"},"limits":{"memory":"512Mi"}}}]})", 4,
         ResizeState::InProgress},
        {"Applied: matching status and status.observedGeneration caught up",
         R"({"observedGeneration":4,"containerStatuses":[{"name":"app","resources":{"requests":{"cpu":"500m","memory":"512Mi"},"limits":{"memory":"512Mi"}}}]})", 4,
         ResizeState::Applied},
        {"1.32 status.resize Deferred", R"({"resize":"Deferred"})", 0, ResizeState::Deferred},
        {"1.32 status.resize Infeasible", R"({"resize":"Infeasible"})", 0, ResizeState::Infeasible},
        {"1.32 status.resize Proposed", R"({"resize":"Proposed"})", 0, ResizeState::InProgress},
        {"1.32 empty status.resize plus matching status: Applied",
         R"({"containerStatuses":[{"name":"app","resources":{"requests":{"cpu":"500m","memory":"512Mi"},"limits":{"memory":"512Mi"}}}]})", 0,
         ResizeState::Applied},
    };
    for (const auto& c : cases) {
        const Pod p = pod_with_status(c.status);
        const ResizeRequest r = request(c.generation);
        EXPECT_EQ(resize_state_name(classify_resize_state(p, &r).state), resize_state_name(c.want)) << c.name;
    }
}

TEST(ResizeState, PendingWhenNothingRequestedOrSpecLacksTheTarget) {
    const Pod p = pod_with_status("{}");
    EXPECT_EQ(classify_resize_state(p, nullptr).state, ResizeState::Pending);
    ResizeRequest r = request();
    r.targets["app"].requests.insert_or_assign("cpu", testing::qty("2"));
    EXPECT_EQ(classify_resize_state(p, &r).state, ResizeState::Pending);
}

TEST(ResizeState, ErrorReasonSurfacesTheMessage) {
    const Pod p = pod_with_status(
        R"({"conditions":[{"type":"PodResizeInProgress","status":"True","reason":"Error","message":"memory usage above new limit"}]})");
    const ResizeRequest r = request();
    const auto s = classify_resize_state(p, &r);
    EXPECT_EQ(s.state, ResizeState::InProgress);
    EXPECT_EQ(s.reason, "Error");
    EXPECT_EQ(s.message, "memory usage above new limit");
}

// 1.35+: an envelope raised in the same /resize is applied only when the
// pod-level status.resources reports it too; a missing one is not applied.
TEST(ResizeState, EnvelopeNeedsPodLevelStatusResources) {
    const char* spec = R"({"metadata":{"generation":5},"spec":{"resources":{"requests":{"cpu":"2"},"limits":{"cpu":"2"}},
      "containers":[{"name":"app","resources":{"requests":{"cpu":"2"},"limits":{"cpu":"2"}}}]},"status":{
      "containerStatuses":[{"name":"app","resources":{"requests":{"cpu":"2"},"limits":{"cpu":"2"}}}])";
    ResizeRequest r;
    r.generation = 5;
    r.targets["app"] = {rl({{"cpu", "2"}}), rl({{"cpu", "2"}})};
    r.envelope = ResourceRequirements{rl({{"cpu", "2"}}), rl({{"cpu", "2000m"}})};
    const auto missing = pod_from_json(std::string(spec) + "}}");
    EXPECT_EQ(classify_resize_state(missing, &r).state, ResizeState::InProgress);
    const auto stale = pod_from_json(std::string(spec) + R"(,"resources":{"requests":{"cpu":"1"},"limits":{"cpu":"2"}}}})");
    EXPECT_EQ(classify_resize_state(stale, &r).state, ResizeState::InProgress);
    const auto applied = pod_from_json(std::string(spec) + R"(,"resources":{"requests":{"cpu":"2"},"limits":{"cpu":"2"}}}})");
    EXPECT_EQ(classify_resize_state(applied, &r).state, ResizeState::Applied);
    // The spec not (yet) carrying the envelope we asked for is Pending.
    ResizeRequest bigger = r;
    bigger.envelope->requests = rl({{"cpu", "3"}});
    EXPECT_EQ(classify_resize_state(applied, &bigger).state, ResizeState::Pending);
}

// The lifecycle status stores states by name and reads them back.
TEST(ResizeState, NamesParseBack) {
    for (auto st : {ResizeState::Pending, ResizeState::InProgress, ResizeState::Deferred, ResizeState::Infeasible,
                    ResizeState::Applied})
        EXPECT_EQ(parse_resize_state(resize_state_name(st)), st);
    EXPECT_EQ(parse_resize_state("applied"), std::nullopt);
    EXPECT_EQ(parse_resize_state(""), std::nullopt);
}

// Eligibility asks whether the pod's own spec is settled, with no request
// of ours at hand (e.g. after a manager restart).
TEST(ResizeState, CurrentResizeOfThePodsOwnSpec) {
    const Case cases[] = {
        {"settled: status reports the spec",
         R"({"containerStatuses":[{"name":"app","resources":{"requests":{"cpu":"500m","memory":"512Mi"},"limits":{"memory":"512Mi"}}}]})",
         4, ResizeState::Applied},
        {"someone else's resize still in flight",
         R"({"containerStatuses":[{"name":"app","resources":{"requests":{"cpu":"1","memory":"512Mi"},"limits":{"memory":"512Mi"}}}]})",
         4, ResizeState::InProgress},
        {"deferred by the kubelet",
         R"({"conditions":[{"type":"PodResizePending","status":"True","reason":"Deferred","observedGeneration":4}],
             "containerStatuses":[{"name":"app","resources":{"requests":{"cpu":"500m","memory":"512Mi"},"limits":{"memory":"512Mi"}}}]})",
         4, ResizeState::Deferred},
        {"1.32 status.resize Infeasible", R"({"resize":"Infeasible"})", 4, ResizeState::Infeasible},
    };
    for (const auto& c : cases) EXPECT_EQ(classify_current_resize(pod_with_status(c.status)).state, c.want) << c.name;
    // An envelope counts only where pod-level status.resources is reported.
    const Pod no_pod_status = pod_from_json(R"({"spec":{"resources":{"requests":{"cpu":"1"}},"containers":[{"name":"app",
      "resources":{"requests":{"cpu":"500m"}}}]},"status":{"containerStatuses":[{"name":"app","resources":{"requests":{"cpu":"500m"}}}]}})");
    EXPECT_EQ(classify_current_resize(no_pod_status).state, ResizeState::Applied);
    Pod stale = no_pod_status;
    stale.status_pod_resources = ResourceRequirements{rl({{"cpu", "750m"}}), {}};
    EXPECT_EQ(classify_current_resize(stale).state, ResizeState::InProgress);
}

}  // namespace
}  // namespace attune::core
