#include "attune/core/followups/template_persistence.hpp"
#include "attune/core/recommend/workload_baseline.hpp"

#include <gtest/gtest.h>

#include <boost/json.hpp>

#include "test_pods.hpp"

namespace attune::core {
namespace {

using namespace std::chrono;
using testing::rl;

boost::json::value deployment(const char* template_spec, const char* status = nullptr) {
    return boost::json::parse(std::string(R"({"metadata":{"generation":4},"spec":{"replicas":3,"template":{"spec":)") +
                              template_spec + "}},\"status\":" +
                              (status ? status : R"({"observedGeneration":4,"replicas":3,"updatedReplicas":3,"readyReplicas":3,"availableReplicas":3})") +
                              "}");
}

constexpr const char* kNoEnvelope = R"({"containers":[{"name":"app","resources":{"requests":{"cpu":"1","memory":"1Gi"},"limits":{"memory":"2Gi"}}}]})";
constexpr const char* kEnvelope = R"({"resources":{"requests":{"cpu":"1","memory":"1Gi"},"limits":{"cpu":"2","memory":"2Gi"}},
  "containers":[{"name":"app","resources":{"requests":{"cpu":"1","memory":"1Gi"}}}]})";

TemplatePersistInputs inputs(const char* cpu, const char* memory) {
    TemplatePersistInputs in;
    in.enabled = true;
    in.kind = "Deployment";
    in.live_pods_listed = true;
    in.resources["app"] = {rl({{"cpu", cpu}, {"memory", memory}}), {}};
    return in;
}

Pod tmpl(const boost::json::value& d) { return decode_pod_template("Deployment", d).value(); }
RolloutStatus rollout(const boost::json::value& d) { return decode_rollout_status("Deployment", d).value(); }

std::string decision(const TemplateDecision& d) {
    if (const auto* s = std::get_if<TemplateSkip>(&d)) return "skip:" + s->reason;
    return boost::json::serialize(std::get<TemplatePatch>(d).body);
}

TEST(TemplatePersistence, PatchesTheTemplateContainers) {
    const auto d = deployment(kNoEnvelope);
    EXPECT_EQ(decision(plan_template_patch(tmpl(d), rollout(d), inputs("500m", "768Mi"))),
              R"({"spec":{"template":{"spec":{"containers":[{"name":"app","resources":{"requests":{"cpu":"500m","memory":"768Mi"},"limits":{"memory":"2Gi"}}}]}}}})");
}

// Raise the template envelope from the post-overlay spec; never
// invent one when the template has none.
TEST(TemplatePersistence, RaisesTheTemplatesOwnEnvelopeAndNeverInventsOne) {
    const auto with = deployment(kEnvelope);
    const auto plan = plan_template_patch(tmpl(with), rollout(with), inputs("1500m", "1Gi"));
    ASSERT_TRUE(std::holds_alternative<TemplatePatch>(plan)) << decision(plan);
    const auto& p = std::get<TemplatePatch>(plan);
    ASSERT_TRUE(p.envelope.has_value());
    EXPECT_EQ(p.envelope->requests.at("cpu"), testing::qty("1500m"));
    EXPECT_EQ(p.envelope->limits.at("cpu"), testing::qty("2"));
    EXPECT_TRUE(p.body.at("spec").at("template").at("spec").as_object().contains("resources"));
    const auto without = deployment(kNoEnvelope);
    const auto none = plan_template_patch(tmpl(without), rollout(without), inputs("3", "1Gi"));
    EXPECT_FALSE(std::get<TemplatePatch>(none).envelope.has_value());
    EXPECT_FALSE(std::get<TemplatePatch>(none).body.at("spec").at("template").at("spec").as_object().contains("resources"));
}

TEST(TemplatePersistence, SkipTable) {
    const auto d = deployment(kNoEnvelope);
    struct Case {
        const char* what;
        std::function<void(TemplatePersistInputs&)> change;
        const char* status;
        const char* want;
    } cases[] = {
        {"disabled", [](auto& in) { in.enabled = false; }, nullptr, "skip:disabled"},
        {"AfterSuccessfulResize ignores a recommendation", [](auto& in) { in.trigger = PersistTrigger::Recommendation; },
         nullptr, "skip:not_triggered"},
        {"OnRecommendation ignores an applied resize", [](auto& in) { in.when = PersistWhen::OnRecommendation; }, nullptr,
         "skip:not_triggered"},
        {"DaemonSet templates are not persisted", [](auto& in) { in.kind = "DaemonSet"; }, nullptr, "skip:unsupported_kind"},
        {"live pods could not be listed", [](auto& in) { in.live_pods_listed = false; }, nullptr, "skip:live_pods_unknown"},
        {"a rollout that has not been observed", [](auto&) {},
         R"({"observedGeneration":3,"replicas":3,"updatedReplicas":3,"availableReplicas":3})", "skip:rollout_in_progress"},
        {"old replicas still running", [](auto&) {},
         R"({"observedGeneration":4,"replicas":4,"updatedReplicas":3,"availableReplicas":3})", "skip:rollout_in_progress"},
        {"updated replicas not yet available", [](auto&) {},
         R"({"observedGeneration":4,"replicas":3,"updatedReplicas":3,"availableReplicas":2})", "skip:rollout_in_progress"},
        {"already persisted: patched once", [](auto& in) { in.resources["app"] = {rl({{"cpu", "1"}, {"memory", "1Gi"}}), {}}; },
         nullptr, "skip:unchanged"},
        {"unknown container", [](auto& in) { in.resources["ghost"] = {rl({{"cpu", "1"}}), {}}; }, nullptr,
         "skip:container_not_found"},
    };
    for (const auto& c : cases) {
        TemplatePersistInputs in = inputs("500m", "768Mi");
        c.change(in);
        const auto w = deployment(kNoEnvelope, c.status);
        EXPECT_EQ(decision(plan_template_patch(tmpl(w), rollout(w), in)).substr(0, std::string(c.want).size()), c.want)
            << c.what;
    }
}

// template_patch is plan_template_patch past its gates: the same body
// whatever the rollout, the trigger or the kind, and the same two skips.
TEST(TemplatePersistence, TemplatePatchIsThePlanWithoutTheGates) {
    const auto settled = deployment(kNoEnvelope);
    const auto rolling =
        deployment(kNoEnvelope, R"({"observedGeneration":3,"replicas":4,"updatedReplicas":1,"availableReplicas":1})");
    TemplatePersistInputs gated = inputs("500m", "768Mi");
    gated.enabled = false;
    gated.kind = "DaemonSet";
    gated.live_pods_listed = false;
    EXPECT_EQ(decision(template_patch(tmpl(rolling), gated)),
              decision(plan_template_patch(tmpl(settled), rollout(settled), inputs("500m", "768Mi"))));
    EXPECT_EQ(decision(template_patch(tmpl(rolling), inputs("1", "1Gi"))), "skip:unchanged");
    TemplatePersistInputs ghost = inputs("500m", "768Mi");
    ghost.resources["ghost"] = {rl({{"cpu", "1"}}), {}};
    EXPECT_EQ(decision(template_patch(tmpl(rolling), ghost)), "skip:container_not_found");
}

TEST(TemplatePersistence, WhichModesPersistForWhichTrigger) {
    using M = UpdateMode;
    const auto after = PersistWhen::AfterSuccessfulResize, on = PersistWhen::OnRecommendation;
    struct Case {
        UpdateMode mode;
        PersistWhen when;
        bool persists;
    } cases[] = {
        {M::Observe, after, false},   {M::Observe, on, false},  // Observe changes nothing
        {M::Recommend, after, false},                           // nothing is resized, so nothing is applied
        {M::Recommend, on, true},                               // the template takes the recommendation
        {M::OneShot, after, true},    {M::OneShot, on, true},  {M::Auto, after, true}, {M::Auto, on, true},
        {M::Canary, after, false},    {M::Canary, on, false},  // the lifecycle persists instead
    };
    for (const auto& c : cases)
        EXPECT_EQ(mode_persists_templates(c.mode, c.when), c.persists) << to_string(c.mode) << " " << to_string(c.when);
}

TEST(TemplatePersistence, StatefulSetRolloutSignals) {
    const auto sts = boost::json::parse(R"({"metadata":{"generation":2},"spec":{"replicas":2},"status":{"observedGeneration":2,
      "replicas":2,"updatedReplicas":2,"readyReplicas":2,"currentRevision":"web-1","updateRevision":"web-2"}})");
    auto s = decode_rollout_status("StatefulSet", sts).value();
    EXPECT_NE(rollout_in_progress(s), std::nullopt);
    s.current_revision = "web-2";
    EXPECT_EQ(rollout_in_progress(s), std::nullopt);
    s.ready_replicas = 1;
    EXPECT_NE(rollout_in_progress(s), std::nullopt);
}

TEST(TemplatePersistence, RevisionAnnotationsAndHistory) {
    const auto d = deployment(kNoEnvelope);
    TemplatePersistInputs in = inputs("500m", "768Mi");
    in.revision = "3f2a9c1e7b4d";
    in.policy = "web-policy";
    const auto plan = plan_template_patch(tmpl(d), rollout(d), in);
    const auto& p = std::get<TemplatePatch>(plan);
    EXPECT_EQ(p.body.at("metadata").at("annotations").at("attune.io/persisted-revision").as_string(), "3f2a9c1e7b4d");
    EXPECT_EQ(p.body.at("spec").at("template").at("metadata").at("annotations").at("attune.io/revision").as_string(),
              "3f2a9c1e7b4d");
    const auto e = template_history_entry(p, tmpl(d), "web", PersistWhen::AfterSuccessfulResize, sys_days(2026y / December / 1));
    EXPECT_EQ(boost::json::serialize(history_entry_json(e)),
              R"({"timestamp":"2026-12-01T00:00:00Z","workload":"web","container":"app","from":"app: cpu 1, memory 1Gi/2Gi",)"
              R"("to":"app: cpu 500m, memory 768Mi/2Gi","resource":"template","method":"TemplatePersistence",)"
              R"("result":"TemplatePatched","reason":"AfterSuccessfulResize"})");
}

}  // namespace
}  // namespace attune::core
