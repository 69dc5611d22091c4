#include "attune/core/lifecycle/lifecycle.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <boost/json.hpp>

#include "attune/core/lifecycle/selection.hpp"
#include "lifecycle_world.hpp"
#include "test_pods.hpp"

namespace attune::core {
namespace {

using namespace std::chrono_literals;
using testing::actions_of;
using testing::event_reasons;
using testing::kT0;
using testing::LifecycleReconciler;
using testing::LifecycleWorld;
using testing::names;
using testing::rl;

using Strings = std::vector<std::string>;

const ResourceRequirements kTemplate{rl({{"cpu", "500m"}, {"memory", "256Mi"}}), rl({{"cpu", "1"}, {"memory", "512Mi"}})};

LifecycleRecommendation manual_cpu(const char* cpu) {
    return {RecommendationSource::Manual, {{"app", {rl({{"cpu", cpu}}), {}}}}};
}

EffectiveLifecycle steps(std::vector<LifecycleStep> s) {
    EffectiveLifecycle e;
    e.steps = std::move(s);
    e.max_concurrent_resizes = 50;
    return e;
}

const std::vector<LifecycleStep> kStepsTenFiftyHundred{{10, 0s}, {50, 0s}, {100, 0s}};

bool contains(const std::string& text, std::string_view part) { return text.find(part) != std::string::npos; }

// Restart safety, checked on every tick of every scenario: the decision
// from the entry as the apiserver stores it (JSON, whole seconds) equals
// the decision from the entry in memory, and deciding twice gives the same.
LifecycleDecision tick(LifecycleReconciler& r, Timestamp now) {
    if (r.entry) {
        LifecycleReconciler restarted = r;
        auto text = boost::json::serialize(encode_lifecycle_entry(*r.entry));
        auto decoded = decode_lifecycle_entry(boost::json::parse(text), "entry");
        EXPECT_TRUE(decoded.ok()) << text;
        restarted.entry = decoded.value();
        EXPECT_EQ(restarted.decide(now), r.decide(now)) << "a restart changed the decision at " << format_timestamp(now)
                                                        << " from " << text;
    }
    return r.tick(now);
}

// Ticks once a second until the phase is `phase` (at most 1000 ticks).
Timestamp run_until(LifecycleReconciler& r, Timestamp now, LifecyclePhase phase) {
    for (int i = 0; i < 1000 && !(r.entry && r.entry->phase == phase); ++i) tick(r, now += 1s);
    EXPECT_EQ(r.entry->phase, phase) << r.entry->message;
    return now;
}

// The first step's resizes at kT0, applied by kT0 + 1s: the canary pods.
Strings run_first_step(LifecycleReconciler& r) {
    const auto resized = actions_of<ResizePods>(tick(r, kT0));
    EXPECT_EQ(resized.size(), 1u);
    tick(r, kT0 + 1s);
    return resized.empty() ? Strings{} : names(resized[0].pods);
}

Strings uids(const LifecycleWorld& w) {
    Strings out;
    for (const auto& p : w.pods) out.push_back(p.uid);
    return out;
}

Strings pod_names_for(const LifecycleWorld& w, const Strings& pod_uids) {
    Strings out;
    for (const auto& u : pod_uids)
        for (const auto& p : w.pods)
            if (p.uid == u) out.push_back(p.name);
    std::sort(out.begin(), out.end());
    return out;
}

// ---- steps ----

// Steps 10/50/100 over 11 replicas resize 2, then 6, then 11 pods, and the
// pods of step 1 are a prefix of those of step 2: selection is cumulative
// (10% then 25% adds the next 15%) and rounds up (10% of 11 pods is 2).
TEST(Lifecycle, StepsTenFiftyHundredOverElevenPodsResizeTwoThenSixThenEleven) {
    LifecycleWorld w;
    w.add_pods(11, kTemplate);
    LifecycleReconciler r{&w, steps(kStepsTenFiftyHundred), manual_cpu("200m")};
    std::vector<Strings> after_each_step;
    Timestamp now = kT0;
    for (int i = 0; i < 10 && r.entry.value_or(LifecycleStatusEntry{}).phase != LifecyclePhase::ValidatedAwaitingPersistence; ++i) {
        const auto d = tick(r, now += 1s);
        if (!actions_of<ResizePods>(d).empty()) after_each_step.push_back(w.carrying(r.entry->candidate));
    }
    ASSERT_EQ(after_each_step.size(), 3u);
    EXPECT_EQ(after_each_step[0].size(), 2u);
    EXPECT_EQ(after_each_step[1].size(), 6u);
    EXPECT_EQ(after_each_step[2].size(), 11u);
    for (std::size_t i = 1; i < after_each_step.size(); ++i)
        EXPECT_TRUE(std::includes(after_each_step[i].begin(), after_each_step[i].end(), after_each_step[i - 1].begin(),
                                  after_each_step[i - 1].end()))
            << "step " << i << " is not cumulative";
    // The first step is the StableHash prefix (select_pods).
    EXPECT_EQ(after_each_step[0], pod_names_for(w, select_pods(w.workload.uid, uids(w), 10)));
    EXPECT_EQ(after_each_step[1], pod_names_for(w, select_pods(w.workload.uid, uids(w), 50)));
    EXPECT_EQ(r.entry->phase, LifecyclePhase::ValidatedAwaitingPersistence);
    EXPECT_EQ(r.entry->validated_revision, r.entry->current_revision);
}

// An accepted patch is not enough: a pod counts as applied only once its
// status reports the target resources.
TEST(Lifecycle, APodCountsOnlyWhenApplied) {
    LifecycleWorld w;
    w.add_pods(10, kTemplate);
    for (const auto& p : w.pods) w.hold[p.name] = ResizeState::InProgress;
    LifecycleReconciler r{&w, steps(kStepsTenFiftyHundred), manual_cpu("200m")};
    const auto first = tick(r, kT0);
    ASSERT_EQ(actions_of<ResizePods>(first).size(), 1u);
    const auto canary = names(actions_of<ResizePods>(first)[0].pods);
    ASSERT_EQ(canary.size(), 1u);
    for (int i = 1; i <= 3; ++i) {
        const auto d = tick(r, kT0 + std::chrono::seconds{i});
        EXPECT_TRUE(actions_of<ResizePods>(d).empty()) << "an InProgress pod is resized again";
        EXPECT_EQ(r.entry->step, 0u);
        EXPECT_EQ(r.entry->pods.at(0).state, ResizeState::InProgress);
        EXPECT_EQ(r.entry->message, "step 1/3 (10%): 0 of 1 pod applied, 1 resizing");
    }
    w.release(canary[0]);
    const auto d = tick(r, kT0 + 10s);
    EXPECT_EQ(r.entry->step, 1u);
    EXPECT_EQ(names(actions_of<ResizePods>(d).at(0).pods).size(), 4u);  // 50% of 10 = 5, one already applied
}

// Deferred (the kubelet holds a resize it may still apply) is shown per pod
// and never counted.
TEST(Lifecycle, DeferredIsShownPerPodAndNeverCounted) {
    LifecycleWorld w;
    w.add_pods(10, kTemplate);
    for (const auto& p : w.pods) w.hold[p.name] = ResizeState::Deferred;
    LifecycleReconciler r{&w, steps(kStepsTenFiftyHundred), manual_cpu("200m")};
    const auto canary = names(actions_of<ResizePods>(tick(r, kT0)).at(0).pods).at(0);
    tick(r, kT0 + 1s);
    EXPECT_EQ(r.entry->pods.at(0).state, ResizeState::Deferred);
    EXPECT_EQ(r.entry->phase, LifecyclePhase::ValidationRunning);
    EXPECT_EQ(r.entry->message, "step 1/3 (10%): 0 of 1 pod applied, 1 resizing; " + canary +
                                    " Deferred (Node didn't have enough resource: cpu)");
    EXPECT_EQ(r.entry->pods.at(0).since, kT0 + 1s);  // entered Deferred when first seen
    tick(r, kT0 + 30s);
    EXPECT_EQ(r.entry->pods.at(0).since, kT0 + 1s);  // unchanged while it stays Deferred
    w.release(canary);
    tick(r, kT0 + 40s);
    EXPECT_EQ(r.entry->step, 1u);
}

// Infeasible (the kubelet cannot apply the resize) fails validation.
TEST(Lifecycle, InfeasibleFailsValidationAndRollsTheCanaryBack) {
    LifecycleWorld w;
    w.add_pods(20, kTemplate);
    LifecycleReconciler r{&w, steps(kStepsTenFiftyHundred), manual_cpu("200m")};
    const auto order = select_pods(w.workload.uid, uids(w), 10);
    const auto infeasible = pod_names_for(w, {order[1]}).at(0);
    w.hold[infeasible] = ResizeState::Infeasible;
    tick(r, kT0);
    const auto d = tick(r, kT0 + 1s);
    EXPECT_EQ(r.entry->phase, LifecyclePhase::Failed);
    EXPECT_TRUE(contains(r.entry->message, "step 1/3 (10%): pod " + infeasible + " is Infeasible"));
    EXPECT_EQ(r.entry->failed_revisions, Strings{r.entry->current_revision});
    const auto rollback = actions_of<RollbackPods>(d);
    ASSERT_EQ(rollback.size(), 1u);
    EXPECT_EQ(rollback[0].baseline, r.entry->baseline);
    auto rolled_back = names(rollback[0].pods);
    std::sort(rolled_back.begin(), rolled_back.end());
    EXPECT_EQ(rolled_back, pod_names_for(w, order));  // both canary pods
    EXPECT_EQ(event_reasons(d), Strings{"ValidationFailed"});
    EXPECT_TRUE(actions_of<EmitEvent>(d)[0].warning);
    EXPECT_TRUE(w.carrying(r.entry->candidate).empty());
    // Nothing further happens to a failed revision.
    const auto later = tick(r, kT0 + 1h);
    EXPECT_TRUE(later.actions.empty());
    EXPECT_EQ(r.entry->phase, LifecyclePhase::Failed);
}

TEST(Lifecycle, MaxConcurrentResizesBoundsThePodsInFlight) {
    LifecycleWorld w;
    w.add_pods(10, kTemplate);
    auto spec = steps({{50, 0s}, {100, 0s}});
    spec.max_concurrent_resizes = 2;
    for (const auto& p : w.pods) w.hold[p.name] = ResizeState::InProgress;
    LifecycleReconciler r{&w, spec, manual_cpu("200m")};
    const auto first = names(actions_of<ResizePods>(tick(r, kT0)).at(0).pods);
    EXPECT_EQ(first.size(), 2u);
    EXPECT_TRUE(actions_of<ResizePods>(tick(r, kT0 + 1s)).empty());
    EXPECT_EQ(r.entry->message, "step 1/2 (50%): 0 of 5 pods applied, 2 resizing, 3 waiting");
    w.release(first[0]);
    const auto third = names(actions_of<ResizePods>(tick(r, kT0 + 2s)).at(0).pods);
    ASSERT_EQ(third.size(), 1u);
    // A Deferred resize is still in flight: room for 2 - 1.
    w.hold.clear();
    w.release(third[0]);
    w.hold[first[1]] = ResizeState::Deferred;
    w.resize(first[1], r.entry->candidate);
    const auto d = tick(r, kT0 + 3s);
    EXPECT_EQ(r.entry->pods.size(), 5u);
    EXPECT_EQ(names(actions_of<ResizePods>(d).at(0).pods).size(), 1u);
}

// ---- QoS ----

// A BestEffort pod (no resources at all) cannot get requests in place, since
// that would change its QoS class; the template needs initial resources and
// the pods a restart first. -> ResizeBlocked=True,
// InPlaceResizeWouldChangeQoSClass, and no pod is ever patched.
TEST(Lifecycle, BestEffortWorkloadIsBlockedAndNeverResized) {
    LifecycleWorld w;
    w.add_pods(4, ResourceRequirements{});
    LifecycleReconciler r{&w, steps(kStepsTenFiftyHundred), manual_cpu("100m")};
    for (int i = 0; i < 3; ++i) {
        const auto d = tick(r, kT0 + std::chrono::seconds{i});
        EXPECT_TRUE(actions_of<ResizePods>(d).empty());
        const auto blocked = actions_of<SetResizeBlocked>(d);
        ASSERT_EQ(blocked.size(), 1u);
        EXPECT_EQ(blocked[0].reason, "InPlaceResizeWouldChangeQoSClass");
        EXPECT_TRUE(contains(blocked[0].message, "from BestEffort to Burstable"));
        EXPECT_TRUE(contains(blocked[0].message, "add initial resources to the workload template and recreate the pods"));
        EXPECT_EQ(r.entry->phase, LifecyclePhase::ValidationRunning);
        EXPECT_EQ(r.entry->step, 0u);
        EXPECT_TRUE(contains(r.entry->message, "blocked before any resize"));
    }
    EXPECT_TRUE(w.carrying(r.entry->candidate).empty());
}

// The whole pod's QoS class is checked before any resize is asked for: a
// Guaranteed workload given a request-only change is blocked before the
// first resize, and the message says what to change.
TEST(Lifecycle, QosChangeIsBlockedBeforeTheFirstResizeWithWhatToChange) {
    LifecycleWorld w;
    const ResourceRequirements guaranteed{rl({{"cpu", "1"}, {"memory", "1Gi"}}), rl({{"cpu", "1"}, {"memory", "1Gi"}})};
    w.add_pods(4, guaranteed);
    LifecycleReconciler r{&w, steps(kStepsTenFiftyHundred), manual_cpu("500m")};
    const auto d = tick(r, kT0);
    EXPECT_TRUE(actions_of<ResizePods>(d).empty());
    const auto blocked = actions_of<SetResizeBlocked>(d);
    ASSERT_EQ(blocked.size(), 1u);
    EXPECT_TRUE(contains(blocked[0].message, "from Guaranteed to Burstable"));
    EXPECT_TRUE(contains(blocked[0].message, "keep every container's cpu and memory requests equal to its limits"));
    // Requests and limits moved together keep it Guaranteed: not blocked.
    r.recommendation = {RecommendationSource::Manual, {{"app", {rl({{"cpu", "500m"}}), rl({{"cpu", "500m"}})}}}};
    const auto ok = tick(r, kT0 + 1s);
    EXPECT_TRUE(actions_of<SetResizeBlocked>(ok).empty());
    EXPECT_EQ(actions_of<ResizePods>(ok).size(), 1u);
}

// ---- supersession ----

// A recommendation that changes during validation supersedes the revision in
// flight and starts again. The pods the old revision resized beyond the new
// first step go back to the baseline.
TEST(Lifecycle, ChangeDuringValidationRestartsAtStepZeroWithANewRevision) {
    LifecycleWorld w;
    w.add_pods(11, kTemplate);
    LifecycleReconciler r{&w, steps({{10, 0s}, {50, 10min}, {100, 0s}}), manual_cpu("200m")};
    tick(r, kT0);
    tick(r, kT0 + 1s);  // step 2: 6 pods
    tick(r, kT0 + 2s);
    ASSERT_EQ(r.entry->step, 1u);
    const auto old = *r.entry;
    ASSERT_EQ(w.carrying(old.candidate).size(), 6u);

    r.recommendation = manual_cpu("300m");
    const auto d = tick(r, kT0 + 3s);
    EXPECT_EQ(event_reasons(d), Strings{"ValidationSuperseded"});
    EXPECT_NE(r.entry->current_revision, old.current_revision);
    EXPECT_EQ(r.entry->step, 0u);
    EXPECT_EQ(r.entry->attempt, 2);
    EXPECT_EQ(r.entry->baseline, old.baseline);  // still the frozen one
    EXPECT_EQ(r.entry->step_started_at, kT0 + 3s);
    const auto canary = pod_names_for(w, select_pods(w.workload.uid, uids(w), 10));
    const auto rollback = actions_of<RollbackPods>(d);
    ASSERT_EQ(rollback.size(), 1u);
    EXPECT_EQ(rollback[0].revision, old.current_revision);
    EXPECT_EQ(rollback[0].pods.size(), 4u);
    for (const auto& name : names(rollback[0].pods))
        EXPECT_EQ(std::count(canary.begin(), canary.end(), name), 0) << name << " is in the new first step";
    EXPECT_EQ(names(actions_of<ResizePods>(d).at(0).pods).size(), 2u);
    EXPECT_TRUE(w.carrying(old.candidate).empty());
    EXPECT_EQ(w.carrying(r.entry->candidate), canary);
}

// A change after validation but before persistence clears the webhook's
// eligibility and takes the new baseline from the already-resized live pods.
TEST(Lifecycle, ChangeAfterValidationClearsWebhookEligibilityAndRebaselines) {
    LifecycleWorld w;
    w.add_pods(4, kTemplate);
    LifecycleReconciler r{&w, steps(kStepsTenFiftyHundred), manual_cpu("200m")};
    run_until(r, kT0, LifecyclePhase::ValidatedAwaitingPersistence);
    const auto validated = *r.entry;
    r.recommendation = {RecommendationSource::Manual, {{"app", {rl({{"cpu", "200m"}, {"memory", "200Mi"}}), {}}}}};
    const auto d = tick(r, kT0 + 1h);
    ASSERT_FALSE(d.actions.empty());
    EXPECT_EQ(d.actions.front(), LifecycleAction{ClearWebhookEligibility{validated.validated_revision}});
    EXPECT_EQ(r.entry->phase, LifecyclePhase::ValidationRunning);
    EXPECT_EQ(r.entry->validated_revision, "");
    EXPECT_EQ(r.entry->baseline, validated.candidate);
    EXPECT_TRUE(actions_of<RollbackPods>(d).empty());  // the validated pods stay
    EXPECT_EQ(event_reasons(d), Strings{"ValidationStarted"});
}

// ---- revalidation ----

// A new spec.lifecycle.revalidationToken starts a fresh attempt even for an
// unchanged revision. The handled token is kept in status, so retries and
// restarts do not start it twice.
TEST(Lifecycle, RevalidationTokenRerunsAnUnchangedRevisionExactlyOnce) {
    LifecycleWorld w;
    w.add_pods(4, kTemplate);
    auto spec = steps({{50, 2min}, {100, 0s}});
    LifecycleReconciler r{&w, spec, manual_cpu("200m")};
    Timestamp now = run_until(r, kT0, LifecyclePhase::ValidatedAwaitingPersistence);
    w.persisted_revision = r.entry->validated_revision;
    now = run_until(r, now, LifecyclePhase::Persisted);
    const auto persisted = *r.entry;
    EXPECT_EQ(persisted.attempt, 1);

    r.spec.revalidation_token = "t1";
    const auto d = tick(r, now += 1s);
    EXPECT_EQ(event_reasons(d), Strings{"RevalidationStarted"});
    EXPECT_EQ(r.entry->attempt, 2);
    EXPECT_EQ(r.entry->handled_revalidation_token, "t1");
    EXPECT_EQ(r.entry->current_revision, persisted.current_revision);
    EXPECT_EQ(r.entry->phase, LifecyclePhase::ValidationRunning);
    EXPECT_EQ(r.entry->step, 0u);
    EXPECT_EQ(r.entry->baseline, persisted.candidate);  // a fresh live baseline: the pods carry the candidate
    // Retries and restarts (tick() also decides from the decoded entry)
    // never start it again.
    for (int i = 0; i < 5; ++i) {
        const auto reasons = event_reasons(tick(r, now += 1s));
        EXPECT_EQ(std::count(reasons.begin(), reasons.end(), "RevalidationStarted"), 0);
        EXPECT_EQ(r.entry->attempt, 2);
    }
    now = run_until(r, now, LifecyclePhase::Persisted);
    EXPECT_EQ(r.entry->attempt, 2);
    for (int i = 0; i < 3; ++i) tick(r, now += 1min);
    EXPECT_EQ(r.entry->attempt, 2);
}

// The revalidation attempt cancels pending persistence and may retry a
// failed revision.
TEST(Lifecycle, RevalidationCancelsPendingPersistenceAndMayRetryAFailedRevision) {
    LifecycleWorld w;
    w.add_pods(10, kTemplate);
    LifecycleReconciler r{&w, steps({{50, 1min}, {100, 0s}}), manual_cpu("200m")};
    run_until(r, kT0, LifecyclePhase::ValidatedAwaitingPersistence);
    r.spec.revalidation_token = "again";
    const auto d = tick(r, kT0 + 1h);
    EXPECT_EQ(d.actions.front(), LifecycleAction{ClearWebhookEligibility{r.entry->current_revision}});
    EXPECT_EQ(r.entry->validated_revision, "");

    // A revision that fails ...
    LifecycleWorld w2;
    w2.add_pods(10, kTemplate);
    const auto order = select_pods(w2.workload.uid, uids(w2), 10);
    w2.hold[pod_names_for(w2, order).at(0)] = ResizeState::Infeasible;
    LifecycleReconciler r2{&w2, steps(kStepsTenFiftyHundred), manual_cpu("200m")};
    run_until(r2, kT0, LifecyclePhase::Failed);
    const std::string failed = r2.entry->current_revision;
    ASSERT_EQ(r2.entry->failed_revisions, Strings{failed});
    // ... is retried by a token, and leaves the deny-list once it validates.
    w2.hold.clear();
    r2.spec.revalidation_token = "retry";
    const auto retry = tick(r2, kT0 + 1h);
    EXPECT_EQ(event_reasons(retry), Strings{"RevalidationStarted"});
    EXPECT_EQ(r2.entry->current_revision, failed);
    run_until(r2, kT0 + 1h, LifecyclePhase::ValidatedAwaitingPersistence);
    EXPECT_TRUE(r2.entry->failed_revisions.empty());
}

// A failed revision stays denied: when it comes back it is not tried again.
TEST(Lifecycle, ADeniedRevisionIsNotTriedAgain) {
    LifecycleWorld w;
    w.add_pods(10, kTemplate);
    const auto order = select_pods(w.workload.uid, uids(w), 10);
    w.hold[pod_names_for(w, order).at(0)] = ResizeState::Infeasible;
    LifecycleReconciler r{&w, steps(kStepsTenFiftyHundred), manual_cpu("50m")};
    Timestamp now = run_until(r, kT0, LifecyclePhase::Failed);
    const std::string bad = r.entry->current_revision;
    w.hold.clear();
    r.recommendation = manual_cpu("200m");
    now = run_until(r, now, LifecyclePhase::ValidatedAwaitingPersistence);
    r.recommendation = manual_cpu("50m");
    const auto d = tick(r, now += 1s);
    EXPECT_EQ(event_reasons(d), Strings{"RevisionDenied"});
    EXPECT_TRUE(actions_of<ResizePods>(d).empty());
    EXPECT_EQ(r.entry->phase, LifecyclePhase::Failed);
    EXPECT_EQ(r.entry->current_revision, bad);
    EXPECT_TRUE(contains(r.entry->message, "change spec.lifecycle.revalidationToken to retry it"));
    for (int i = 0; i < 3; ++i) EXPECT_TRUE(tick(r, now += 1min).actions.empty());
}

// ---- pause, settle gate and analysis ----

ThrottlingMeasurement throttled(const Strings& pods, double fraction) {
    ThrottlingMeasurement m;
    for (const auto& p : pods) m.pods.push_back({p, fraction * 3000, 3000});
    return m;
}

EffectiveLifecycle analysed(std::vector<LifecycleStep> s) {
    auto e = steps(std::move(s));
    e.cpu_throttling.enabled = true;
    e.cpu_throttling.window = 5min;
    return e;
}

// The optional throttling analysis asks Prometheus only after the readiness
// check and the pause, and only once every canary pod has been at its target
// resources for at least the Prometheus lookback window (the settle gate).
TEST(Lifecycle, ReadinessThenPauseThenSettleGateThenAnalysis) {
    LifecycleWorld w;
    w.add_pods(4, kTemplate);
    LifecycleReconciler r{&w, analysed({{50, 2min}, {100, 0s}}), manual_cpu("200m")};
    const auto canary = names(actions_of<ResizePods>(tick(r, kT0)).at(0).pods);
    ASSERT_EQ(canary.size(), 2u);

    auto d = tick(r, kT0 + 10s);  // applied and Ready
    EXPECT_EQ(r.entry->step_applied_at, kT0 + 10s);
    EXPECT_EQ(r.entry->step_ready_at, kT0 + 10s);
    EXPECT_EQ(d.requeue_at, kT0 + 10s + 5min);  // the settle gate outlasts the 2m pause
    EXPECT_EQ(r.entry->message, "step 1/2 (50%): all 2 pods applied and Ready; pausing until 2026-12-01T10:02:10Z");
    d = tick(r, kT0 + 3min);
    EXPECT_EQ(r.entry->message, "step 1/2 (50%): all 2 pods applied and Ready; settle gate: every pod at the candidate "
                                "for 5m0s by 2026-12-01T10:05:10Z");
    EXPECT_TRUE(actions_of<RunThrottlingAnalysis>(d).empty());

    d = tick(r, kT0 + 10s + 5min);  // no measurement scripted: the analysis is asked for
    const auto run = actions_of<RunThrottlingAnalysis>(d);
    ASSERT_EQ(run.size(), 1u);
    EXPECT_EQ(run[0], (RunThrottlingAnalysis{canary, 5min, r.entry->current_revision, 0}));
    EXPECT_EQ(r.entry->step, 0u);

    r.measurement = throttled(canary, 0.01);
    d = tick(r, kT0 + 11s + 5min);
    EXPECT_EQ(r.entry->step, 1u);
    ASSERT_TRUE(r.entry->last_analysis);
    EXPECT_TRUE(r.entry->last_analysis->passed);
    EXPECT_EQ(r.entry->last_analysis->explanation, "no pod throttled above 25% of its CFS periods (2 pods)");
    EXPECT_EQ(event_reasons(d), Strings{"StepCompleted"});
    EXPECT_EQ(names(actions_of<ResizePods>(d).at(0).pods).size(), 2u);
}

// A candidate that throttles fails analysis: it is rolled back, its revision
// lands in failedRevisions, and it is not retried.
TEST(Lifecycle, AThrottlingCandidateFailsIsRolledBackAndNotRetried) {
    LifecycleWorld w;
    w.add_pods(4, kTemplate);
    const LifecycleRecommendation tight{RecommendationSource::Manual, {{"app", {rl({{"cpu", "100m"}}), rl({{"cpu", "100m"}})}}}};
    LifecycleReconciler r{&w, analysed({{50, 1min}, {100, 0s}}), tight};
    const auto canary = run_first_step(r);
    r.measurement = throttled(canary, 0.6);
    const auto d = tick(r, kT0 + 1s + 5min);
    EXPECT_EQ(r.entry->phase, LifecyclePhase::Failed);
    EXPECT_FALSE(r.entry->last_analysis->passed);
    EXPECT_TRUE(contains(r.entry->message,
                         "step 1/2 (50%): CPU throttling analysis failed: throttled above 25% of CFS "
                         "periods"));
    EXPECT_EQ(r.entry->failed_revisions, Strings{r.entry->current_revision});
    const auto rollback = actions_of<RollbackPods>(d);
    ASSERT_EQ(rollback.size(), 1u);
    EXPECT_EQ(names(rollback[0].pods), canary);
    EXPECT_EQ(rollback[0].baseline.at("app"), kTemplate);
    EXPECT_EQ(event_reasons(d), Strings{"ValidationFailed"});
    EXPECT_TRUE(w.carrying(r.entry->candidate).empty());
    for (int i = 0; i < 5; ++i) EXPECT_TRUE(actions_of<ResizePods>(tick(r, kT0 + 1h + std::chrono::minutes{i})).empty());
}

TEST(Lifecycle, AFailedRollbackIsRetriedWhileAPodStillCarriesTheCandidate) {
    LifecycleWorld w;
    w.add_pods(4, kTemplate);
    LifecycleReconciler r{&w, analysed({{50, 0s}, {100, 0s}}), manual_cpu("200m")};
    const auto canary = run_first_step(r);
    r.measurement = throttled(canary, 0.9);
    const auto failed = r.decide(kT0 + 5min + 1s);  // the shell crashes before any rollback
    r.entry = failed.status;
    const auto again = tick(r, kT0 + 6min);
    ASSERT_EQ(actions_of<RollbackPods>(again).size(), 1u);
    EXPECT_EQ(names(actions_of<RollbackPods>(again)[0].pods), canary);
    EXPECT_TRUE(event_reasons(again).empty());  // the failure was reported once
    EXPECT_TRUE(tick(r, kT0 + 7min).actions.empty());
}

TEST(Lifecycle, AnAnalysisForAnotherStepOrRevisionIsNotUsed) {
    LifecycleWorld w;
    w.add_pods(4, kTemplate);
    LifecycleReconciler r{&w, analysed({{50, 0s}, {100, 0s}}), manual_cpu("200m")};
    const auto canary = run_first_step(r);
    auto plan = plan_attempt(AttemptInputs{w.workload, w.pods, r.recommendation, "", &*r.entry}).value();
    LifecycleInputs in{w.workload, "", plan, w.classify(plan.candidate), r.spec, &*r.entry, false, kT0 + 6min, std::nullopt};
    for (const auto& stale : {LifecycleAnalysisInput{plan.revision, 1, throttled(canary, 0)},
                              LifecycleAnalysisInput{"rev-other", 0, throttled(canary, 0)}}) {
        in.analysis = stale;
        const auto d = step_lifecycle(in);
        EXPECT_EQ(actions_of<RunThrottlingAnalysis>(d).size(), 1u);
        EXPECT_EQ(d.status.step, 0u);
    }
}

TEST(Lifecycle, AnalysisIsNotRunWhenTheCandidateSetsNoCpuLimit) {
    LifecycleWorld w;
    w.add_pods(4, ResourceRequirements{rl({{"cpu", "500m"}, {"memory", "256Mi"}}), rl({{"memory", "512Mi"}})});
    LifecycleReconciler r{&w, analysed({{50, 0s}, {100, 0s}}), manual_cpu("200m")};
    tick(r, kT0);
    const auto d = tick(r, kT0 + 1s);  // no settle gate either: nothing to settle for
    EXPECT_TRUE(actions_of<RunThrottlingAnalysis>(d).empty());
    EXPECT_EQ(r.entry->step, 1u);
    EXPECT_EQ(r.entry->last_analysis->explanation, "not run: the candidate sets no CPU limit, so CFS cannot throttle it");
}

TEST(Lifecycle, APodThatIsNotReadyHoldsThePauseAndFailsAfterTheReadinessTimeout) {
    LifecycleWorld w;
    w.add_pods(4, kTemplate);
    LifecycleReconciler r{&w, steps({{50, 2min}, {100, 0s}}), manual_cpu("200m")};
    const auto canary = run_first_step(r);
    EXPECT_EQ(r.entry->step_ready_at, kT0 + 1s);
    // NotReady during the pause: the pause starts again once it is back.
    w.set_ready(canary[0], false);
    auto d = tick(r, kT0 + 1min);
    EXPECT_FALSE(r.entry->step_ready_at);
    EXPECT_EQ(d.requeue_at, kT0 + 1s + 10min);
    EXPECT_EQ(r.entry->message, "step 1/2 (50%): all 2 pods applied; waiting for 1 pod to be Ready (" + canary[0] + ")");
    w.set_ready(canary[0], true);
    d = tick(r, kT0 + 90s);
    EXPECT_EQ(r.entry->step_ready_at, kT0 + 90s);
    EXPECT_EQ(d.requeue_at, kT0 + 90s + 2min);
    // Not Ready for the readiness timeout after reaching the candidate: failed.
    w.set_ready(canary[1], false);
    tick(r, kT0 + 2min);
    d = tick(r, kT0 + 1s + 10min);
    EXPECT_EQ(r.entry->phase, LifecyclePhase::Failed);
    EXPECT_TRUE(contains(r.entry->message, "pod " + canary[1] + " is not Ready 10m0s after the step's pods reached the candidate"));
}

TEST(Lifecycle, InitialDelayHoldsTheFirstResize) {
    LifecycleWorld w;
    w.add_pods(4, kTemplate);
    auto spec = steps(kStepsTenFiftyHundred);
    spec.initial_delay = 2min;
    LifecycleReconciler r{&w, spec, manual_cpu("200m")};
    auto d = tick(r, kT0);
    EXPECT_TRUE(actions_of<ResizePods>(d).empty());
    EXPECT_EQ(d.requeue_at, kT0 + 2min);
    EXPECT_EQ(r.entry->message, "step 1/3 (10%): initialDelay until 2026-12-01T10:02:00Z");
    EXPECT_TRUE(actions_of<ResizePods>(tick(r, kT0 + 119s)).empty());
    EXPECT_EQ(actions_of<ResizePods>(tick(r, kT0 + 2min)).size(), 1u);
}

// ---- the canary shorthand ----

// Without autoPromote, the lifecycle holds at PausedAtStep.
TEST(Lifecycle, CanaryWithoutAutoPromoteHoldsAtPausedAtStepUntilPromoted) {
    LifecycleWorld w;
    w.add_pods(4, kTemplate);
    LifecycleReconciler r{&w, effective_lifecycle(std::nullopt, CanaryShorthand{25, 60s, false}, 50), manual_cpu("200m")};
    EXPECT_EQ(names(actions_of<ResizePods>(tick(r, kT0)).at(0).pods).size(), 1u);
    tick(r, kT0 + 1s);
    const auto held = tick(r, kT0 + 61s);
    EXPECT_EQ(r.entry->phase, LifecyclePhase::PausedAtStep);
    EXPECT_EQ(event_reasons(held), (Strings{"StepCompleted", "PausedAtStep"}));
    EXPECT_TRUE(contains(r.entry->message, "autoPromote is false"));
    for (int i = 0; i < 3; ++i) {
        EXPECT_TRUE(tick(r, kT0 + 1h + std::chrono::minutes{i}).actions.empty());
        EXPECT_EQ(r.entry->phase, LifecyclePhase::PausedAtStep);
    }
    r.spec = effective_lifecycle(std::nullopt, CanaryShorthand{25, 60s, true}, 50);
    const auto promoted = tick(r, kT0 + 2h);
    EXPECT_EQ(r.entry->phase, LifecyclePhase::ValidationRunning);
    EXPECT_EQ(r.entry->step, 1u);
    EXPECT_EQ(names(actions_of<ResizePods>(promoted).at(0).pods).size(), 3u);
}

// ---- persistence ----

// AdmissionOnNextPodTemplateChange stays at ValidatedAwaitingPersistence
// until the next template change; then the template carries the validated
// resources and the phase is Persisted. Validation never patches.
TEST(Lifecycle, AdmissionOnNextPodTemplateChangeWaitsForTheRevisionAnnotation) {
    LifecycleWorld w;
    w.add_pods(4, kTemplate);
    LifecycleReconciler r{&w, steps(kStepsTenFiftyHundred), manual_cpu("200m")};
    Timestamp now = run_until(r, kT0, LifecyclePhase::ValidatedAwaitingPersistence);
    for (int i = 0; i < 3; ++i) {
        const auto d = tick(r, now += 1min);
        EXPECT_TRUE(actions_of<PatchTemplate>(d).empty());
        EXPECT_EQ(r.entry->phase, LifecyclePhase::ValidatedAwaitingPersistence);
    }
    w.persisted_revision = "rev-someone-elses";
    tick(r, now += 1min);
    EXPECT_EQ(r.entry->phase, LifecyclePhase::ValidatedAwaitingPersistence);
    w.persisted_revision = r.entry->validated_revision;
    const auto d = tick(r, now += 1min);
    EXPECT_EQ(r.entry->phase, LifecyclePhase::Persisted);
    EXPECT_EQ(event_reasons(d), Strings{"Persisted"});
    EXPECT_TRUE(event_reasons(tick(r, now += 1min)).empty());
}

TEST(Lifecycle, TemplatePatchPatchesOnceValidatedUntilTheAnnotationShows) {
    LifecycleWorld w;
    w.add_pods(4, kTemplate);
    auto spec = steps(kStepsTenFiftyHundred);
    spec.persistence = PersistenceMode::TemplatePatch;
    LifecycleReconciler r{&w, spec, manual_cpu("200m")};
    std::size_t patches_before_validation = 0;
    Timestamp now = kT0;
    while (!r.entry || r.entry->phase == LifecyclePhase::ValidationRunning) {
        const auto d = tick(r, now += 1s);
        if (r.entry->phase == LifecyclePhase::ValidationRunning) patches_before_validation += actions_of<PatchTemplate>(d).size();
        else {
            const std::vector<PatchTemplate> want{PatchTemplate{r.entry->candidate, r.entry->validated_revision}};
            EXPECT_EQ(actions_of<PatchTemplate>(d), want);
        }
    }
    EXPECT_EQ(patches_before_validation, 0u);
    EXPECT_EQ(actions_of<PatchTemplate>(tick(r, now += 1s)).size(), 1u);  // until it shows
    w.persisted_revision = r.entry->validated_revision;
    EXPECT_TRUE(actions_of<PatchTemplate>(tick(r, now += 1s)).empty());
    EXPECT_EQ(r.entry->phase, LifecyclePhase::Persisted);
}

TEST(Lifecycle, DisabledEndsAtValidatedWithoutPersistence) {
    LifecycleWorld w;
    w.add_pods(4, kTemplate);
    auto spec = steps(kStepsTenFiftyHundred);
    spec.persistence = PersistenceMode::Disabled;
    LifecycleReconciler r{&w, spec, manual_cpu("200m")};
    Timestamp now = run_until(r, kT0, LifecyclePhase::ValidatedWithoutPersistence);
    EXPECT_TRUE(actions_of<PatchTemplate>(tick(r, now += 1s)).empty());
    EXPECT_EQ(r.entry->phase, LifecyclePhase::ValidatedWithoutPersistence);
    // Switching persistence on offers it to the webhook; off again withdraws it.
    r.spec.persistence = PersistenceMode::AdmissionOnNextPodTemplateChange;
    tick(r, now += 1s);
    EXPECT_EQ(r.entry->phase, LifecyclePhase::ValidatedAwaitingPersistence);
    r.spec.persistence = PersistenceMode::Disabled;
    const auto d = tick(r, now += 1s);
    EXPECT_EQ(r.entry->phase, LifecyclePhase::ValidatedWithoutPersistence);
    EXPECT_EQ(actions_of<ClearWebhookEligibility>(d).size(), 1u);
}

TEST(Lifecycle, OnlyDeploymentsAndStatefulSetsArePersisted) {
    LifecycleWorld w;
    w.workload.kind = "DaemonSet";
    w.add_pods(3, kTemplate);
    LifecycleReconciler r{&w, steps(kStepsTenFiftyHundred), manual_cpu("200m")};
    run_until(r, kT0, LifecyclePhase::ValidatedWithoutPersistence);
    EXPECT_TRUE(contains(r.entry->message, "a DaemonSet template is not persisted"));
}

// ---- restarts ----

// A manager restart at any phase resumes from status and pod annotations
// without repeating or skipping a step. tick() checks every
// decision of every test above against a restart; here the manager dies
// after carrying out a decision and before writing its status.
TEST(Lifecycle, ACrashBeforeTheStatusWriteRepeatsAndSkipsNoStep) {
    LifecycleWorld w;
    w.add_pods(11, kTemplate);
    LifecycleReconciler r{&w, steps(kStepsTenFiftyHundred), manual_cpu("200m")};
    tick(r, kT0);
    tick(r, kT0 + 1s);  // step 2 issued and persisted
    ASSERT_EQ(r.entry->step, 1u);
    const auto before = *r.entry;
    // Step 2's pods are Applied; the next decision (step 3) is carried out
    // but its status is lost.
    const auto lost = r.decide(kT0 + 2s);
    ASSERT_EQ(lost.status.step, 2u);
    w.apply(lost);
    r.entry = before;
    const auto resumed = tick(r, kT0 + 3s);
    EXPECT_EQ(r.entry->step, 2u);                            // not skipped
    EXPECT_TRUE(actions_of<ResizePods>(resumed).empty());    // applied pods are not re-issued
    EXPECT_EQ(event_reasons(resumed), (Strings{"StepCompleted", "StepCompleted", "Validated"}));
    EXPECT_EQ(r.entry->phase, LifecyclePhase::ValidatedAwaitingPersistence);
}

TEST(Lifecycle, AStepWhosePodsAreAllAppliedIsNotReissued) {
    LifecycleWorld w;
    w.add_pods(10, kTemplate);
    LifecycleReconciler r{&w, steps({{50, 10min}, {100, 0s}}), manual_cpu("200m")};
    tick(r, kT0);
    for (int i = 1; i < 20; ++i) {
        const auto d = tick(r, kT0 + std::chrono::seconds{i * 20});
        EXPECT_TRUE(actions_of<ResizePods>(d).empty()) << i;
        EXPECT_EQ(r.entry->step, 0u);
    }
}

}  // namespace
}  // namespace attune::core
