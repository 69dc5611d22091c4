#include <attune/controller/event_keys.hpp>
#include <attune/controller/workload_snapshot.hpp>

#include <boost/json/parse.hpp>

#include <gtest/gtest.h>

#include <algorithm>

namespace attune::controller {
namespace {
namespace json = boost::json;
using kube::ObjectCache;
using kube::WatchEventType;

json::value obj(const char* kind, const char* name, const char* owner_kind = nullptr, const char* owner = nullptr,
                bool controller = true) {
    std::string refs;
    if (owner)
        refs = std::string(R"(,"ownerReferences":[{"apiVersion":"apps/v1","kind":")") + owner_kind + R"(","name":")" +
               owner + R"(","uid":")" + owner + R"(-uid","controller":)" + (controller ? "true" : "false") + "}]";
    return json::parse(std::string(R"({"kind":")") + kind + R"(","metadata":{"namespace":"ns","name":")" + name +
                       R"(","uid":")" + name + R"(-uid")" + refs + "}}");
}

std::vector<std::string> names(const std::vector<ObjectCache::ObjectPtr>& v) {
    std::vector<std::string> out;
    for (const auto& o : v) out.emplace_back(kube::meta_string(*o, "name"));
    std::sort(out.begin(), out.end());
    return out;
}

struct Fixture {
    ObjectCache replicasets, jobs, pods;
    policy::CacheViews views() {
        policy::CacheViews v;
        v.replicasets = &replicasets;
        v.jobs = &jobs;
        v.pods = &pods;
        return v;
    }
};

// Both ways through the controller chain: a workload's pods (pods_of), and a
// pod's workload (pod_workload_key, the key its changes enqueue).
TEST(PodWorkloadKey, ThroughTheControllerChain) {
    Fixture f;
    f.replicasets.apply(WatchEventType::Added, obj("ReplicaSet", "web-1", "Deployment", "web"));
    f.replicasets.apply(WatchEventType::Added, obj("ReplicaSet", "web-2", "Deployment", "web"));
    f.replicasets.apply(WatchEventType::Added, obj("ReplicaSet", "bare"));
    f.pods.apply(WatchEventType::Added, obj("Pod", "web-1-a", "ReplicaSet", "web-1"));
    f.pods.apply(WatchEventType::Added, obj("Pod", "web-2-a", "ReplicaSet", "web-2"));
    f.pods.apply(WatchEventType::Added, obj("Pod", "bare-a", "ReplicaSet", "bare"));
    f.pods.apply(WatchEventType::Added, obj("Pod", "db-0", "StatefulSet", "db"));
    f.pods.apply(WatchEventType::Added, obj("Pod", "db-x", "StatefulSet", "other", false));
    f.jobs.apply(WatchEventType::Added, obj("Job", "nightly-1", "CronJob", "nightly"));
    f.pods.apply(WatchEventType::Added, obj("Pod", "nightly-1-a", "Job", "nightly-1"));

    const auto v = f.views();
    EXPECT_EQ(names(pods_of(v, "Deployment", "web-uid")), (std::vector<std::string>{"web-1-a", "web-2-a"}));
    EXPECT_EQ(names(pods_of(v, "ReplicaSet", "bare-uid")), std::vector<std::string>{"bare-a"});
    EXPECT_EQ(names(pods_of(v, "StatefulSet", "db-uid")), std::vector<std::string>{"db-0"});
    EXPECT_EQ(names(pods_of(v, "CronJob", "nightly-uid")), std::vector<std::string>{"nightly-1-a"});
    EXPECT_TRUE(pods_of(v, "Deployment", "").empty());

    auto key = [&](const char* pod) { return pod_workload_key(*f.pods.get(std::string("ns/") + pod), &f.replicasets, &f.jobs); };
    EXPECT_EQ(key("web-1-a"), (ObjectKey{"ns", "Deployment", "web"}));
    EXPECT_EQ(key("bare-a"), (ObjectKey{"ns", "ReplicaSet", "bare"}))
        << "a ReplicaSet nobody controls is its own workload";
    EXPECT_EQ(key("db-0"), (ObjectKey{"ns", "StatefulSet", "db"}));
    EXPECT_EQ(key("nightly-1-a"), (ObjectKey{"ns", "CronJob", "nightly"}));
    EXPECT_FALSE(key("db-x")) << "an owner that is not the controller does not own the pod";
    EXPECT_FALSE(pod_workload_key(obj("Pod", "alone"), &f.replicasets, &f.jobs));
    EXPECT_FALSE(pod_workload_key(obj("Pod", "custom", "Rollout", "r"), &f.replicasets, &f.jobs));
}

}  // namespace
}  // namespace attune::controller
