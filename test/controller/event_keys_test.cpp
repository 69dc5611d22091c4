#include <attune/controller/event_keys.hpp>

#include <boost/json/parse.hpp>

#include <gtest/gtest.h>

namespace attune::controller {
namespace {
namespace json = boost::json;
using kube::object_cache;

json::value hpa(const char* target, const char* scaled_to_zero, const char* rv = "1") {
    return json::parse(std::string(R"({"metadata":{"namespace":"ns","name":"h-)") + target + R"(","resourceVersion":")" +
                       rv + R"("},"spec":{"scaleTargetRef":{"apiVersion":"apps/v1","kind":"Deployment","name":")" +
                       target +
                       R"("},"minReplicas":1,"maxReplicas":3,"metrics":[{"type":"External","external":{"metric":{"name":"q"},"target":{"type":"AverageValue","averageValue":"1"}}}]},)"
                       R"("status":{"currentReplicas":0,"desiredReplicas":0,"currentMetrics":[{"type":"External"}],)"
                       R"("conditions":[{"type":"ScaledToZero","status":")" + scaled_to_zero + R"("}]}})");
}

json::value policy(const char* name, long long generation) {
    return json::parse(std::string(R"({"metadata":{"namespace":"ns","name":")") + name + R"(","resourceVersion":")" +
                       std::to_string(generation) + R"(","generation":)" + std::to_string(generation) +
                       R"(},"spec":{"targetRef":{"kind":"Deployment","name":"web"}}})");
}

TEST(EventKeys, WorkloadHpaAndPolicyChanges) {
    object_cache::delta d;
    d.key = "ns/web";
    EXPECT_EQ(keys_for_workload_change("StatefulSet", d), (std::vector<std::string>{"ns/StatefulSet/web"}));

    object_cache::delta h;
    h.what = object_cache::delta::kind::updated;
    h.old_object = std::make_shared<const json::value>(hpa("old", "True"));
    h.new_object = std::make_shared<const json::value>(hpa("new", "True"));
    EXPECT_EQ(keys_for_hpa_change(h), (std::vector<std::string>{"ns/Deployment/old", "ns/Deployment/new"}));
    h.old_object = h.new_object;
    EXPECT_EQ(keys_for_hpa_change(h), (std::vector<std::string>{"ns/Deployment/new"}));

    object_cache::delta p;
    p.key = "ns/p";
    p.what = object_cache::delta::kind::added;
    p.new_object = std::make_shared<const json::value>(policy("p", 1));
    EXPECT_EQ(keys_for_policy_change(p), (std::vector<std::string>{"ns/AttunePolicy/p"}));
    p.what = object_cache::delta::kind::updated;
    p.old_object = p.new_object;  // a status write: same generation, no new pass
    EXPECT_TRUE(keys_for_policy_change(p).empty());
    p.new_object = std::make_shared<const json::value>(policy("p", 2));
    EXPECT_EQ(keys_for_policy_change(p).size(), 1u);
    p.what = object_cache::delta::kind::deleted;
    p.new_object = nullptr;
    EXPECT_EQ(keys_for_policy_change(p).size(), 1u);
}

}  // namespace
}  // namespace attune::controller
