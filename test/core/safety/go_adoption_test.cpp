// adopt_go_pod / adopt_go_policy / judge_go_lease against what the Go Attune
// writes (attune-io/attune v0.1.23) and the table in docs/cli.md "migrate".
#include "attune/core/safety/go_adoption.hpp"

#include <gtest/gtest.h>

#include <boost/json.hpp>

namespace attune::core {
namespace {

using namespace std::chrono;
namespace json = boost::json;

const Timestamp kNow = sys_days(2026y / December / 1) + 10h;

// The annotations the Go operator writes before the first /resize of a
// container (internal/controller/resize.go, persistResizeAnnotations).
constexpr const char* kGoTracking = R"(
  "attune.io/original-cpu-request.app":"500m","attune.io/original-memory-request.app":"256Mi",
  "attune.io/original-cpu-limit.app":"1","attune.io/original-memory-limit.app":"512Mi",
  "attune.io/original-restart-count.app":"3","attune.io/resized-at":"2026-12-01T09:58:00Z",
  "attune.io/resized-workload":"web","attune.io/resized-containers":"app")";

json::value pod(const std::string& labels, const std::string& annotations) {
    return json::parse(R"({"metadata":{"name":"web-1","creationTimestamp":"2026-12-01T09:00:00Z","labels":{)" + labels +
                       R"(},"annotations":{)" + annotations + "}}}");
}

std::string actions(const Adoption& a) {
    std::string out;
    for (const auto& n : a.notes)
        out += (out.empty() ? "" : "; ") + n.field + ": " + std::string(adopt_action_name(n.action));
    return out;
}

TEST(GoAdoption, PodsAsTheGoOperatorLeavesThem) {
    struct Case {
        const char* name;
        std::string labels, annotations;
        const char* want_actions;
        const char* want_patch;  // "" = nothing to write
    };
    const std::string policy = R"("attune.io/policy":"web")";
    const Case cases[] = {
        {"a resize in its safety period: tracking kept, attune.io/policy dropped", R"("attune.io/tracked":"true")",
         std::string(kGoTracking) + "," + policy, "resize tracking: kept; annotation attune.io/policy: dropped",
         R"({"metadata":{"annotations":{"attune.io/policy":null}}})"},
        {"two containers listed with a space, as the Go operator reads them", R"("attune.io/tracked":"true")",
         std::string(kGoTracking).replace(std::string(kGoTracking).find(R"("app")"), 5, R"(" app, ,log")") +
             R"(,"attune.io/original-cpu-request.log":"50m","attune.io/original-restart-count.log":"0")",
         "annotation attune.io/resized-containers: rewritten; resize tracking: kept",
         R"({"metadata":{"annotations":{"attune.io/resized-containers":"app,log"}}})"},
        {"a boosted pod: the Go operator's tracked label dropped, the boost kept",
         R"("attune.io/tracked":"true","app":"web")",
         R"("attune.io/startup-boost-at":"2026-12-01T09:59:00Z",)" + policy,
         "label attune.io/tracked: dropped; annotation attune.io/startup-boost-at: kept; annotation attune.io/policy: "
         "dropped",
         R"({"metadata":{"labels":{"attune.io/tracked":null},"annotations":{"attune.io/policy":null}}})"},
        {"an unreadable boost time is kept, and said", "", R"("attune.io/startup-boost-at":"soon")",
         "annotation attune.io/startup-boost-at: kept", ""},
        {"a tracked label left after the boost ended", R"("attune.io/tracked":"true")", policy,
         "label attune.io/tracked: dropped; annotation attune.io/policy: dropped",
         R"({"metadata":{"labels":{"attune.io/tracked":null},"annotations":{"attune.io/policy":null}}})"},
        {"an original that is not a quantity: a conflict, nothing written", R"("attune.io/tracked":"true")",
         std::string(kGoTracking).replace(std::string(kGoTracking).find("500m"), 4, "lots") + "," + policy,
         "resize tracking: conflict; annotation attune.io/policy: dropped", ""},
        {"nothing of the Go operator's", R"("app":"web")", R"("attune.io/skip":"false")", "", ""},
        {"the HPA's original target is not a pod original", "", R"("attune.io/original-target-cpu":"80")", "", ""},
    };
    for (const auto& c : cases) {
        const auto a = adopt_go_pod(pod(c.labels, c.annotations));
        EXPECT_EQ(actions(a), c.want_actions) << c.name;
        EXPECT_EQ(a.patch.empty() ? std::string() : json::serialize(a.patch), c.want_patch) << c.name;
        EXPECT_TRUE(a.status_patch.empty()) << c.name;
    }
}

TEST(GoAdoption, KeptTrackingNamesWhatARevertGoesBackTo) {
    const auto a = adopt_go_pod(pod(R"("attune.io/tracked":"true")", kGoTracking));
    ASSERT_EQ(a.notes.size(), 1u);
    EXPECT_NE(a.notes[0].why.find("containers app, resized at 2026-12-01T09:58:00Z"), std::string::npos)
        << a.notes[0].why;
    EXPECT_TRUE(a.patch.empty());
}

TEST(GoAdoption, TrackingWithoutTheLabelIsSaid) {
    const auto a = adopt_go_pod(pod("", kGoTracking));
    ASSERT_EQ(a.notes.size(), 1u);
    EXPECT_NE(a.notes[0].why.find("without the label attune.io/tracked=true"), std::string::npos) << a.notes[0].why;
}

json::value policy(const std::string& metadata_extra, const std::string& status) {
    return json::parse(R"({"metadata":{"name":"web","resourceVersion":"42")" + metadata_extra + R"(},"status":)" +
                       status + "}");
}

constexpr const char* kEntry = R"({"timestamp":"2026-12-01T09:00:00Z","workload":"web","container":"app",)"
                               R"("resource":"cpu","from":"500m","to":"200m","method":"InPlace","result":")";

TEST(GoAdoption, PoliciesAsTheGoOperatorLeavesThem) {
    struct Case {
        const char* name;
        std::string metadata_extra, status;
        const char* want_actions;
        const char* want_patch;
        const char* want_status_patch;
    };
    const std::string hist = std::string(R"({"resizeHistory":[)") + kEntry + R"(Success"},)" + kEntry +
                             R"(Reverted","reason":"oomkill"}],"cooldown":{"effectiveCooldown":"2h0m0s",)"
                             R"("backoffMultiplier":2,"consecutiveReverts":1}})";
    const Case cases[] = {
        {"finalizer dropped, the anchor and the history kept",
         R"(,"finalizers":["attune.io/cleanup","example.com/keep"],)"
         R"("annotations":{"attune.io/last-resize-time":"2026-12-01T09:58:00Z"})",
         hist,
         "finalizer attune.io/cleanup: dropped; annotation attune.io/last-resize-time: kept; status.resizeHistory: "
         "kept; status.cooldown: kept",
         R"({"metadata":{"finalizers":["example.com/keep"],"resourceVersion":"42"}})", ""},
        {"the Go canary progress dropped from status", "", R"({"canary":{"phase":"CanaryInProgress"}})",
         "status.canary: dropped", "", R"({"status":{"canary":null}})"},
        {"an anchor that is not a time: a conflict, nothing written",
         R"(,"finalizers":["attune.io/cleanup"],"annotations":{"attune.io/last-resize-time":"yesterday"})", "{}",
         "finalizer attune.io/cleanup: dropped; annotation attune.io/last-resize-time: conflict", "", ""},
        {"a history entry this manager cannot read: a conflict", "",
         std::string(R"({"resizeHistory":[)") + kEntry + R"(Maybe"}]})", "status.resizeHistory: conflict", "", ""},
        {"a policy the Go operator never touched", "", "{}", "", "", ""},
    };
    for (const auto& c : cases) {
        const auto a = adopt_go_policy(policy(c.metadata_extra, c.status));
        EXPECT_EQ(actions(a), c.want_actions) << c.name;
        EXPECT_EQ(a.patch.empty() ? std::string() : json::serialize(a.patch), c.want_patch) << c.name;
        EXPECT_EQ(a.status_patch.empty() ? std::string() : json::serialize(a.status_patch), c.want_status_patch)
            << c.name;
    }
}

// The Go operator stops counting at the first entry that is not a revert;
// this manager skips failures and template entries, so it backs off more.
TEST(GoAdoption, HistorySaysWhenTheRevertCountsDiffer) {
    const std::string status = std::string(R"({"resizeHistory":[)") + kEntry + R"(Reverted","reason":"oomkill"},)" +
                               kEntry + R"(Failed","reason":"infeasible"}]})";
    const auto a = adopt_go_policy(policy("", status));
    ASSERT_EQ(a.notes.size(), 1u);
    EXPECT_NE(a.notes[0].why.find("1 consecutive revert (the Go operator counted 0"), std::string::npos)
        << a.notes[0].why;
}

TEST(GoAdoption, JudgesTheGoLease) {
    struct Case {
        const char* name;
        const char* spec;
        GoLeaseVerdict want;
        const char* message;
    };
    const Case cases[] = {
        {"renewed 3s ago",
         R"({"holderIdentity":"attune-7d9f_1b2c","renewTime":"2026-12-01T09:59:57.123456Z",)"
         R"("leaseDurationSeconds":15})",
         GoLeaseVerdict::Leading, "held by attune-7d9f_1b2c, renewed 3s ago (lease 15s)"},
        {"renewed 5m ago",
         R"({"holderIdentity":"attune-7d9f_1b2c","renewTime":"2026-12-01T09:55:00.000000Z",)"
         R"("leaseDurationSeconds":15})",
         GoLeaseVerdict::Stale, "last held by attune-7d9f_1b2c, renewed 300s ago (lease 15s): expired"},
        {"released on shutdown", R"({"holderIdentity":"","leaseDurationSeconds":1})", GoLeaseVerdict::Free,
         "held by nobody (released)"},
        {"taken over before",
         R"({"holderIdentity":"kubectl-attune-migrate","renewTime":"2026-12-01T09:00:00Z",)"
         R"("leaseDurationSeconds":315360000})",
         GoLeaseVerdict::Ours, "held by kubectl-attune-migrate (an earlier migrate took it over)"},
    };
    for (const auto& c : cases) {
        const auto j = judge_go_lease(json::parse(std::string(R"({"spec":)") + c.spec + "}"), kNow);
        EXPECT_EQ(j.verdict, c.want) << c.name;
        EXPECT_EQ(j.message, c.message) << c.name;
    }
}

TEST(GoAdoption, TakeoverHoldsTheLeaseAndKeepsItsResourceVersion) {
    const auto lease = json::parse(R"({"metadata":{"name":"attune.attune.io","resourceVersion":"7"},)"
                                   R"("spec":{"holderIdentity":"attune-7d9f_1b2c","leaseDurationSeconds":15,)"
                                   R"("renewTime":"2026-12-01T09:55:00.000000Z","leaseTransitions":2}})");
    const auto got = go_lease_takeover(lease, "2026-12-01T10:00:00.000000Z");
    EXPECT_EQ(got, json::parse(R"({"metadata":{"name":"attune.attune.io","resourceVersion":"7"},)"
                               R"("spec":{"holderIdentity":"kubectl-attune-migrate","leaseDurationSeconds":315360000,)"
                               R"("renewTime":"2026-12-01T10:00:00.000000Z","leaseTransitions":3,)"
                               R"("acquireTime":"2026-12-01T10:00:00.000000Z"}})"))
        << json::serialize(got);
    // Taken over again: the same holder, no new transition.
    const auto again = go_lease_takeover(got, "2026-12-01T11:00:00.000000Z");
    EXPECT_EQ(again.at("spec").at("leaseTransitions"), 3);
    EXPECT_EQ(again.at("spec").at("acquireTime"), "2026-12-01T10:00:00.000000Z");
}

TEST(GoAdoption, FindsTheGoWebhooksByName) {
    const auto go =
        json::parse(R"({"webhooks":[{"name":"defaulting.attune.io"},{"name":"pod-initial-sizing.attune.io"}]})");
    const auto ours = json::parse(R"({"webhooks":[{"name":"pods.attune.io"},{"name":"policies.attune.io"}]})");
    EXPECT_EQ(go_webhooks_in(go), (std::vector<std::string>{"defaulting.attune.io", "pod-initial-sizing.attune.io"}));
    EXPECT_TRUE(go_webhooks_in(ours).empty());
    EXPECT_TRUE(go_webhooks_in(json::parse("{}")).empty());
}

}  // namespace
}  // namespace attune::core
