#include "attune/core/lifecycle/lifecycle_attempt.hpp"

#include <gtest/gtest.h>

#include "attune/core/lifecycle/selection.hpp"
#include "lifecycle_world.hpp"
#include "test_pods.hpp"

namespace attune::core {
namespace {

using testing::LifecycleWorld;
using testing::rl;

const ResourceRequirements kTemplate{rl({{"cpu", "500m"}, {"memory", "256Mi"}}), rl({{"cpu", "1"}, {"memory", "512Mi"}})};

LifecycleRecommendation manual_cpu(const char* cpu) {
    return {RecommendationSource::Manual, {{"app", {rl({{"cpu", cpu}}), {}}}}};
}

AttemptPlan plan(const LifecycleWorld& w, const LifecycleRecommendation& rec, const LifecycleStatusEntry* prev,
                 std::string token = "") {
    auto r = plan_attempt(AttemptInputs{w.workload, w.pods, rec, std::move(token), prev});
    EXPECT_TRUE(r.ok()) << (r.ok() ? "" : r.error().message);
    return r.ok() ? r.value() : AttemptPlan{};
}

LifecycleStatusEntry entry_for(const AttemptPlan& p, LifecyclePhase phase) {
    LifecycleStatusEntry e;
    e.workload = "web";
    e.kind = "Deployment";
    e.phase = phase;
    e.current_revision = p.revision;
    e.baseline = p.baseline;
    e.candidate = p.candidate;
    e.source = p.source;
    return e;
}

// Manual keys given (a request or a limit) replace the baseline's; the
// keys left out are inherited.
TEST(LifecycleAttempt, FirstAttemptOverlaysTheRecommendationOnTheLiveBaseline) {
    LifecycleWorld w;
    w.add_pods(3, kTemplate);
    const auto p = plan(w, manual_cpu("200m"), nullptr);
    EXPECT_EQ(p.start, AttemptStart::First);
    EXPECT_EQ(p.baseline.at("app"), kTemplate);
    EXPECT_EQ(p.candidate.at("app"),
              (ResourceRequirements{rl({{"cpu", "200m"}, {"memory", "256Mi"}}), rl({{"cpu", "1"}, {"memory", "512Mi"}})}));
    EXPECT_EQ(p.revision, revision_fingerprint(w.workload, {{"app", p.candidate.at("app")}}));
    EXPECT_FALSE(p.denied);
}

// The baseline is frozen for the validation cycle, so Attune's own
// progressive rollout does not change the candidate between steps.
TEST(LifecycleAttempt, TheRolloutsOwnResizesNeverMoveTheCandidate) {
    LifecycleWorld w;
    w.add_pods(4, kTemplate);
    const auto first = plan(w, manual_cpu("200m"), nullptr);
    const auto e = entry_for(first, LifecyclePhase::ValidationRunning);
    // Resize every pod to the candidate: the live pods now differ from the
    // baseline, the plan does not.
    for (const auto& pod : w.pods) w.resize(pod.name, first.candidate);
    const auto again = plan(w, manual_cpu("200m"), &e);
    EXPECT_EQ(again.start, AttemptStart::Continue);
    EXPECT_EQ(again.revision, first.revision);
    EXPECT_EQ(again.baseline, first.baseline);
    EXPECT_EQ(again.candidate, first.candidate);
}

// A recommendation that changes during validation supersedes the revision in
// flight and starts again.
TEST(LifecycleAttempt, AChangeDuringValidationSupersedesOnTheFrozenBaseline) {
    LifecycleWorld w;
    w.add_pods(4, kTemplate);
    const auto first = plan(w, manual_cpu("200m"), nullptr);
    const auto e = entry_for(first, LifecyclePhase::ValidationRunning);
    w.resize(w.pods[0].name, first.candidate);
    const auto next = plan(w, manual_cpu("300m"), &e);
    EXPECT_EQ(next.start, AttemptStart::Superseded);
    EXPECT_NE(next.revision, first.revision);
    EXPECT_EQ(next.baseline, first.baseline);
    EXPECT_EQ(next.candidate.at("app").requests.at("cpu"), testing::qty("300m"));
}

// A change after validation but before persistence takes the new baseline
// from the already-resized live pods.
TEST(LifecycleAttempt, AChangeAfterValidationRebaselinesFromTheResizedPods) {
    LifecycleWorld w;
    w.add_pods(3, kTemplate);
    const auto first = plan(w, manual_cpu("200m"), nullptr);
    for (const auto& pod : w.pods) w.resize(pod.name, first.candidate);
    // A pod created since from the (unchanged) template, with a UID that
    // sorts it first in StableHash order.
    std::string uid;
    for (int k = 0; uid.empty(); ++k) {
        const std::string u = "uid-new-" + std::to_string(k);
        std::vector<std::string> uids{u};
        for (const auto& p : w.pods) uids.push_back(p.uid);
        if (order_pods_for_selection(w.workload.uid, uids).front() == u) uid = u;
    }
    w.pods.push_back(LifecycleWorld::make_pod("web-new", uid, kTemplate));
    auto e = entry_for(first, LifecyclePhase::ValidatedAwaitingPersistence);
    e.validated_revision = first.revision;
    const LifecycleRecommendation memory{RecommendationSource::Manual, {{"app", {rl({{"memory", "200Mi"}}), {}}}}};
    const auto next = plan(w, memory, &e);
    EXPECT_EQ(next.start, AttemptStart::NewRevision);
    EXPECT_EQ(next.baseline, first.candidate);  // from an already-resized pod, not web-new
    EXPECT_EQ(next.candidate.at("app").requests,
              rl({{"cpu", "200m"}, {"memory", "200Mi"}}));  // the resized cpu is inherited
}

TEST(LifecycleAttempt, RevalidationTakesAFreshBaselineFromAPodTheAttemptDidNotTouch) {
    LifecycleWorld w;
    w.add_pods(4, kTemplate);
    const auto first = plan(w, manual_cpu("200m"), nullptr);
    auto e = entry_for(first, LifecyclePhase::ValidationRunning);
    e.handled_revalidation_token = "t1";
    const auto ordered = order_pods_for_selection(w.workload.uid, std::vector<std::string>{"uid-0", "uid-1", "uid-2", "uid-3"});
    for (auto& pod : w.pods)
        if (pod.uid == ordered[0]) w.resize(pod.name, first.candidate);  // the first canary
    EXPECT_EQ(plan(w, manual_cpu("200m"), &e, "t1").start, AttemptStart::Continue);  // handled already
    const auto again = plan(w, manual_cpu("200m"), &e, "t2");
    EXPECT_EQ(again.start, AttemptStart::Revalidation);
    EXPECT_EQ(again.revision, first.revision);
    EXPECT_EQ(again.baseline, first.baseline);  // not the canary's resized values
}

// A VPA-backed attempt captures the VPA's latest recommendation when the
// attempt starts.
TEST(LifecycleAttempt, VpaRecommendationIsCapturedForTheAttempt) {
    LifecycleWorld w;
    w.add_pods(2, kTemplate);
    const LifecycleRecommendation vpa{RecommendationSource::Vpa, {{"app", {rl({{"cpu", "200m"}}), {}}}}};
    const auto first = plan(w, vpa, nullptr);
    auto e = entry_for(first, LifecyclePhase::ValidationRunning);
    e.handled_revalidation_token = "t1";
    const LifecycleRecommendation moved{RecommendationSource::Vpa, {{"app", {rl({{"cpu", "230m"}}), {}}}}};
    const auto during = plan(w, moved, &e, "t1");
    EXPECT_EQ(during.start, AttemptStart::Continue);
    EXPECT_EQ(during.candidate, first.candidate);
    // A revalidation captures the latest one.
    const auto revalidated = plan(w, moved, &e, "t2");
    EXPECT_EQ(revalidated.start, AttemptStart::Revalidation);
    EXPECT_EQ(revalidated.candidate.at("app").requests.at("cpu"), testing::qty("230m"));
    // After validation, a new VPA value is a new revision.
    e.phase = LifecyclePhase::Persisted;
    EXPECT_EQ(plan(w, moved, &e, "t1").start, AttemptStart::NewRevision);
}

// A failure denies the revision for good; only a revalidation token retries
// it.
TEST(LifecycleAttempt, ADeniedRevisionIsNotRunWithoutAToken) {
    LifecycleWorld w;
    w.add_pods(2, kTemplate);
    const auto bad = plan(w, manual_cpu("50m"), nullptr);
    const auto good = plan(w, manual_cpu("200m"), nullptr);
    auto e = entry_for(good, LifecyclePhase::Persisted);
    e.failed_revisions = {bad.revision};
    const auto denied = plan(w, manual_cpu("50m"), &e);
    EXPECT_TRUE(denied.denied);
    EXPECT_EQ(denied.revision, bad.revision);
    EXPECT_NE(denied.reason.find("failed validation before"), std::string::npos);
    const auto retried = plan(w, manual_cpu("50m"), &e, "retry-1");
    EXPECT_EQ(retried.start, AttemptStart::Revalidation);
    EXPECT_FALSE(retried.denied);
}

TEST(LifecycleAttempt, Errors) {
    LifecycleWorld w;
    auto none = plan_attempt(AttemptInputs{w.workload, w.pods, manual_cpu("1"), "", nullptr});
    ASSERT_FALSE(none.ok());
    EXPECT_EQ(none.error().code, "no_pods");
    w.add_pods(1, kTemplate);
    const LifecycleRecommendation sidecar{RecommendationSource::Prometheus, {{"proxy", {rl({{"cpu", "1"}}), {}}}}};
    auto unknown = plan_attempt(AttemptInputs{w.workload, w.pods, sidecar, "", nullptr});
    ASSERT_FALSE(unknown.ok());
    EXPECT_EQ(unknown.error().code, "unknown_container");
}

}  // namespace
}  // namespace attune::core
