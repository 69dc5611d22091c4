// The export ConfigMap (core/recommendation_export): its name, labels, owner
// and data keys, as docs/api.md lists them.
#include "attune/core/recommend/recommendation_export.hpp"

#include <gtest/gtest.h>

#include <boost/json.hpp>

#include "test_pods.hpp"

namespace attune::core {
namespace {

namespace json = boost::json;
using namespace std::chrono;
using testing::qty;

ContainerRecommendation container(std::string name, const char* cpu, const char* mem, const char* cpu_limit,
                                  const char* mem_limit, double confidence) {
    ContainerRecommendation c;
    c.name = std::move(name);
    c.recommended.cpu_request = qty(cpu);
    c.recommended.memory_request = qty(mem);
    c.recommended.cpu_limit = qty(cpu_limit);
    c.recommended.memory_limit = qty(mem_limit);
    c.confidence = confidence;
    return c;
}

ExportTarget target(std::string policy = "web-policy", std::string workload = "web") {
    return {std::move(policy), "uid-1", "shop", std::move(workload), "Deployment"};
}

const Timestamp kGenerated = sys_days{2026y / 12 / 1} + 10h;
const Timestamp kNow = kGenerated + 30s;

TEST(ExportConfigMapName, IsPolicyWorkloadRecommendations) {
    EXPECT_EQ(export_config_map_name("web-policy", "web"), "web-policy-web-recommendations");
}

TEST(ExportConfigMap, CarriesTheDocumentedDataKeysLabelsAndOwner) {
    WorkloadRecommendation rec;
    rec.containers = {container("app", "250m", "300Mi", "500m", "600Mi", 0.91666),
                      container("sidecar", "10m", "32Mi", "0", "0", 0.005)};
    const auto cm = export_config_map(target(), rec, kGenerated, kNow);
    ASSERT_TRUE(cm) << cm.error().message;
    const json::object want_data{{"schema-version", "v1"},
                                 {"policy", "web-policy"},
                                 {"namespace", "shop"},
                                 {"workload", "web"},
                                 {"kind", "Deployment"},
                                 {"generated-at", "2026-12-01T10:00:00Z"},
                                 {"last-updated", "2026-12-01T10:00:30Z"},
                                 {"app.cpu-request", "250m"},
                                 {"app.memory-request", "300Mi"},
                                 {"app.cpu-limit", "500m"},
                                 {"app.memory-limit", "600Mi"},
                                 {"app.confidence", "0.92"},
                                 {"sidecar.cpu-request", "10m"},
                                 {"sidecar.memory-request", "32Mi"},
                                 {"sidecar.confidence", "0.01"}};
    EXPECT_EQ(cm.value().at("data").as_object(), want_data);  // no limit keys for the container without limits
    const auto& meta = cm.value().at("metadata").as_object();
    EXPECT_EQ(meta.at("name"), "web-policy-web-recommendations");
    EXPECT_EQ(meta.at("namespace"), "shop");
    const json::object want_labels{
        {"attune.io/policy", "web-policy"}, {"attune.io/workload", "web"}, {"attune.io/export-schema", "v1"}};
    EXPECT_EQ(meta.at("labels").as_object(), want_labels);
    const auto& owners = meta.at("ownerReferences").as_array();
    ASSERT_EQ(owners.size(), 1u);
    const json::object want_owner{
        {"apiVersion", "attune.io/v1alpha1"}, {"kind", "AttunePolicy"}, {"name", "web-policy"}, {"uid", "uid-1"},
        {"controller", true}};
    EXPECT_EQ(owners[0].as_object(), want_owner);
    EXPECT_EQ(cm.value().at("apiVersion"), "v1");
    EXPECT_EQ(cm.value().at("kind"), "ConfigMap");
}

TEST(ExportConfigMap, RefusesWhatTheApiserverWouldRefuse) {
    struct Case {
        const char* what;
        std::string policy, workload;
        bool ok;
    };
    const std::string n63(63, 'a'), n64(64, 'a');
    const std::vector<Case> cases = {
        {"label values of 63 characters", n63, n63, true},
        {"a workload name of 64 characters (label value)", "p", n64, false},
        {"a policy name of 64 characters (label value)", n64, "w", false},
    };
    for (const auto& c : cases) {
        const auto cm = export_config_map(target(c.policy, c.workload), {}, kGenerated, kNow);
        EXPECT_EQ(bool(cm), c.ok) << c.what;
        if (!cm) {
            EXPECT_EQ(cm.error().code, "export_name_invalid") << c.what;
        }
    }
    // A name past 253 characters is refused as such (checked before the labels).
    const auto long_name = export_config_map(target(std::string(200, 'p'), std::string(60, 'w')), {}, kGenerated, kNow);
    ASSERT_FALSE(long_name);
    EXPECT_NE(long_name.error().message.find("at most 253"), std::string::npos) << long_name.error().message;
}

TEST(ExportConfigMap, NoOwnerReferenceWithoutThePolicyUid) {
    auto t = target();
    t.policy_uid.clear();
    const auto cm = export_config_map(t, {}, kGenerated, kNow);
    ASSERT_TRUE(cm);
    EXPECT_FALSE(cm.value().at("metadata").as_object().contains("ownerReferences"));
}

}  // namespace
}  // namespace attune::core
