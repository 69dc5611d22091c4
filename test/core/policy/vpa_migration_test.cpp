// migrate_vpa against the mapping table in docs/cli.md "migrate": each row is
// one VPA spec, the policy fields it must produce and the note paths it must
// name.
#include "attune/core/policy/vpa_migration.hpp"

#include <boost/json.hpp>
#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace attune::core {
namespace {

namespace json = boost::json;

struct Case {
    std::string label;
    std::string spec;      // the VPA's spec, JSON
    std::string expected;  // the policy's spec, JSON; "" = no policy
    std::vector<std::string> note_paths;
};

const std::string kTarget = R"("targetRef":{"apiVersion":"apps/v1","kind":"Deployment","name":"web"})";
const std::string kBase = R"("targetRef":{"kind":"Deployment","name":"web"},"metricsSource":{"vpa":{"name":"v"}})";

std::vector<Case> cases() {
    return {
        {"no updatePolicy is VPA's Auto",
         "{" + kTarget + "}",
         "{" + kBase + R"(,"cpu":{},"memory":{},"updateStrategy":{"type":"Auto"}})",
         {}},
        {"Off recommends",
         "{" + kTarget + R"(,"updatePolicy":{"updateMode":"Off"}})",
         "{" + kBase + R"(,"cpu":{},"memory":{},"updateStrategy":{"type":"Recommend"}})",
         {}},
        {"Initial sizes at create",
         "{" + kTarget + R"(,"updatePolicy":{"updateMode":"Initial"}})",
         "{" + kBase + R"(,"cpu":{},"memory":{},"updateStrategy":{"type":"Recommend","initialSizing":true}})",
         {}},
        {"Recreate resizes in place",
         "{" + kTarget + R"(,"updatePolicy":{"updateMode":"Recreate"}})",
         "{" + kBase + R"(,"cpu":{},"memory":{},"updateStrategy":{"type":"Auto"}})",
         {"spec.updatePolicy.updateMode"}},
        {"InPlaceOrRecreate keeps its fallback",
         "{" + kTarget + R"(,"updatePolicy":{"updateMode":"InPlaceOrRecreate"}})",
         "{" + kBase + R"(,"cpu":{},"memory":{},"updateStrategy":{"type":"Auto","resizeMethod":"InPlaceOrRecreate"}})",
         {}},
        {"minReplicas, evictionRequirements and recommenders are notes",
         "{" + kTarget +
             R"(,"updatePolicy":{"updateMode":"Off","minReplicas":2,"evictionRequirements":[]},"recommenders":[{"name":"x"}]})",
         "{" + kBase + R"(,"cpu":{},"memory":{},"updateStrategy":{"type":"Recommend"}})",
         {"spec.updatePolicy.minReplicas", "spec.updatePolicy.evictionRequirements", "spec.recommenders"}},
        {"* bounds and controlledValues map; named container Off is excluded",
         "{" + kTarget +
             R"(,"updatePolicy":{"updateMode":"Auto"},"resourcePolicy":{"containerPolicies":[
               {"containerName":"*","minAllowed":{"cpu":"50m","memory":"64Mi"},"maxAllowed":{"cpu":2,"memory":"1Gi"},
                "controlledValues":"RequestsAndLimits","controlledResources":["cpu","memory"]},
               {"containerName":"sidecar","mode":"Off"}]}})",
         "{" + kBase +
             R"(,"cpu":{"minAllowed":"50m","maxAllowed":"2","controlledValues":"RequestsAndLimits"},
               "memory":{"minAllowed":"64Mi","maxAllowed":"1Gi","controlledValues":"RequestsAndLimits"},
               "excludedContainers":["sidecar"],"updateStrategy":{"type":"Auto"}})",
         {}},
        {"named container bounds and a partial controlledResources are notes",
         "{" + kTarget +
             R"(,"updatePolicy":{"updateMode":"Off"},"resourcePolicy":{"containerPolicies":[
               {"containerName":"*","controlledResources":["cpu"],"mode":"Off"},
               {"containerName":"app","maxAllowed":{"cpu":"1"}}]}})",
         "{" + kBase + R"(,"cpu":{},"memory":{},"updateStrategy":{"type":"Recommend"}})",
         {"spec.resourcePolicy.containerPolicies[0].controlledResources",
          "spec.resourcePolicy.containerPolicies[0].mode", "spec.resourcePolicy.containerPolicies[1].maxAllowed"}},
        {"an unknown spec field is a note",
         "{" + kTarget + R"(,"startupBoost":{"cpu":{}}})",
         "{" + kBase + R"(,"cpu":{},"memory":{},"updateStrategy":{"type":"Auto"}})",
         {"spec.startupBoost"}},
        {"an unsupported kind writes no policy",
         R"({"targetRef":{"apiVersion":"v1","kind":"ReplicationController","name":"rc"}})",
         "",
         {"spec.targetRef"}},
        {"no targetRef writes no policy", "{}", "", {"spec.targetRef"}},
    };
}

TEST(VpaMigration, MapsTheDocumentedTable) {
    for (const auto& c : cases()) {
        SCOPED_TRACE(c.label);
        json::value vpa = json::object{{"apiVersion", "autoscaling.k8s.io/v1"},
                                       {"kind", "VerticalPodAutoscaler"},
                                       {"metadata", json::object{{"name", "v"}, {"namespace", "ns1"}}},
                                       {"spec", json::parse(c.spec)}};
        const auto got = migrate_vpa(vpa);
        std::vector<std::string> paths;
        for (const auto& n : got.notes) {
            EXPECT_FALSE(n.why.empty());
            paths.push_back(n.path);
        }
        EXPECT_EQ(paths, c.note_paths);
        if (c.expected.empty()) {
            EXPECT_FALSE(got.policy.has_value());
            continue;
        }
        ASSERT_TRUE(got.policy.has_value());
        EXPECT_EQ(got.policy->at("kind"), "AttunePolicy");
        EXPECT_EQ(got.policy->at("metadata"), (json::object{{"name", "v"}, {"namespace", "ns1"}}));
        EXPECT_EQ(got.policy->at("spec"), json::parse(c.expected)) << json::serialize(got.policy->at("spec"));
    }
}

TEST(VpaMigration, NotAnObjectIsANoteNotACrash) {
    const auto got = migrate_vpa(json::value("x"));
    EXPECT_FALSE(got.policy.has_value());
    ASSERT_EQ(got.notes.size(), 1U);
}

}  // namespace
}  // namespace attune::core
