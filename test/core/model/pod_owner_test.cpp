#include "attune/core/model/pod_owner.hpp"

#include <gtest/gtest.h>

#include <map>
#include <set>

#include "test_pods.hpp"

namespace attune::core {
namespace {

using testing::pod_from_json;

// A fake cache: kind/name -> controller (kind, name), "" for none.
struct FakeCache {
    std::map<std::pair<std::string, std::string>, std::pair<std::string, std::string>> objects;

    OwnerLookup lookup() const {
        OwnerLookup l;
        l.controller_of = [this](std::string_view kind, std::string_view name)
            -> std::optional<std::optional<OwnerReference>> {
            auto it = objects.find({std::string(kind), std::string(name)});
            if (it == objects.end()) return std::nullopt;
            if (it->second.first.empty()) return std::optional<OwnerReference>();
            OwnerReference r;
            r.kind = it->second.first;
            r.name = it->second.second;
            r.controller = true;
            return std::optional<OwnerReference>(r);
        };
        l.exists = [this](std::string_view kind, std::string_view name) {
            return objects.count({std::string(kind), std::string(name)}) > 0;
        };
        return l;
    }
};

Pod owned_pod(const char* kind, const char* name, const char* hash = nullptr) {
    std::string labels = hash ? std::string(R"("labels":{"pod-template-hash":")") + hash + R"("},)" : "";
    return pod_from_json(std::string(R"({"metadata":{)") + labels + R"("ownerReferences":[{"apiVersion":"v1","kind":")" +
                         kind + R"(","name":")" + name + R"(","uid":"u","controller":true}]},"spec":{"containers":[{"name":"app"}]}})");
}

TEST(ResolvePodWorkload, ReplicaSetMapsToItsDeployment) {
    FakeCache c;
    c.objects[{"ReplicaSet", "web-7d9f"}] = {"Deployment", "web"};
    EXPECT_EQ(resolve_pod_workload(owned_pod("ReplicaSet", "web-7d9f"), c.lookup()), (PodWorkload{"Deployment", "web"}));
}

TEST(ResolvePodWorkload, ABareReplicaSetIsItsOwnWorkload) {
    FakeCache c;
    c.objects[{"ReplicaSet", "legacy"}] = {"", ""};
    EXPECT_EQ(resolve_pod_workload(owned_pod("ReplicaSet", "legacy"), c.lookup()), (PodWorkload{"ReplicaSet", "legacy"}));
}

// The Deployment controller creates the ReplicaSet and, a moment later, its
// pods: the ReplicaSet may not be in the cache yet.
TEST(ResolvePodWorkload, ReplicaSetNotCachedYetFallsBackToTheTemplateHash) {
    FakeCache c;
    c.objects[{"Deployment", "web"}] = {"", ""};
    EXPECT_EQ(resolve_pod_workload(owned_pod("ReplicaSet", "web-7d9f", "7d9f"), c.lookup()),
              (PodWorkload{"Deployment", "web"}));
    // A hash that does not match the name, or no such Deployment: the ReplicaSet itself.
    EXPECT_EQ(resolve_pod_workload(owned_pod("ReplicaSet", "web-7d9f", "abcd"), c.lookup()),
              (PodWorkload{"ReplicaSet", "web-7d9f"}));
    EXPECT_EQ(resolve_pod_workload(owned_pod("ReplicaSet", "api-7d9f", "7d9f"), c.lookup()),
              (PodWorkload{"ReplicaSet", "api-7d9f"}));
}

TEST(ResolvePodWorkload, JobMapsToItsCronJob) {
    FakeCache c;
    c.objects[{"Job", "report-29160000"}] = {"CronJob", "report"};
    c.objects[{"Job", "oneoff"}] = {"", ""};
    EXPECT_EQ(resolve_pod_workload(owned_pod("Job", "report-29160000"), c.lookup()), (PodWorkload{"CronJob", "report"}));
    EXPECT_EQ(resolve_pod_workload(owned_pod("Job", "oneoff"), c.lookup()), (PodWorkload{"Job", "oneoff"}));
}

TEST(ResolvePodWorkload, JobNotCachedYetFallsBackToTheCronJobName) {
    FakeCache c;
    c.objects[{"CronJob", "report"}] = {"", ""};
    EXPECT_EQ(resolve_pod_workload(owned_pod("Job", "report-29160000"), c.lookup()), (PodWorkload{"CronJob", "report"}));
    EXPECT_EQ(resolve_pod_workload(owned_pod("Job", "report-final"), c.lookup()), (PodWorkload{"Job", "report-final"}));
}

TEST(ResolvePodWorkload, OtherControllersAreTheWorkload) {
    FakeCache c;
    EXPECT_EQ(resolve_pod_workload(owned_pod("StatefulSet", "db"), c.lookup()), (PodWorkload{"StatefulSet", "db"}));
    EXPECT_EQ(resolve_pod_workload(owned_pod("DaemonSet", "agent"), c.lookup()), (PodWorkload{"DaemonSet", "agent"}));
}

TEST(ResolvePodWorkload, ABarePodHasNoWorkload) {
    FakeCache c;
    EXPECT_EQ(resolve_pod_workload(pod_from_json(R"({"spec":{"containers":[{"name":"app"}]}})"), c.lookup()), std::nullopt);
}

}  // namespace
}  // namespace attune::core
