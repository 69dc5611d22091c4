// What the pods cache keeps listed with each pod: whether it may hold the
// baseline (the core's rule), read once per change, found with its key.
#include <attune/controller/listed_pod.hpp>

#include <boost/json/parse.hpp>

#include <gtest/gtest.h>

namespace attune::controller {
namespace {

TEST(ListedPod, WhetherItMayHoldTheBaseline) {
    const struct {
        const char* json;
        bool can_hold_baseline;
    } rows[] = {
        {R"({"metadata":{"name":"web-1"},"status":{"phase":"Running"}})", true},
        {R"({"metadata":{"name":"web-1"},"status":{"phase":"Pending"}})", false},
        {R"({"metadata":{"name":"web-1","deletionTimestamp":"2026-01-01T00:00:00Z"},"status":{"phase":"Running"}})",
         false},
        {R"({"metadata":{"name":"web-1"}})", false},
        {R"({"metadata":{"name":"web-1"},"status":{"phase":7}})", false},
        {R"([])", false},
    };
    for (const auto& r : rows)
        EXPECT_EQ(list_pod(boost::json::parse(r.json)).can_hold_baseline, r.can_hold_baseline) << r.json;
}

TEST(ListedPod, TheCacheKeepsOnePerPodWithItsKeyAndFollowsItsChanges) {
    kube::ObjectCache pods{kube::strip_pod, kube::CacheStorage::CompactText};
    keep_listed_pods(pods);
    auto pod = [](const char* name, const char* rv, const char* phase) {
        return boost::json::parse(
            std::string(R"({"metadata":{"namespace":"ns","name":")") + name + R"(","uid":")" + name +
            R"(","resourceVersion":")" + rv +
            R"(","ownerReferences":[{"kind":"ReplicaSet","name":"rs","uid":"rs-uid","controller":true}]},)"
            R"("status":{"phase":")" +
            phase + R"("}})");
    };
    pods.apply(kube::WatchEventType::Added, pod("web-1", "1", "Pending"));
    auto listed = pods.decoded_owned_by<ListedPod>("rs-uid");
    ASSERT_EQ(listed.size(), 1u);
    EXPECT_EQ(listed[0].key, "ns/web-1");
    EXPECT_FALSE(listed[0].view->can_hold_baseline);
    pods.apply(kube::WatchEventType::Modified, pod("web-1", "2", "Running"));
    pods.apply(kube::WatchEventType::Added, pod("web-2", "3", "Pending"));
    listed = pods.decoded_owned_by<ListedPod>("rs-uid");
    ASSERT_EQ(listed.size(), 2u);
    for (const auto& l : listed) EXPECT_EQ(l.view->can_hold_baseline, l.key == "ns/web-1") << l.key;
    EXPECT_TRUE(pods.decoded_owned_by<ListedPod>("other").empty());
}

}  // namespace
}  // namespace attune::controller
