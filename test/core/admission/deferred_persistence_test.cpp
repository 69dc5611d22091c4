#include "attune/core/admission/deferred_persistence.hpp"

#include <gtest/gtest.h>

#include <boost/json.hpp>

#include "attune/core/util/json_patch.hpp"
#include "test_pods.hpp"

namespace attune::core {
namespace {
namespace json = boost::json;
using testing::qty;
using testing::rl;

json::value deployment(const std::string& containers, const std::string& env = "", const std::string& extra_spec = "",
                       const std::string& annotations = "{}") {
    return json::parse(R"({"apiVersion":"apps/v1","kind":"Deployment",
      "metadata":{"name":"web","namespace":"shop","labels":{"app":"web"},"annotations":)" + annotations + R"(},
      "spec":{"replicas":3,"template":{"metadata":{"labels":{"app":"web"}},
        "spec":{"containers":)" + containers + env + extra_spec + "}}}}");
}

constexpr const char* kContainers =
    R"([{"name":"app","image":"web:1","resources":{"requests":{"cpu":"1","memory":"512Mi"},"limits":{"memory":"1Gi"}}},
        {"name":"log","image":"log:1","resources":{"requests":{"cpu":"100m"}}}])";

PersistenceCandidate candidate() {
    PersistenceCandidate c;
    c.policy = "web";
    c.validated_revision = "rev-3f2a9c1e7b4d0000";
    c.containers["app"] = {rl({{"cpu", "200m"}, {"memory", "192Mi"}}), rl({{"memory", "384Mi"}})};
    return c;
}

struct Result {
    TemplatePersistence decision;
    json::value after;
};

Result run(const json::value& obj, const json::value& old, const PersistenceCandidate* cand, bool field = true) {
    TemplateUpdateInput in;
    in.object = &obj;
    in.old_object = &old;
    in.candidate = cand;
    in.pod_level_resources_field = field;
    Result r{persist_on_template_change(in), obj};
    auto applied = apply_json_patch(obj, r.decision.patch);
    EXPECT_TRUE(applied.ok()) << (applied.ok() ? "" : applied.error().message);
    if (applied.ok()) r.after = applied.value();
    return r;
}

const json::value& at(const json::value& v, std::initializer_list<std::string_view> path) {
    const json::value* cur = &v;
    for (auto p : path) {
        if (cur->is_array()) cur = &cur->as_array().at(std::stoul(std::string(p)));
        else cur = &cur->as_object().at(p);
    }
    return *cur;
}

TEST(PersistOnTemplateChange, ATemplateChangingUpdateGetsTheValidatedResourcesAndAnnotations) {
    const auto old = deployment(kContainers);
    const auto obj = deployment(kContainers, R"(,"hostname":"x")");  // e.g. kubectl set env: any template change
    const auto cand = candidate();
    auto r = run(obj, old, &cand);
    ASSERT_TRUE(r.decision.injected()) << r.decision.skip_reason;
    EXPECT_EQ(r.decision.injected_containers, std::vector<std::string>{"app"});
    const auto& app = at(r.after, {"spec", "template", "spec", "containers", "0", "resources"});
    EXPECT_EQ(app.at("requests").at("cpu"), "200m");
    EXPECT_EQ(app.at("requests").at("memory"), "192Mi");
    EXPECT_EQ(app.at("limits").at("memory"), "384Mi");
    EXPECT_EQ(at(r.after, {"spec", "template", "spec", "containers", "1", "resources", "requests", "cpu"}), "100m");
    EXPECT_EQ(at(r.after, {"spec", "template", "spec", "containers", "0", "image"}), "web:1");
    EXPECT_EQ(at(r.after, {"metadata", "annotations", "attune.io/persisted-revision"}), "rev-3f2a9c1e7b4d0000");
    EXPECT_EQ(at(r.after, {"metadata", "annotations", "attune.io/persisted-policy"}), "web");
    EXPECT_EQ(at(r.after, {"spec", "template", "metadata", "annotations", "attune.io/revision"}), "rev-3f2a9c1e7b4d0000");
}

TEST(PersistOnTemplateChange, AnUpdateThatLeavesTheTemplateAloneIsUntouched) {
    const auto old = deployment(kContainers);
    auto obj = deployment(kContainers);
    obj.as_object()["metadata"].as_object()["labels"].as_object()["team"] = "a";  // kubectl label
    obj.as_object()["spec"].as_object()["replicas"] = 5;
    const auto cand = candidate();
    auto r = run(obj, old, &cand);
    EXPECT_EQ(r.decision.skip_reason, "template_unchanged");
    EXPECT_TRUE(r.decision.patch.empty());
}

TEST(PersistOnTemplateChange, NothingAwaitingPersistenceMeansNoPatch) {
    const auto old = deployment(kContainers);
    const auto obj = deployment(kContainers, R"(,"hostname":"x")");
    auto r = run(obj, old, nullptr);
    EXPECT_EQ(r.decision.skip_reason, "no_candidate");
    EXPECT_TRUE(r.decision.patch.empty());
}

TEST(PersistOnTemplateChange, AnAlreadyPersistedRevisionIsNotWrittenAgain) {
    const auto old = deployment(kContainers);
    const auto obj = deployment(kContainers, R"(,"hostname":"x")", "",
                                R"({"attune.io/persisted-revision":"rev-3f2a9c1e7b4d0000"})");
    const auto cand = candidate();
    EXPECT_EQ(run(obj, old, &cand).decision.skip_reason, "already_persisted");
}

TEST(PersistOnTemplateChange, ReinvocationAfterInjectionChangesNothing) {
    const auto old = deployment(kContainers);
    const auto obj = deployment(kContainers, R"(,"hostname":"x")");
    const auto cand = candidate();
    auto first = run(obj, old, &cand);
    auto again = run(first.after, old, &cand);
    EXPECT_EQ(again.decision.skip_reason, "already_persisted");
    EXPECT_TRUE(again.decision.patch.empty());
}

TEST(PersistOnTemplateChange, ResourcesThisUpdateSetsWinOverTheCandidate) {
    const auto old = deployment(kContainers);
    const auto obj = deployment(
        R"([{"name":"app","image":"web:1","resources":{"requests":{"cpu":"2","memory":"512Mi"},"limits":{"memory":"1Gi"}}},
            {"name":"log","image":"log:1","resources":{"requests":{"cpu":"100m"}}}])");
    const auto cand = candidate();
    auto r = run(obj, old, &cand);
    EXPECT_EQ(r.decision.skip_reason, "no_matching_container");
    EXPECT_TRUE(r.decision.patch.empty());
    ASSERT_EQ(r.decision.warnings.size(), 1u);
    EXPECT_NE(r.decision.warnings[0].find("container app keeps the resources this update sets"), std::string::npos);
}

TEST(PersistOnTemplateChange, ARemovedContainerIsSkippedTheOthersInjected) {
    const auto old = deployment(kContainers);
    const auto obj = deployment(R"([{"name":"log","image":"log:2","resources":{"requests":{"cpu":"100m"}}}])");
    auto cand = candidate();
    cand.containers["log"] = {rl({{"cpu", "50m"}}), {}};
    auto r = run(obj, old, &cand);
    ASSERT_TRUE(r.decision.injected());
    EXPECT_EQ(r.decision.injected_containers, std::vector<std::string>{"log"});  // "app" was removed
    EXPECT_EQ(at(r.after, {"spec", "template", "spec", "containers", "0", "resources", "requests", "cpu"}), "50m");
}

TEST(PersistOnTemplateChange, ATemplateEnvelopeIsRaisedNeverInvented) {
    const auto cand = candidate();
    {
        const auto old = deployment(kContainers, "", R"(,"resources":{"requests":{"cpu":"1100m"}})");
        const auto obj = deployment(kContainers, R"(,"hostname":"x")", R"(,"resources":{"requests":{"cpu":"1100m"}})");
        auto big = cand;
        big.containers["app"].requests["cpu"] = qty("1500m");
        auto r = run(obj, old, &big);
        ASSERT_TRUE(r.decision.injected());
        EXPECT_TRUE(r.decision.envelope_raised);
        EXPECT_EQ(at(r.after, {"spec", "template", "spec", "resources", "requests", "cpu"}), "1600m");
    }
    {
        const auto old = deployment(kContainers);
        const auto obj = deployment(kContainers, R"(,"hostname":"x")");
        auto r = run(obj, old, &cand);
        EXPECT_FALSE(at(r.after, {"spec", "template", "spec"}).as_object().contains("resources"));
    }
}

TEST(PersistOnTemplateChange, StatefulSetsAndSidecarsToo) {
    auto old = deployment(kContainers, R"(,"initContainers":[{"name":"proxy","restartPolicy":"Always","resources":{"requests":{"cpu":"300m"}}},{"name":"init","resources":{"requests":{"cpu":"1"}}}])");
    old.as_object()["kind"] = "StatefulSet";
    auto obj = old;
    obj.as_object()["spec"].as_object()["template"].as_object()["spec"].as_object()["hostname"] = "y";
    PersistenceCandidate cand = candidate();
    cand.containers = {{"proxy", {rl({{"cpu", "100m"}}), {}}}, {"init", {rl({{"cpu", "10m"}}), {}}}};
    auto r = run(obj, old, &cand);
    ASSERT_TRUE(r.decision.injected());
    EXPECT_EQ(r.decision.injected_containers, std::vector<std::string>{"proxy"});
    EXPECT_EQ(at(r.after, {"spec", "template", "spec", "initContainers", "0", "resources", "requests", "cpu"}), "100m");
    EXPECT_EQ(at(r.after, {"spec", "template", "spec", "initContainers", "1", "resources", "requests", "cpu"}), "1");
}

TEST(PersistenceCandidate, OnlyAValidatedEntryAwaitingPersistenceHasOne) {
    LifecycleStatusEntry e;
    e.workload = "web";
    e.kind = "Deployment";
    e.validated_revision = "rev-1";
    e.candidate["app"] = {rl({{"cpu", "200m"}}), {}};
    for (auto phase : {LifecyclePhase::ValidationRunning, LifecyclePhase::PausedAtStep,
                       LifecyclePhase::ValidatedWithoutPersistence, LifecyclePhase::Persisted, LifecyclePhase::Failed}) {
        e.phase = phase;
        EXPECT_FALSE(persistence_candidate(e, "web")) << lifecycle_phase_name(phase);
    }
    e.phase = LifecyclePhase::ValidatedAwaitingPersistence;
    const auto c = persistence_candidate(e, "web");
    ASSERT_TRUE(c);
    EXPECT_EQ(c->policy, "web");
    EXPECT_EQ(c->validated_revision, "rev-1");
    EXPECT_EQ(c->containers.at("app").requests.at("cpu"), qty("200m"));
    e.validated_revision.clear();
    EXPECT_FALSE(persistence_candidate(e, "web"));
}

}  // namespace
}  // namespace attune::core
