#include <attune/controller/status_aggregation.hpp>

#include <boost/json/parse.hpp>
#include <boost/json/serialize.hpp>

#include <gtest/gtest.h>

namespace attune::controller {
namespace {
using core::IdleKind;
const core::Timestamp kT0{std::chrono::seconds(1'767'225'600)};

PolicyContext ctx(long long generation) {
    PolicyContext c;
    c.uid = "p-uid";
    c.generation = generation;
    c.minimum_data_points = 48;
    c.query_step_seconds = 300;
    return c;
}

WorkloadReport rep(std::string name, IdleKind idle, std::vector<std::string> by = {"p"},
                   std::string kind = "Deployment") {
    WorkloadReport r;
    r.ns = "ns";
    r.kind = std::move(kind);
    r.name = std::move(name);
    r.uid = r.name + "-uid";
    r.api_version = "apps/v1";
    r.idle = idle;
    r.hpa_name = idle == IdleKind::HPAScaledToZero ? "h" : "";
    r.selected_by = std::move(by);
    return r;
}

TEST(StatusAggregation, PassCompletesOnlyWhenEveryTargetReported) {
    StatusAggregation s;
    EXPECT_FALSE(
        s.begin_pass("ns", "p", ctx(1), {"ns/Deployment/a", "ns/Deployment/b", "ns/Deployment/c"}, std::nullopt, kT0));
    EXPECT_TRUE(s.report(rep("a", IdleKind::ManualZero), kT0).empty());
    EXPECT_TRUE(s.report(rep("b", IdleKind::None), kT0).empty());
    EXPECT_EQ(s.pending("ns", "p"), 1u);
    auto done = s.report(rep("c", IdleKind::HPAScaledToZero), kT0);
    ASSERT_EQ(done.size(), 1u);
    const auto& c = done[0];
    EXPECT_TRUE(c.changed);
    EXPECT_EQ(c.status.observed_generation, 1);
    EXPECT_EQ(c.status.idle_workloads, (std::vector<IdleWorkload>{{"a", "Deployment", "WorkloadReplicasZero"},
                                                                  {"c", "Deployment", "HPAScaledToZero"}}));
    EXPECT_EQ(c.hpa_scaled_to_zero, 1u);
    EXPECT_EQ(c.manual_zero, 1u);
    ASSERT_EQ(c.entered_hpa_scaled_to_zero.size(), 1u);
    EXPECT_EQ(c.entered_hpa_scaled_to_zero[0].name, "c");
}

TEST(StatusAggregation, PolicyWithoutTargetsCompletesAtOnce) {
    StatusAggregation s;
    auto c = s.begin_pass("ns", "p", ctx(2), {}, std::nullopt, kT0);
    ASSERT_TRUE(c);
    EXPECT_TRUE(c->status.idle_workloads.empty());
    EXPECT_TRUE(c->changed);  // never written: write the empty status once
}

TEST(StatusAggregation, UnchangedStatusIsNotWrittenAgain) {
    StatusAggregation s;
    s.begin_pass("ns", "p", ctx(1), {"ns/Deployment/a"}, std::nullopt, kT0);
    auto first = s.report(rep("a", IdleKind::ManualZero), kT0);
    ASSERT_EQ(first.size(), 1u);
    s.mark_written("ns", "p", first[0].status);
    auto again = s.report(rep("a", IdleKind::ManualZero), kT0);  // a pass of one
    ASSERT_EQ(again.size(), 1u);
    EXPECT_FALSE(again[0].changed);
    auto moved = s.report(rep("a", IdleKind::None), kT0);
    ASSERT_EQ(moved.size(), 1u);
    EXPECT_TRUE(moved[0].changed);
    EXPECT_TRUE(moved[0].status.idle_workloads.empty());
}

TEST(StatusAggregation, ServerStatusIsTheFirstBaseline) {
    // What an earlier process wrote, read back from the policy object.
    PolicyStatus on_server;
    {
        StatusAggregation before;
        before.begin_pass("ns", "p", ctx(1), {"ns/Deployment/a"}, std::nullopt, kT0);
        auto c = before.report(rep("a", IdleKind::HPAScaledToZero), kT0);
        ASSERT_EQ(c.size(), 1u);
        auto policy = boost::json::parse(status_patch_body(c[0].status));
        on_server = policy_status_from(policy);
        EXPECT_EQ(on_server, c[0].status);
    }
    StatusAggregation s;
    s.begin_pass("ns", "p", ctx(1), {"ns/Deployment/a"}, on_server, kT0 + std::chrono::hours(1));
    auto c = s.report(rep("a", IdleKind::HPAScaledToZero), kT0 + std::chrono::hours(1));
    ASSERT_EQ(c.size(), 1u);
    EXPECT_FALSE(c[0].changed);                          // a restart does not rewrite it
    EXPECT_TRUE(c[0].entered_hpa_scaled_to_zero.empty());  // nor re-announce it
    EXPECT_FALSE(c[0].status.last_reconcile_time);       // nor beat the heart for nothing
    EXPECT_EQ(c[0].status.conditions[0].last_transition_time, kT0);  // the transition time kept
}

TEST(StatusAggregation, HpaScaledToZeroEventOnlyWhenEntering) {
    StatusAggregation s;
    s.begin_pass("ns", "p", ctx(1), {"ns/Deployment/a"}, std::nullopt, kT0);
    EXPECT_EQ(s.report(rep("a", IdleKind::HPAScaledToZero), kT0)[0].entered_hpa_scaled_to_zero.size(), 1u);
    EXPECT_EQ(s.report(rep("a", IdleKind::HPAScaledToZero), kT0)[0].entered_hpa_scaled_to_zero.size(), 0u);
    s.report(rep("a", IdleKind::None), kT0);
    EXPECT_EQ(s.report(rep("a", IdleKind::HPAScaledToZero), kT0)[0].entered_hpa_scaled_to_zero.size(), 1u);
}

TEST(StatusAggregation, DeletedOrUnselectedWorkloadsLeaveTheStatus) {
    StatusAggregation s;
    s.begin_pass("ns", "p", ctx(1), {"ns/Deployment/a", "ns/Deployment/b"}, std::nullopt, kT0);
    s.report(rep("a", IdleKind::ManualZero), kT0);
    s.report(rep("b", IdleKind::ManualZero), kT0);
    auto gone = s.report(rep("a", IdleKind::None, {}), kT0);  // deleted: selected by nobody
    ASSERT_EQ(gone.size(), 1u);
    EXPECT_EQ(gone[0].status.idle_workloads, (std::vector<IdleWorkload>{{"b", "Deployment", "WorkloadReplicasZero"}}));
    auto relabelled = s.report(rep("b", IdleKind::ManualZero, {"other"}), kT0);
    ASSERT_EQ(relabelled.size(), 1u);
    EXPECT_TRUE(relabelled[0].status.idle_workloads.empty());
}

TEST(StatusAggregation, DiscoveredCountsWorkloadsLostToAHeavierPolicyOrOptedOut) {
    // As the Go Attune counts: every workload the targetRef matches.
    StatusAggregation s;
    s.begin_pass("ns", "light", ctx(1), {"ns/Deployment/a", "ns/Deployment/b", "ns/Deployment/c"}, std::nullopt, kT0);
    s.begin_pass("ns", "heavy", ctx(1), {"ns/Deployment/a"}, std::nullopt, kT0);
    auto lost = rep("a", IdleKind::None, {"heavy"});
    lost.conflicting_policies = {"light"};
    auto opted = rep("b", IdleKind::None, {});
    opted.opted_out_of = {"light"};
    const auto a = s.report(lost, kT0);  // completes heavy's pass
    ASSERT_EQ(a.size(), 1u);
    EXPECT_EQ(a[0].policy, "heavy");
    EXPECT_EQ(a[0].status.workloads.discovered, 1);
    EXPECT_TRUE(s.report(opted, kT0).empty());
    auto done = s.report(rep("c", IdleKind::ManualZero, {"light"}), kT0);
    ASSERT_EQ(done.size(), 1u);
    EXPECT_EQ(done[0].policy, "light");
    EXPECT_EQ(done[0].status.workloads.discovered, 3);  // c, and a and b which it does not manage
    EXPECT_EQ(done[0].status.workloads.with_recommendations, 0);
    // Only what it manages reaches the rest of its status.
    EXPECT_EQ(done[0].status.idle_workloads, (std::vector<IdleWorkload>{{"c", "Deployment", "WorkloadReplicasZero"}}));

    // a's labels change so that light no longer matches it: it leaves the count.
    auto unmatched = rep("a", IdleKind::None, {"heavy"});
    auto later = s.report(unmatched, kT0);
    ASSERT_EQ(later.size(), 2u);
    for (const auto& c : later) {
        if (c.policy == "light") {
            EXPECT_EQ(c.status.workloads.discovered, 2);
        }
    }

    // Nothing managed, something matched: Ready says why, not "check the targetRef".
    StatusAggregation t;
    t.begin_pass("ns", "light", ctx(1), {"ns/Deployment/a"}, std::nullopt, kT0);
    auto only = t.report(lost, kT0);
    ASSERT_EQ(only.size(), 1u);
    EXPECT_EQ(only[0].status.workloads.discovered, 1);
    const auto* ready = core::find_condition(only[0].status.conditions, "Ready");
    ASSERT_NE(ready, nullptr);
    EXPECT_EQ(ready->reason, "NoWorkloadsFound");
    EXPECT_NE(ready->message.find("another policy outranks it"), std::string::npos) << ready->message;
}

TEST(StatusAggregation, NewlySelectedWorkloadJoinsOutsideAPass) {
    StatusAggregation s;
    s.begin_pass("ns", "p", ctx(1), {}, std::nullopt, kT0);
    auto c = s.report(rep("new", IdleKind::ManualZero, {"p"}, "StatefulSet"), kT0);
    ASSERT_EQ(c.size(), 1u);
    EXPECT_EQ(c[0].status.idle_workloads, (std::vector<IdleWorkload>{{"new", "StatefulSet", "WorkloadReplicasZero"}}));
}

TEST(StatusAggregation, ReportsConcernOnlyPoliciesOfTheirNamespaceThatTrackThem) {
    StatusAggregation s;
    s.begin_pass("ns", "p", ctx(1), {"ns/Deployment/a"}, std::nullopt, kT0);
    s.begin_pass("ns", "q", ctx(1), {"ns/Deployment/b"}, std::nullopt, kT0);
    s.begin_pass("other", "p", ctx(1), {"other/Deployment/a"}, std::nullopt, kT0);
    auto c = s.report(rep("a", IdleKind::ManualZero, {"p"}), kT0);
    ASSERT_EQ(c.size(), 1u);
    EXPECT_EQ(c[0].ns, "ns");
    EXPECT_EQ(c[0].policy, "p");
    EXPECT_EQ(s.pending("ns", "q"), 1u);
    EXPECT_EQ(s.pending("other", "p"), 1u);
    EXPECT_TRUE(s.report(rep("zzz", IdleKind::ManualZero, {}), kT0).empty());  // unrelated
}

TEST(StatusAggregation, NewPassRestartsPendingAndDropsUnselected) {
    StatusAggregation s;
    s.begin_pass("ns", "p", ctx(1), {"ns/Deployment/a", "ns/Deployment/b"}, std::nullopt, kT0);
    s.report(rep("a", IdleKind::ManualZero), kT0);
    s.report(rep("b", IdleKind::ManualZero), kT0);
    s.begin_pass("ns", "p", ctx(2), {"ns/Deployment/a"}, std::nullopt, kT0);  // spec changed: b no longer selected
    EXPECT_EQ(s.pending("ns", "p"), 1u);
    auto c = s.report(rep("a", IdleKind::ManualZero), kT0);
    ASSERT_EQ(c.size(), 1u);
    EXPECT_EQ(c[0].status.observed_generation, 2);
    EXPECT_EQ(c[0].status.idle_workloads.size(), 1u);
    s.forget_policy("ns", "p");
    EXPECT_FALSE(s.tracks("ns", "p"));
}

TEST(StatusAggregation, StatusFromPolicyAndPatchBody) {
    auto p = boost::json::parse(R"({"status":{"observedGeneration":4,"idleWorkloads":[
        {"workload":"z","kind":"StatefulSet","reason":"WorkloadReplicasZero"},
        {"workload":"a","kind":"Deployment","reason":"HPAScaledToZero"}],
        "workloads":{"discovered":3,"withRecommendations":1,"resized":0,"pending":1,"dataPointsCollected":60,"dataPointsRequired":48},
        "conditions":[{"type":"Ready","status":"True","reason":"Monitoring","message":"m","lastTransitionTime":"2026-01-01T00:00:00Z","observedGeneration":4}],
        "recommendations":[{"workload":"a","kind":"Deployment","containers":[],"stale":false}],
        "lastReconcileTime":"2026-01-01T00:00:00Z"}})");
    auto st = policy_status_from(p);
    EXPECT_EQ(st.observed_generation, 4);
    ASSERT_EQ(st.idle_workloads.size(), 2u);
    EXPECT_EQ(st.idle_workloads[0].workload, "a");  // sorted like ours
    EXPECT_EQ(st.workloads, (WorkloadCounts{3, 1, 0, 1, 60, 48}));
    ASSERT_EQ(st.conditions.size(), 1u);
    EXPECT_EQ(st.conditions[0].reason, "Monitoring");
    EXPECT_EQ(st.recommendations.size(), 1u);
    EXPECT_TRUE(st.last_reconcile_time);
    EXPECT_EQ(policy_status_from(boost::json::parse("{}")), PolicyStatus{});
    PolicyStatus empty;
    empty.observed_generation = 3;
    EXPECT_EQ(
        status_patch_body(empty),
        R"({"status":{"idleWorkloads":[],"observedGeneration":3,"workloads":{"discovered":0,"withRecommendations":0,)"
        R"("resized":0,"pending":0,"deferred":0,"infeasible":0,"dataPointsCollected":0,"dataPointsRequired":0},)"
        R"("conditions":[],"recommendations":[],"savings":null,"resizeHistory":[]}})");
    // Savings read back too.
    st.savings = boost::json::object{{"cpuRequestTotal", "500m"}, {"estimatedMonthlySavings", "$4.53"}};
    // The body reads back as the status it came from.
    EXPECT_EQ(policy_status_from(boost::json::parse(status_patch_body(st))), st);
}

// A store entry for one managed workload, as a worker puts it.
void recommend(RecommendationStore& store, const std::string& name, const char* cpu) {
    StoredRecommendation e;
    e.workload = {"ns", "Deployment", name};
    e.workload_uid = name + "-uid";
    e.policy = "p";
    core::ContainerRecommendation c;
    c.name = "app";
    c.current.cpu_request = core::Quantity::parse("500m").value();
    c.recommended.cpu_request = core::Quantity::parse(cpu).value();
    c.confidence = 0.5;
    e.recommendation.containers = {c};
    store.put(std::move(e));
}

WorkloadReport with_state(WorkloadReport r, RecommendationState st, int points = 0, std::string message = "") {
    r.recommendation = {st, std::move(message), points};
    return r;
}

TEST(StatusAggregation, CountersRecommendationsAndTheFirstRecommendationsFromTheStore) {
    RecommendationStore store;
    StatusAggregation s(&store);
    s.begin_pass("ns", "p", ctx(1), {"ns/Deployment/a", "ns/Deployment/b", "ns/Deployment/c"}, std::nullopt, kT0);
    s.report(with_state(rep("a", IdleKind::None), RecommendationState::Collecting, 12,
                        "Collecting data: 12 of 48 points"),
             kT0);
    s.report(rep("b", IdleKind::ManualZero), kT0);
    auto first = s.report(with_state(rep("c", IdleKind::None), RecommendationState::Collecting, 20,
                                     "Collecting data: 20 of 48 points"),
                          kT0);
    ASSERT_EQ(first.size(), 1u);
    EXPECT_EQ(first[0].status.workloads, (WorkloadCounts{3, 0, 0, 0, 20, 48}));
    EXPECT_FALSE(first[0].first_recommendations);
    const auto* ready = core::find_condition(first[0].status.conditions, "Ready");
    ASSERT_NE(ready, nullptr);
    EXPECT_EQ(ready->reason, "InsufficientData");
    EXPECT_EQ(ready->message, "Collecting data: 20 of 48 points");  // the workload with the most points
    EXPECT_EQ(ready->observed_generation, 1);

    recommend(store, "a", "300m");
    auto second = s.report(with_state(rep("a", IdleKind::None), RecommendationState::Recommended, 60), kT0);
    ASSERT_EQ(second.size(), 1u);
    EXPECT_TRUE(second[0].first_recommendations);
    EXPECT_EQ(second[0].status.workloads, (WorkloadCounts{3, 1, 0, 1, 60, 48}));
    ASSERT_EQ(second[0].status.recommendations.size(), 1u);
    EXPECT_EQ(second[0].status.recommendations[0].at("workload").as_string(), "a");
    // status.savings over the store's entries, at the built-in prices: 200m x $0.031 x 730 h.
    EXPECT_EQ(second[0].status.savings, (boost::json::object{{"cpuRequestTotal", "500m"},
                                                             {"cpuRequestReduction", "200m"},
                                                             {"reclaimedCpuRequest", "200m"},
                                                             {"estimatedMonthlySavings", "$4.53"}}));
    EXPECT_TRUE(first[0].status.savings.empty());  // no recommendation yet: none (removed on write)
    ready = core::find_condition(second[0].status.conditions, "Ready");
    EXPECT_EQ(ready->status, "True");
    EXPECT_EQ(ready->reason, "Monitoring");
    EXPECT_EQ(ready->message, "Watching 3 workloads, 1 with recommendations");
    EXPECT_EQ(ready->last_transition_time, kT0);

    // Only the first time.
    auto again = s.report(with_state(rep("a", IdleKind::None), RecommendationState::Recommended, 60), kT0);
    EXPECT_FALSE(again[0].first_recommendations);

    // An entry that names another policy (c moved to it) is not this policy's.
    recommend(store, "c", "200m");
    StoredRecommendation moved = *store.get({"ns", "Deployment", "c"});
    moved.policy = "q";
    store.put(moved);
    auto after = s.report(with_state(rep("c", IdleKind::None), RecommendationState::Recommended, 60), kT0);
    EXPECT_EQ(after[0].status.workloads.with_recommendations, 1);
}

TEST(StatusAggregation, LastReconcileTimeMovesOnlyWithAnotherChange) {
    StatusAggregation s;
    s.begin_pass("ns", "p", ctx(1), {"ns/Deployment/a"}, std::nullopt, kT0);
    auto c = s.report(rep("a", IdleKind::ManualZero), kT0);
    ASSERT_TRUE(c[0].changed);
    EXPECT_EQ(c[0].status.last_reconcile_time, kT0);
    s.mark_written("ns", "p", c[0].status);
    auto later = s.report(rep("a", IdleKind::ManualZero), kT0 + std::chrono::minutes(5));
    EXPECT_FALSE(later[0].changed);
    EXPECT_FALSE(later[0].status.last_reconcile_time);
    auto moved = s.report(rep("a", IdleKind::None), kT0 + std::chrono::minutes(6));
    EXPECT_TRUE(moved[0].changed);
    EXPECT_EQ(moved[0].status.last_reconcile_time, kT0 + std::chrono::minutes(6));
}

TEST(StatusAggregation, ScaledToZeroOnlyWhileEveryScaleableTargetIsIdle) {
    StatusAggregation s;
    s.begin_pass("ns", "p", ctx(1), {"ns/Deployment/a", "ns/DaemonSet/d", "ns/StatefulSet/b"}, std::nullopt, kT0);
    s.report(rep("a", IdleKind::HPAScaledToZero), kT0);
    s.report(rep("d", IdleKind::None, {"p"}, "DaemonSet"), kT0);  // never scaleable: does not count
    auto all_idle = s.report(rep("b", IdleKind::ManualZero, {"p"}, "StatefulSet"), kT0);
    ASSERT_EQ(all_idle.size(), 1u);
    const auto* zero = core::find_condition(all_idle[0].status.conditions, "ScaledToZero");
    ASSERT_NE(zero, nullptr);
    EXPECT_EQ(zero->status, "True");
    EXPECT_EQ(zero->message, "All 2 scaleable targets are idle: 1 held at zero by an HPA, 1 with spec.replicas 0");
    // Ready is the workloads' business, not the idleness's.
    EXPECT_NE(core::find_condition(all_idle[0].status.conditions, "Ready")->reason, "ScaledToZero");
    auto active = s.report(rep("b", IdleKind::None, {"p"}, "StatefulSet"), kT0);
    EXPECT_EQ(core::find_condition(active[0].status.conditions, "ScaledToZero"), nullptr);
}

TEST(StatusAggregation, ConditionsOfOtherTypesAreKept) {
    PolicyStatus on_server;
    // (Resizing, ResizeBlocked, Degraded and ScheduleBlocked are the
    // executor's now, through the resize ledger: GitOpsPullRequest is not.)
    core::Condition resizing{"GitOpsPullRequest", "False", "PullRequestDisabled", "export.pullRequest is off", kT0, 1};
    on_server.conditions.push_back(resizing);
    StatusAggregation s;
    auto c = s.begin_pass("ns", "p", ctx(1), {}, on_server, kT0);
    ASSERT_TRUE(c);
    ASSERT_EQ(c->status.conditions.size(), 2u);
    EXPECT_EQ(c->status.conditions[0], resizing);
    EXPECT_EQ(c->status.conditions[1].reason, "NoWorkloadsFound");
}

// The executor's part of the status, read from its ledger at completion
// and on a refresh: resizeHistory, cooldown, the counts, and the
// ResizeBlocked / Resizing / Degraded conditions.
TEST(StatusAggregation, TheResizeLedgerReachesTheStatus) {
    ResizeLedger ledger;
    StatusAggregation s;
    s.set_resize_ledger(&ledger);
    auto context = ctx(3);
    context.resizing_mode = true;
    context.cooldown = std::chrono::seconds(60);
    auto first = s.begin_pass("ns", "p", context, {}, std::nullopt, kT0);
    ASSERT_TRUE(first);
    EXPECT_TRUE(first->status.resize_history.empty());
    ASSERT_TRUE(first->status.cooldown);
    EXPECT_EQ(first->status.cooldown->effective, std::chrono::seconds(60));
    auto cond = [](const CompletedPass& c, const char* type) -> std::string {
        for (const auto& x : c.status.conditions)
            if (x.type == type) return x.status + "/" + x.reason;
        return "";
    };
    EXPECT_EQ(cond(*first, "Resizing"), "False/Idle");
    s.mark_written("ns", "p", first->status);

    auto& book = ledger.get("ns", "p", nullptr);
    core::HistoryEntry e;
    e.timestamp = kT0;
    e.workload = "web";
    e.container = "app";
    e.from = "500m";
    e.to = "200m";
    e.resource = core::HistoryResource::Cpu;
    e.result = core::HistoryResult::Success;
    std::vector<core::HistoryEntry> entries(2, e);
    e.result = core::HistoryResult::Reverted;
    e.reason = "oomkill";
    entries.insert(entries.end(), 3, e);
    ledger.append(book, entries);
    ledger.set_pods(book, "web", {{"u1", core::ResizeState::Deferred}, {"u2", core::ResizeState::Applied}});
    ledger.set_cycle(book, true, false, std::nullopt);
    auto again = s.refresh("ns", "p", kT0 + std::chrono::seconds(5));
    ASSERT_TRUE(again);
    EXPECT_TRUE(again->changed);
    EXPECT_EQ(again->status.resize_history.size(), 5u);
    EXPECT_EQ(again->status.workloads.deferred, 1);
    EXPECT_EQ(again->status.workloads.resized, 0) << "a pod of web is not Applied";
    EXPECT_EQ(cond(*again, "ResizeBlocked"), "True/PodsDeferred");
    EXPECT_EQ(cond(*again, "Resizing"), "True/InProgress");
    EXPECT_EQ(cond(*again, "Degraded"), "True/HighRevertRate");
    EXPECT_EQ(again->status.cooldown->consecutive_reverts, 3);
    EXPECT_EQ(again->status.cooldown->backoff_multiplier, 8);

    // What is written reads back as the same status (no write loop).
    const auto body = boost::json::parse(status_patch_body(again->status));
    EXPECT_EQ(body.at("status").at("resizeHistory").as_array().size(), 5u);
    EXPECT_EQ(body.at("status").at("workloads").at("deferred").as_int64(), 1);
    EXPECT_EQ(body.at("status").at("cooldown").at("effectiveCooldown").as_string(), "8m0s");
    const auto back = policy_status_from(body);
    EXPECT_EQ(back.resize_history, again->status.resize_history);
    EXPECT_EQ(back.cooldown, again->status.cooldown);
    EXPECT_EQ(back.workloads.deferred, 1);
}

// The lifecycle's entries reach status.lifecycle and its block
// ResizeBlocked; a policy that never ran Canary writes no status.lifecycle,
// one whose last entry went writes an empty list (a merge patch replaces it).
TEST(StatusAggregation, TheLifecycleEntriesAndBlockReachTheStatus) {
    ResizeLedger ledger;
    StatusAggregation s;
    s.set_resize_ledger(&ledger);
    auto context = ctx(2);
    context.resizing_mode = true;
    auto first = s.begin_pass("ns", "p", context, {}, std::nullopt, kT0);
    ASSERT_TRUE(first);
    EXPECT_FALSE(first->status.lifecycle_owned);
    EXPECT_FALSE(boost::json::parse(status_patch_body(first->status)).at("status").as_object().contains("lifecycle"));
    s.mark_written("ns", "p", first->status);

    auto& book = ledger.get("ns", "p", nullptr);
    core::LifecycleStatusEntry e;
    e.workload = "web";
    e.kind = "Deployment";
    e.current_revision = "rev-1";
    e.step_started_at = kT0;
    e.message = "blocked before any resize: pod web-0: ...";
    ledger.set_lifecycle(book, e, std::pair<std::string, std::string>{"InPlaceResizeWouldChangeQoSClass", "pod web-0: ..."});
    auto again = s.refresh("ns", "p", kT0 + std::chrono::seconds(5));
    ASSERT_TRUE(again);
    EXPECT_TRUE(again->changed);
    ASSERT_EQ(again->status.lifecycle.size(), 1u);
    EXPECT_EQ(again->status.lifecycle[0].current_revision, "rev-1");
    std::string blocked;
    for (const auto& c : again->status.conditions)
        if (c.type == "ResizeBlocked") blocked = c.status + "/" + c.reason;
    EXPECT_EQ(blocked, "True/InPlaceResizeWouldChangeQoSClass");
    const auto body = boost::json::parse(status_patch_body(again->status));
    EXPECT_EQ(body.at("status").at("lifecycle").at("workloads").at(0).at("phase").as_string(), "ValidationRunning");
    // What the server then holds reads back as the same status (no second write).
    EXPECT_EQ(policy_status_from(body), again->status);
    s.mark_written("ns", "p", again->status);

    ledger.drop_lifecycle(book, "Deployment", "web");
    auto gone = s.refresh("ns", "p", kT0 + std::chrono::seconds(10));
    ASSERT_TRUE(gone);
    EXPECT_TRUE(gone->status.lifecycle.empty());
    EXPECT_EQ(boost::json::serialize(boost::json::parse(status_patch_body(gone->status)).at("status").at("lifecycle")),
              R"({"workloads":[]})");
    for (const auto& c : gone->status.conditions) EXPECT_NE(c.type, "ResizeBlocked");
}

}  // namespace
}  // namespace attune::controller
