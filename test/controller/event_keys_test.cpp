#include <attune/controller/event_keys.hpp>

#include <boost/json/parse.hpp>

#include <gtest/gtest.h>

namespace attune::controller {
namespace {
namespace json = boost::json;
using kube::ObjectCache;

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
    ObjectCache::Delta d;
    d.key = "ns/web";
    EXPECT_EQ(keys_for_workload_change("StatefulSet", d), (std::vector<std::string>{"ns/StatefulSet/web"}));

    ObjectCache::Delta h;
    h.what = ObjectCache::Delta::Kind::Updated;
    h.old_object = std::make_shared<const json::value>(hpa("old", "True"));
    h.new_object = std::make_shared<const json::value>(hpa("new", "True"));
    EXPECT_EQ(keys_for_hpa_change(h), (std::vector<std::string>{"ns/Deployment/old", "ns/Deployment/new"}));
    h.old_object = h.new_object;
    EXPECT_EQ(keys_for_hpa_change(h), (std::vector<std::string>{"ns/Deployment/new"}));

    ObjectCache::Delta p;
    p.key = "ns/p";
    p.what = ObjectCache::Delta::Kind::Added;
    p.new_object = std::make_shared<const json::value>(policy("p", 1));
    EXPECT_EQ(keys_for_policy_change(p), (std::vector<std::string>{"ns/AttunePolicy/p"}));
    p.what = ObjectCache::Delta::Kind::Updated;
    p.old_object = p.new_object;  // a status write: same generation, no new pass
    EXPECT_TRUE(keys_for_policy_change(p).empty());
    p.new_object = std::make_shared<const json::value>(policy("p", 2));
    EXPECT_EQ(keys_for_policy_change(p).size(), 1u);
    p.what = ObjectCache::Delta::Kind::Deleted;
    p.new_object = nullptr;
    EXPECT_EQ(keys_for_policy_change(p).size(), 1u);
}

json::value pod(const char* owner_kind, const char* owner, const char* phase, const char* cpu = "100m") {
    return json::parse(std::string(R"({"metadata":{"namespace":"ns","name":"p-1","resourceVersion":"1",)"
                                   R"("ownerReferences":[{"kind":")") + owner_kind + R"(","name":")" + owner +
                       R"(","uid":"u","controller":true}]},"spec":{"containers":[{"name":"app","resources":{"requests":{"cpu":")" +
                       cpu + R"("}}}]},"status":{"phase":")" + phase + R"("}})");
}

TEST(EventKeys, PodChangesReachTheWorkloadThatOwnsThem) {
    ObjectCache replicasets, jobs;
    replicasets.apply(kube::WatchEventType::Added,
                      json::parse(R"({"metadata":{"namespace":"ns","name":"web-abc","resourceVersion":"1",
        "ownerReferences":[{"kind":"Deployment","name":"web","uid":"d","controller":true}]}})"));
    jobs.apply(kube::WatchEventType::Added,
               json::parse(R"({"metadata":{"namespace":"ns","name":"nightly-1","resourceVersion":"1",
        "ownerReferences":[{"kind":"CronJob","name":"nightly","uid":"c","controller":true}]}})"));
    auto change = [](ObjectCache::Delta::Kind what, json::value before, json::value after) {
        ObjectCache::Delta d;
        d.what = what;
        if (!before.is_null()) d.old_object = std::make_shared<const json::value>(std::move(before));
        if (!after.is_null()) d.new_object = std::make_shared<const json::value>(std::move(after));
        return d;
    };
    using K = ObjectCache::Delta::Kind;
    const auto added = change(K::Added, nullptr, pod("ReplicaSet", "web-abc", "Pending"));
    EXPECT_EQ(keys_for_pod_change(added, &replicasets, &jobs), (std::vector<std::string>{"ns/Deployment/web"}));
    EXPECT_EQ(keys_for_pod_change(change(K::Deleted, pod("Job", "nightly-1", "Running"), nullptr), &replicasets, &jobs),
              (std::vector<std::string>{"ns/CronJob/nightly"}));
    EXPECT_EQ(keys_for_pod_change(change(K::Added, nullptr, pod("StatefulSet", "db", "Pending")), &replicasets, &jobs),
              (std::vector<std::string>{"ns/StatefulSet/db"}));
    // A bare ReplicaSet (no Deployment above it) is the workload itself.
    EXPECT_EQ(keys_for_pod_change(change(K::Added, nullptr, pod("ReplicaSet", "lonely", "Pending")), &replicasets,
                                  &jobs),
              (std::vector<std::string>{"ns/ReplicaSet/lonely"}));
    // Phase and resources matter; other status updates do not.
    EXPECT_EQ(keys_for_pod_change(change(K::Updated, pod("ReplicaSet", "web-abc", "Pending"),
                                         pod("ReplicaSet", "web-abc", "Running")),
                                  &replicasets, &jobs)
                  .size(),
              1u);
    EXPECT_EQ(keys_for_pod_change(change(K::Updated, pod("ReplicaSet", "web-abc", "Running"),
                                         pod("ReplicaSet", "web-abc", "Running", "200m")),
                                  &replicasets, &jobs)
                  .size(),
              1u);
    EXPECT_TRUE(keys_for_pod_change(change(K::Updated, pod("ReplicaSet", "web-abc", "Running"),
                                           pod("ReplicaSet", "web-abc", "Running")),
                                    &replicasets, &jobs)
                    .empty());
    EXPECT_TRUE(
        keys_for_pod_change(change(K::Added, nullptr, pod("Node", "n", "Running")), &replicasets, &jobs).empty());
}

}  // namespace
}  // namespace attune::controller
