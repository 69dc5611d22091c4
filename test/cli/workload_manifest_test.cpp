#include "workload_manifest.hpp"

#include <gtest/gtest.h>

#include <boost/json.hpp>

#include <functional>

namespace attune::cli {
namespace {
namespace json = boost::json;

// A Deployment as the apiserver serves it: server fields, a template of one
// container (requests cpu 500m / memory 256Mi, limits cpu "1" / memory
// 512Mi) and a sidecar-free spec.
json::value deployment(
    const char* resources = R"({"requests":{"cpu":"500m","memory":"256Mi"},"limits":{"cpu":"1","memory":"512Mi"}})",
    const char* pod_level = nullptr) {
    std::string spec = std::string(R"({"containers":[{"name":"app","image":"pause","resources":)") + resources + "}]";
    if (pod_level) spec += std::string(R"(,"resources":)") + pod_level;
    spec += "}";
    return json::parse(std::string(R"({"apiVersion":"apps/v1","kind":"Deployment",
      "metadata":{"name":"web","namespace":"shop","uid":"u1","resourceVersion":"42","generation":3,
        "creationTimestamp":"2026-12-01T13:00:00Z","managedFields":[{"manager":"kubectl"}],
        "labels":{"tier":"web"},
        "annotations":{"deployment.kubernetes.io/revision":"1","kubectl.kubernetes.io/last-applied-configuration":"{}"}},
      "spec":{"replicas":2,"selector":{"matchLabels":{"app":"web"}},
        "template":{"metadata":{"labels":{"app":"web"}},"spec":)") +
                       spec + "}},\"status\":{\"replicas\":2}}");
}

// status.recommendations[0] for web, container app.
core::StatusRecommendation rec(const char* recommended, const char* container = "app",
                               const char* kind = "Deployment") {
    const auto status = json::parse(std::string(R"({"recommendations":[{"workload":"web","kind":")") + kind +
                                    R"(","stale":false,"containers":[{"name":")" + container +
                                    R"(","confidence":1,"dataPoints":10,"lastUpdated":"2026-12-01T13:00:00Z",
        "current":{"cpuRequest":"500m","cpuLimit":"1","memoryRequest":"256Mi","memoryLimit":"512Mi"},"recommended":)" +
                                    recommended + "}]}]}");
    return core::decode_status_recommendations(status).value().at(0);
}

core::EffectivePolicy policy(core::ControlledValues cpu, core::ControlledValues memory) {
    core::EffectivePolicy p;
    p.cpu.controlled_values = cpu;
    p.memory.controlled_values = memory;
    return p;
}

constexpr auto kReqOnly = core::ControlledValues::RequestsOnly;
constexpr auto kReqLim = core::ControlledValues::RequestsAndLimits;

const json::value& app_resources(const json::value& manifest,
                                 std::vector<std::string_view> path = {"spec", "template"}) {
    const json::value* v = &manifest;
    for (auto k : path) v = &v->at(k);
    return v->at("spec").at("containers").at(0).at("resources");
}

TEST(WorkloadManifest, CleanManifestDropsServerFields) {
    const auto clean = clean_manifest(deployment());
    EXPECT_FALSE(clean.as_object().contains("status"));
    const auto& md = clean.at("metadata").as_object();
    for (auto k : {"uid", "resourceVersion", "generation", "creationTimestamp", "managedFields", "annotations"})
        EXPECT_FALSE(md.contains(k)) << k;
    EXPECT_EQ(md.at("name"), "web");
    EXPECT_EQ(md.at("namespace"), "shop");
    EXPECT_EQ(md.at("labels").at("tier"), "web");
    EXPECT_EQ(clean.at("spec").at("replicas"), 2);
    // Other annotations stay.
    auto d = deployment();
    d.at("metadata").at("annotations").as_object()["team"] = "a";
    EXPECT_EQ(clean_manifest(d).at("metadata").at("annotations"), json::parse(R"({"team":"a"})"));
}

// The executor's rule, table by table: what each recommendation writes on
// the template, and which spellings stay.
TEST(WorkloadManifest, RewriteTable) {
    struct Case {
        const char* what;
        const char* recommended;
        core::EffectivePolicy settings;
        const char* template_resources;
        const char* want;  // the container's resources after; nullptr: unchanged
    } cases[] = {
        {"requests only: the recommended limits are not written under RequestsOnly",
         R"({"cpuRequest":"250m","cpuLimit":"500m","memoryRequest":"128Mi","memoryLimit":"256Mi"})",
         policy(kReqOnly, kReqOnly), nullptr,
         R"({"requests":{"cpu":"250m","memory":"128Mi"},"limits":{"cpu":"1","memory":"512Mi"}})"},
        {"RequestsAndLimits on memory: its limit too, the cpu limit keeps its spelling",
         R"({"cpuRequest":"250m","cpuLimit":"500m","memoryRequest":"128Mi","memoryLimit":"256Mi"})",
         policy(kReqOnly, kReqLim), nullptr,
         R"({"requests":{"cpu":"250m","memory":"128Mi"},"limits":{"cpu":"1","memory":"256Mi"}})"},
        {"RequestsAndLimits on both",
         R"({"cpuRequest":"750m","cpuLimit":"1500m","memoryRequest":"384Mi","memoryLimit":"768Mi"})",
         policy(kReqLim, kReqLim), nullptr,
         R"({"requests":{"cpu":"750m","memory":"384Mi"},"limits":{"cpu":"1500m","memory":"768Mi"}})"},
        {"a request above the limit under RequestsOnly is held at the limit",
         R"({"cpuRequest":"2","cpuLimit":"0","memoryRequest":"256Mi","memoryLimit":"0"})", policy(kReqOnly, kReqOnly),
         nullptr, R"({"requests":{"cpu":"1","memory":"256Mi"},"limits":{"cpu":"1","memory":"512Mi"}})"},
        {"a zero limit means none: nothing is invented",
         R"({"cpuRequest":"250m","cpuLimit":"0","memoryRequest":"256Mi","memoryLimit":"0"})", policy(kReqLim, kReqLim),
         R"({"requests":{"cpu":"500m","memory":"256Mi"}})", R"({"requests":{"cpu":"250m","memory":"256Mi"}})"},
        {"a template without requests gets them",
         R"({"cpuRequest":"250m","cpuLimit":"0","memoryRequest":"64Mi","memoryLimit":"0"})", policy(kReqOnly, kReqOnly),
         R"({})", R"({"requests":{"cpu":"250m","memory":"64Mi"}})"},
        {"equal values spelled otherwise: unchanged",
         R"({"cpuRequest":"0.5","cpuLimit":"1000m","memoryRequest":"268435456","memoryLimit":"512Mi"})",
         policy(kReqLim, kReqLim), nullptr, nullptr},
        {"the recommendation equals the template: unchanged",
         R"({"cpuRequest":"500m","cpuLimit":"1","memoryRequest":"256Mi","memoryLimit":"512Mi"})",
         policy(kReqOnly, kReqOnly), nullptr, nullptr},
        {"only cpu differs: the memory spelling stays",
         R"({"cpuRequest":"300m","cpuLimit":"1","memoryRequest":"256Mi","memoryLimit":"512Mi"})",
         policy(kReqOnly, kReqOnly), R"({"requests":{"cpu":"500m","memory":"0.25Gi"}})",
         R"({"requests":{"cpu":"300m","memory":"0.25Gi"}})"},
    };
    for (const auto& c : cases) {
        const auto d = c.template_resources ? deployment(c.template_resources) : deployment();
        auto m = recommended_manifest(d, rec(c.recommended), c.settings);
        ASSERT_TRUE(m) << c.what << ": " << m.error().message;
        EXPECT_EQ(m.value().live, clean_manifest(d)) << c.what;
        if (!c.want) {
            EXPECT_FALSE(m.value().changed()) << c.what;
            EXPECT_EQ(m.value().recommended, m.value().live) << c.what;
            continue;
        }
        EXPECT_EQ(m.value().changed_containers, std::vector<std::string>{"app"}) << c.what;
        EXPECT_EQ(app_resources(m.value().recommended), json::parse(c.want)) << c.what;
        // Nothing but the resources moved.
        auto back = m.value().recommended;
        back.at("spec").at("template").at("spec").at("containers").at(0).as_object()["resources"] =
            app_resources(m.value().live);
        EXPECT_EQ(back, m.value().live) << c.what;
    }
}

TEST(WorkloadManifest, RaisesThePodLevelEnvelope) {
    const auto d = deployment(R"({"requests":{"cpu":"500m","memory":"256Mi"}})",
                              R"({"requests":{"cpu":"500m","memory":"256Mi"},"limits":{"cpu":"2","memory":"1Gi"}})");
    auto m =
        recommended_manifest(d,
                             rec(R"({"cpuRequest":"750m","cpuLimit":"0","memoryRequest":"256Mi","memoryLimit":"0"})"),
                             policy(kReqOnly, kReqOnly));
    ASSERT_TRUE(m) << m.error().message;
    EXPECT_TRUE(m.value().envelope_changed);
    EXPECT_EQ(m.value().recommended.at("spec").at("template").at("spec").at("resources"),
              json::parse(R"({"requests":{"cpu":"750m","memory":"256Mi"},"limits":{"cpu":"2","memory":"1Gi"}})"));
}

TEST(WorkloadManifest, CronJobTemplateAndErrors) {
    const auto cj =
        json::parse(R"({"apiVersion":"batch/v1","kind":"CronJob","metadata":{"name":"web","namespace":"shop"},
      "spec":{"schedule":"* * * * *","jobTemplate":{"spec":{"template":{"spec":{"restartPolicy":"Never",
        "containers":[{"name":"app","resources":{"requests":{"cpu":"500m","memory":"256Mi"}}}]}}}}}})");
    const auto r =
        rec(R"({"cpuRequest":"100m","cpuLimit":"0","memoryRequest":"256Mi","memoryLimit":"0"})", "app", "CronJob");
    auto m = recommended_manifest(cj, r, policy(kReqOnly, kReqOnly));
    ASSERT_TRUE(m) << m.error().message;
    EXPECT_EQ(app_resources(m.value().recommended, {"spec", "jobTemplate", "spec", "template"}),
              json::parse(R"({"requests":{"cpu":"100m","memory":"256Mi"}})"));

    auto ghost =
        recommended_manifest(deployment(),
                             rec(R"({"cpuRequest":"100m","cpuLimit":"0","memoryRequest":"0","memoryLimit":"0"})",
                                 "ghost"),
                             policy(kReqOnly, kReqOnly));
    ASSERT_FALSE(ghost);
    EXPECT_EQ(ghost.error().code, "container_not_found");
    EXPECT_NE(ghost.error().message.find("ghost"), std::string::npos);

    auto no_template =
        recommended_manifest(json::parse(R"({"kind":"Deployment","metadata":{"name":"web"},"spec":{}})"),
                             rec(R"({"cpuRequest":"100m","cpuLimit":"0","memoryRequest":"0","memoryLimit":"0"})"),
                             policy(kReqOnly, kReqOnly));
    EXPECT_FALSE(no_template);
}

TEST(WorkloadManifest, StreamAndFileNames) {
    const json::array two{json::parse(R"({"kind":"Deployment","metadata":{"name":"a"}})"),
                          json::parse(R"({"kind":"StatefulSet","metadata":{"name":"b"}})")};
    EXPECT_EQ(render_manifest_stream(two, false),
              "---\nkind: Deployment\nmetadata:\n  name: a\n---\nkind: StatefulSet\nmetadata:\n  name: b\n");
    EXPECT_EQ(json::parse(render_manifest_stream(two, true)),
              json::parse(R"({"apiVersion":"v1","kind":"List","items":[{"kind":"Deployment","metadata":{"name":"a"}},
                {"kind":"StatefulSet","metadata":{"name":"b"}}]})"));
    EXPECT_EQ(render_manifest_stream({}, false), "");
    EXPECT_EQ(manifest_file_name("shop", "StatefulSet", "db", false), "shop_statefulset_db.yaml");
    EXPECT_EQ(manifest_file_name("shop", "Deployment", "web", true), "shop_deployment_web.json");
}

TEST(WorkloadManifest, Label) { EXPECT_EQ(workload_label("shop", "Deployment", "web"), "shop/Deployment/web"); }

}  // namespace
}  // namespace attune::cli
