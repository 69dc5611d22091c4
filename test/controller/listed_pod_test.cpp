// What the pods cache keeps listed with each pod: its name, and whether it
// may hold the baseline (the core's rule), read once per change.
#include <attune/controller/listed_pod.hpp>

#include <boost/json/parse.hpp>

#include <gtest/gtest.h>

namespace attune::controller {
namespace {

TEST(ListedPod, NameAndWhetherItMayHoldTheBaseline) {
    const struct {
        const char* json;
        bool listed;
        const char* name;
        bool can_hold_baseline;
    } rows[] = {
        {R"({"metadata":{"name":"web-1"},"status":{"phase":"Running"}})", true, "web-1", true},
        {R"({"metadata":{"name":"web-1"},"status":{"phase":"Pending"}})", true, "web-1", false},
        {R"({"metadata":{"name":"web-1","deletionTimestamp":"2026-01-01T00:00:00Z"},"status":{"phase":"Running"}})",
         true, "web-1", false},
        {R"({"metadata":{"name":"web-1"}})", true, "web-1", false},
        {R"({"metadata":{"name":"web-1"},"status":{"phase":7}})", true, "web-1", false},
        {R"({"metadata":{},"status":{"phase":"Running"}})", false, "", false},
        {R"([])", false, "", false},
    };
    for (const auto& r : rows) {
        SCOPED_TRACE(r.json);
        const auto p = list_pod(boost::json::parse(r.json));
        ASSERT_EQ(p.has_value(), r.listed);
        if (!p) continue;
        EXPECT_EQ(p->name, r.name);
        EXPECT_EQ(p->can_hold_baseline, r.can_hold_baseline);
    }
}

TEST(ListedPod, TheCacheKeepsOnePerPodAndFollowsItsChanges) {
    kube::ObjectCache pods{kube::strip_pod, kube::CacheStorage::CompactText};
    keep_listed_pods(pods);
    auto pod = [](const char* rv, const char* phase) {
        return boost::json::parse(
            std::string(R"({"metadata":{"namespace":"ns","name":"web-1","uid":"u1","resourceVersion":")") + rv +
            R"(","ownerReferences":[{"kind":"ReplicaSet","name":"rs","uid":"rs-uid","controller":true}]},)"
            R"("status":{"phase":")" +
            phase + R"("}})");
    };
    pods.apply(kube::WatchEventType::Added, pod("1", "Pending"));
    auto listed = pods.decoded_owned_by<ListedPod>("rs-uid");
    ASSERT_EQ(listed.size(), 1u);
    EXPECT_FALSE(listed[0]->can_hold_baseline);
    pods.apply(kube::WatchEventType::Modified, pod("2", "Running"));
    listed = pods.decoded_owned_by<ListedPod>("rs-uid");
    ASSERT_EQ(listed.size(), 1u);
    EXPECT_TRUE(listed[0]->can_hold_baseline);
    EXPECT_TRUE(pods.decoded_owned_by<ListedPod>("other").empty());
}

}  // namespace
}  // namespace attune::controller
