// kubectl attune explain's report: the chain step by step and why a
// workload was or was not resized, from fixture objects.
#include "explain_report.hpp"
#include "object_fields.hpp"
#include "status_fixture.hpp"

#include <gtest/gtest.h>

namespace attune::cli {
namespace {
namespace json = boost::json;

json::value deployment(bool opted_out = false) {
    json::object md{{"name", "web"}, {"namespace", "shop"}, {"uid", "d-uid"}, {"labels", json::object{{"tier", "web"}}}};
    if (opted_out) md["annotations"] = json::object{{"attune.io/skip", "true"}};
    return json::object{{"apiVersion", "apps/v1"},
                        {"kind", "Deployment"},
                        {"metadata", md},
                        {"spec", json::object{{"replicas", 2}, {"selector", json::object{{"matchLabels", json::object{{"app", "web"}}}}}}}};
}

json::value pod(std::string name, std::string app, bool deferred) {
    json::object status;
    if (deferred)
        status["conditions"] = json::array{json::object{{"type", "PodResizePending"}, {"status", "True"}, {"reason", "Deferred"}}};
    return json::object{
        {"metadata", json::object{{"name", name},
                                  {"namespace", "shop"},
                                  {"labels", json::object{{"app", app}}},
                                  {"annotations", json::object{{"attune.io/original-cpu-request.app", "500m"}, {"other", "x"}}}}},
        {"spec", json::object{{"nodeName", "sim-node-1"},
                              {"resources", json::object{{"requests", json::object{{"cpu", "1"}}}}},
                              {"containers", json::array{json::object{
                                                 {"name", "app"},
                                                 {"resources", json::object{{"requests", json::object{{"cpu", "250m"}, {"memory", "192Mi"}}},
                                                                            {"limits", json::object{{"memory", "512Mi"}}}}}}}}}},
        {"status", status}};
}

json::value event(std::string kind, std::string name, std::string type, std::string reason, std::string note, std::string when) {
    return json::object{{"regarding", json::object{{"kind", kind}, {"name", name}, {"namespace", "shop"}}},
                        {"type", type},
                        {"reason", reason},
                        {"note", note},
                        {"eventTime", when}};
}

ExplainInputs inputs(std::string mode = "Auto", bool opted_out = false) {
    ExplainInputs in;
    in.ns = "shop";
    in.kind = "Deployment";
    in.name = "web";
    in.workload = ObjectLookup::of(deployment(opted_out));
    in.policies = {test::web_policy(mode)};
    in.pods = {pod("web-abc", "web", true), pod("webhook-1", "webhook", false)};
    in.events = {
        event("AttunePolicy", "web", "Warning", "ResizeSkipped", "pod web-abc container app: node_capacity (sim-node-1 has 200m free)",
              "2026-12-01T10:01:00.000000Z"),
        event("AttunePolicy", "web", "Warning", "ResizeSkipped", "pod webhook-1: node_capacity", "2026-12-01T10:01:30.000000Z"),
        event("Pod", "web-abc", "Normal", "Scheduled", "assigned", "2026-12-01T08:00:00.000000Z"),
        event("AttunePolicy", "other", "Warning", "ResizeFailed", "web", "2026-12-01T10:00:00.000000Z"),
    };
    in.now = core::parse_timestamp("2026-12-01T10:05:00Z").value();
    return in;
}

bool has_reason(const json::object& r, std::string_view kind, std::string_view part) {
    for (const auto& x : r.at("reasons").as_array())
        if (x.at("kind").as_string() == kind && std::string_view(x.at("text").as_string()).find(part) != std::string_view::npos)
            return true;
    return false;
}

TEST(ExplainReport, TheChainStepByStep) {
    const auto r = explain_report(inputs());
    ASSERT_TRUE(r.at("policy").is_object());
    EXPECT_EQ(r.at("policy").at("name").as_string(), "web");
    EXPECT_EQ(r.at("policy").at("mode").as_string(), "Auto");
    const auto& c = r.at("recommendation").at("containers").at(0);
    EXPECT_EQ(c.at("name").as_string(), "app");
    EXPECT_EQ(c.at("current").at("cpuRequest").as_string(), "500m");
    EXPECT_EQ(c.at("recommended").at("cpuRequest").as_string(), "250m");
    const auto& steps = c.at("steps").at("cpu").as_array();
    ASSERT_EQ(steps.size(), 7u);
    EXPECT_EQ(steps[0].at("step").as_string(), "percentile of usage");  // no effective policy given
    EXPECT_EQ(steps[0].at("value").as_string(), "101m");
    EXPECT_EQ(steps[1].at("step").as_string(), "+20% overhead");
    EXPECT_EQ(steps[1].at("value").as_string(), "122m");
    EXPECT_EQ(steps[2].at("step").as_string(), "x1.05 burst factor");
    EXPECT_EQ(steps[3].at("step").as_string(), "x1.02 for confidence 93%");
    EXPECT_EQ(steps[4].at("step").as_string(), "bounds [1m, 4]");
    EXPECT_EQ(steps[5].at("value").as_string(), "250m");
    EXPECT_EQ(steps[5].at("note").as_string(), "step capped at the maximum change");
    EXPECT_EQ(steps[6].at("step").as_string(), "final");
    EXPECT_FALSE(c.at("steps").as_object().contains("memory"));  // no memory explanation in the fixture
}

TEST(ExplainReport, ThePercentileComesFromTheEffectivePolicy) {
    auto in = inputs();
    core::EffectivePolicy e;
    e.name = "web";
    e.cpu.percentile = 90;
    e.update_strategy.type = core::UpdateMode::Auto;
    in.effective.emplace("web", e);
    const auto r = explain_report(in);
    EXPECT_EQ(r.at("recommendation").at("containers").at(0).at("steps").at("cpu").at(0).at("step").as_string(), "p90 of usage");
}

// A policy whose merged settings do not validate sizes and resizes nothing;
// explain says so with the validation message.
TEST(ExplainReport, APolicyWithoutValidSettingsIsNamedWithTheMessage) {
    auto in = inputs();
    in.refused.emplace("web", "spec.containerPolicies \"app\": cpu.minAllowed 2 exceeds maxAllowed 1");
    const auto r = explain_report(in);
    EXPECT_EQ(r.at("policy").at("configError").as_string(),
              "spec.containerPolicies \"app\": cpu.minAllowed 2 exceeds maxAllowed 1");
    EXPECT_TRUE(has_reason(r, "config", "policy web has no valid settings, so it sizes and resizes nothing: "
                                        "spec.containerPolicies \"app\": cpu.minAllowed 2 exceeds maxAllowed 1"));
    EXPECT_NE(render_explain(r).find("cpu.minAllowed 2 exceeds maxAllowed 1"), std::string::npos);
    // No refusal: configError is null and no config reason.
    const auto ok = explain_report(inputs());
    EXPECT_TRUE(ok.at("policy").at("configError").is_null());
    EXPECT_FALSE(has_reason(ok, "config", ""));
}

TEST(ExplainReport, WhyItWasOrWasNotResized) {
    const auto r = explain_report(inputs());
    EXPECT_EQ(r.at("verdict").as_string(), "reverted");  // the last history entry for web
    EXPECT_TRUE(has_reason(r, "history", "Reverted (oomkill)"));
    EXPECT_TRUE(has_reason(r, "condition", "ResizeBlocked=True PodsDeferred"));
    EXPECT_TRUE(has_reason(r, "event", "ResizeSkipped: pod web-abc container app: node_capacity"));
    EXPECT_TRUE(has_reason(r, "pod", "pod web-abc: resize Pending/Deferred"));
    EXPECT_FALSE(has_reason(r, "mode", ""));
    // Only web's history, only its pods, only Events about it.
    EXPECT_EQ(r.at("history").as_array().size(), 2u);
    ASSERT_EQ(r.at("pods").as_array().size(), 1u);
    const auto& p = r.at("pods").at(0);
    EXPECT_EQ(p.at("name").as_string(), "web-abc");
    EXPECT_EQ(p.at("envelope").as_string(), "cpu 1");
    EXPECT_EQ(p.at("resources").at("app").as_string(), "cpu 250m, memory 192Mi/512Mi");
    EXPECT_EQ(p.at("annotations").as_object().size(), 1u);  // attune.io/* only
    const auto& evs = r.at("events").as_array();
    ASSERT_EQ(evs.size(), 2u);  // the policy's ResizeSkipped naming web-abc, and the pod's Scheduled
    EXPECT_EQ(evs[0].at("reason").as_string(), "Scheduled");  // oldest first
    EXPECT_EQ(evs[1].at("regarding").as_string(), "AttunePolicy/web");
}

// A resize a gate held (the schedule, the cooldown) is "held", not "failed",
// and the history reason names the gate.
TEST(ExplainReport, AGateHeldResizeIsHeldNotFailed) {
    auto in = inputs();
    auto& status = in.policies[0].as_object()["status"].as_object();
    status["resizeHistory"] = core::history_json(
        std::vector<core::HistoryEntry>{test::entry("2026-12-01T09:00:00Z", "web", core::HistoryResult::Success, ""),
                                        test::entry("2026-12-01T10:00:00Z", "web", core::HistoryResult::Held,
                                                    "outside_schedule")});
    const auto r = explain_report(in);
    EXPECT_EQ(r.at("verdict").as_string(), "held");
    EXPECT_TRUE(has_reason(r, "history", "Held (outside_schedule)"));
    status["resizeHistory"] = core::history_json(std::vector<core::HistoryEntry>{
        test::entry("2026-12-01T10:00:00Z", "web", core::HistoryResult::Failed, "kubelet-error")});
    EXPECT_EQ(explain_report(in).at("verdict").as_string(), "failed");
}

// ResizeBlocked is the policy's condition: the manager sets it for a Deferred
// pod of any workload it manages, so it explains this one only when the
// kubelet holds one of its own pods (either mechanism).
TEST(ExplainReport, ResizeBlockedOnlyWhenItsOwnPodIsHeld) {
    auto in = inputs();
    in.pods = {pod("web-abc", "web", false), pod("api-1", "api", true)};
    EXPECT_FALSE(has_reason(explain_report(in), "condition", "ResizeBlocked"));

    json::value field = pod("web-abc", "web", false);
    field.as_object()["status"].as_object()["resize"] = "Infeasible";  // 1.32
    in.pods = {field};
    const auto r = explain_report(in);
    EXPECT_TRUE(has_reason(r, "condition", "ResizeBlocked=True PodsDeferred"));
    EXPECT_EQ(r.at("pods").at(0).at("resizeState").as_string(), "Infeasible");

    in.pods = {};  // pods not listed: it cannot be told apart, so it is kept
    EXPECT_TRUE(has_reason(explain_report(in), "condition", "ResizeBlocked=True PodsDeferred"));
}

TEST(ExplainReport, ModeOptOutAndNoPolicy) {
    const auto recommend = explain_report(inputs("Recommend"));
    EXPECT_TRUE(has_reason(recommend, "mode", "mode Recommend: the policy only recommends"));

    auto opted = inputs("Auto", true);
    const auto o = explain_report(opted);
    EXPECT_TRUE(has_reason(o, "optout", "opted out: annotated attune.io/skip=true (targeted by web)"));
    EXPECT_TRUE(o.at("policy").is_null());
    EXPECT_EQ(o.at("verdict").as_string(), "not resized");

    auto none = inputs();
    none.policies.clear();
    const auto n = explain_report(none);
    EXPECT_EQ(n.at("verdict").as_string(), "not managed");
    EXPECT_TRUE(has_reason(n, "selection", "no AttunePolicy in shop targets Deployment/web"));
    EXPECT_TRUE(n.at("recommendation").is_null());
}

TEST(ExplainReport, AnOutrankedPolicyIsNamed) {
    auto in = inputs();
    auto loser = test::web_policy("Auto", false);
    loser.as_object()["metadata"].as_object()["name"] = "zzz";
    loser.as_object()["spec"].as_object()["weight"] = 10;
    in.policies.push_back(loser);
    const auto r = explain_report(in);
    EXPECT_EQ(r.at("policy").at("name").as_string(), "web");
    EXPECT_EQ(r.at("otherPolicies"), (json::array{"zzz"}));
    EXPECT_TRUE(has_reason(r, "selection", "also targeted by policy zzz, outranked by web"));
}

TEST(ExplainReport, RendersForPeople) {
    const auto text = render_explain(explain_report(inputs()));
    for (const char* part :
         {"Deployment shop/web   policy web (Auto, Monitoring)", "container app   confidence 93%, 120 data points",
          "cpu request     500m -> 250m", "1. percentile of usage", "6. change filter (min 10%, max 50%)",
          "Resize: reverted", "History:", "Events:", "Pods:", "web-abc  resize Pending/Deferred",
          "attune.io/original-cpu-request.app=500m"})
        EXPECT_NE(text.find(part), std::string::npos) << part << "\n" << text;
}

// The text is for people (millicores, Mi, a percentage); the JSON report
// keeps the values exactly as status holds them.
TEST(ExplainReport, TextShowsReadableNumbersJsonKeepsExactOnes) {
    auto in = inputs();
    auto& c = in.policies[0]
                  .as_object()["status"]
                  .as_object()["recommendations"]
                  .as_array()[0]
                  .as_object()["containers"]
                  .as_array()[0]
                  .as_object();
    c["recommended"].as_object()["memoryRequest"] = "245354614";
    c["current"].as_object()["cpuRequest"] = "0.5";
    c["confidence"] = 4.1335978835978834e-05;
    const auto r = explain_report(in);
    const auto& rc = r.at("recommendation").at("containers").as_array()[0];
    EXPECT_EQ(rc.at("recommended").at("memoryRequest").as_string(), "245354614");
    EXPECT_EQ(rc.at("current").at("cpuRequest").as_string(), "0.5");
    const auto text = render_explain(r);
    for (const char* part : {"memory request  256Mi -> 234Mi", "cpu request     500m -> 250m", "confidence 0.0041%,"})
        EXPECT_NE(text.find(part), std::string::npos) << part << "\n" << text;
    EXPECT_EQ(text.find("245354614"), std::string::npos) << text;
}

// The history's and the pods' "request/limit" texts too: the JSON keeps
// them as status and the pod spec hold them.
TEST(ExplainReport, TextShowsHistoryAndPodsReadable) {
    auto in = inputs();
    auto& st = in.policies[0].as_object()["status"].as_object();
    core::HistoryEntry e = test::entry("2026-12-01T11:00:00Z", "web", core::HistoryResult::Success, "");
    e.resource = core::HistoryResource::CpuAndMemory;
    e.from = "cpu 1, memory 268435456/512Mi";
    e.to = "cpu 250m, memory 245354614/512Mi";
    core::HistoryEntry back = e;
    std::swap(back.from, back.to);
    back.result = core::HistoryResult::Reverted;
    back.reason = "restart";
    st["resizeHistory"] = core::history_json(std::vector{e, back});
    in.pods[0].at_pointer("/spec/containers/0/resources").as_object()["limits"] =
        json::object{{"cpu", "1.5"}, {"memory", "1610612736"}};
    const auto r = explain_report(in);
    EXPECT_EQ(r.at("history").at(0).at("to").as_string(), "cpu 250m, memory 245354614/512Mi");
    EXPECT_EQ(r.at("pods").at(0).at("resources").at("app").as_string(), "cpu 250m/1.5, memory 192Mi/1610612736");
    const auto text = render_explain(r);
    for (const char* part :
         {"app  cpu+memory  cpu 1000m, memory 256Mi/512Mi -> cpu 250m, memory 234Mi/512Mi  InPlace Success",
          "app: cpu 250m/1500m, memory 192Mi/1.5Gi"})
        EXPECT_NE(text.find(part), std::string::npos) << part << "\n" << text;
    EXPECT_TRUE(
        has_reason(r, "history",
                   "app cpu+memory cpu 250m, memory 234Mi/512Mi -> cpu 1000m, memory 256Mi/512Mi: Reverted (restart)"));
}

TEST(CanonicalKind, KubectlSpellings) {
    EXPECT_EQ(canonical_kind("deploy"), "Deployment");
    EXPECT_EQ(canonical_kind("deployments"), "Deployment");
    EXPECT_EQ(canonical_kind("StatefulSet"), "StatefulSet");
    EXPECT_EQ(canonical_kind("sts"), "StatefulSet");
    EXPECT_EQ(canonical_kind("cronjobs"), "CronJob");
    EXPECT_EQ(canonical_kind("pod"), "");
}

}  // namespace
}  // namespace attune::cli
