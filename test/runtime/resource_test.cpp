#include <attune/kube/api_error.hpp>
#include <attune/kube/resource.hpp>

#include <gtest/gtest.h>

namespace attune::kube {
namespace {

TEST(ResourcePaths, CoreAndGroupedTypes) {
    EXPECT_EQ(collection_path(resources::pods(), "ns"), "/api/v1/namespaces/ns/pods");
    EXPECT_EQ(collection_path(resources::pods(), ""), "/api/v1/pods");
    EXPECT_EQ(collection_path(resources::nodes(), "ignored"), "/api/v1/nodes");
    EXPECT_EQ(object_path(resources::pods(), "ns", "p", "resize"), "/api/v1/namespaces/ns/pods/p/resize");
    EXPECT_EQ(object_path(resources::deployments(), "a", "web"), "/apis/apps/v1/namespaces/a/deployments/web");
    EXPECT_EQ(object_path(resources::leases(), "kube-system", "attune"),
              "/apis/coordination.k8s.io/v1/namespaces/kube-system/leases/attune");
    EXPECT_EQ(resources::horizontal_pod_autoscalers().label(), "horizontalpodautoscalers.autoscaling");
}

TEST(WorkloadResource, EachTargetKindMapsToItsOwnResource) {
    struct Row {
        const char* kind;
        const char* api_version;
        const char* plural;
    };
    for (const Row& r : {Row{"Deployment", "apps/v1", "deployments"}, Row{"StatefulSet", "apps/v1", "statefulsets"},
                         Row{"DaemonSet", "apps/v1", "daemonsets"}, Row{"ReplicaSet", "apps/v1", "replicasets"},
                         Row{"Job", "batch/v1", "jobs"}, Row{"CronJob", "batch/v1", "cronjobs"}}) {
        const auto rt = workload_resource(r.kind);
        ASSERT_TRUE(rt.ok()) << r.kind;
        EXPECT_EQ(rt.value().kind, r.kind);
        EXPECT_EQ(rt.value().api_version(), r.api_version) << r.kind;
        EXPECT_EQ(rt.value().plural, r.plural) << r.kind;
        EXPECT_TRUE(rt.value().namespaced) << r.kind;
    }
}

TEST(WorkloadResource, UnknownKindIsRefusedNotMappedToDeployments) {
    for (const char* kind : {"", "Pod", "deployment", "Deployments", "deploy", "ReplicationController"}) {
        const auto rt = workload_resource(kind);
        ASSERT_FALSE(rt.ok()) << "\"" << kind << "\" mapped to " << rt.value().label();
        EXPECT_EQ(rt.error().code, "unknown_kind");
        EXPECT_EQ(rt.error().message, "unknown workload kind \"" + std::string(kind) +
                                          "\" (Deployment, StatefulSet, DaemonSet, ReplicaSet, Job or CronJob)");
    }
}

TEST(ResourcePaths, QueryIsEncodedAndSkipsEmpty) {
    Query q;
    q.add("labelSelector", "app in (a,b)").add("continue", "").add("limit", 500LL);
    EXPECT_EQ(q.encode(), "?labelSelector=app%20in%20%28a%2Cb%29&limit=500");
    EXPECT_EQ(Query{}.encode(), "");
    EXPECT_EQ(percent_encode("a/b"), "a%2Fb");
}

TEST(ApiError, ParsesStatusBody) {
    auto e = ApiError::from_response(
        409,
        R"({"kind":"Status","apiVersion":"v1","status":"Failure","message":"m","reason":"AlreadyExists","code":409})");
    EXPECT_TRUE(e.is_conflict());
    EXPECT_TRUE(e.is_already_exists());
    EXPECT_EQ(e.message, "m");
}

TEST(ApiError, NonStatusBodyIsKeptTruncated) {
    auto e = ApiError::from_response(502, std::string(2000, 'x'));
    EXPECT_EQ(e.code, 502);
    EXPECT_EQ(e.message.size(), 512u);
    auto g = ApiError::from_response(410, "gone");
    EXPECT_TRUE(g.is_gone());
    EXPECT_EQ(g.reason, "Gone");
}

TEST(ApiError, ExpiredReasonMeansGoneEvenInsideA200Stream) {
    ApiError e;
    e.code = 500;
    e.reason = "Expired";
    EXPECT_TRUE(e.is_gone());
}

TEST(ApiError, MalformedStatusFieldsAreIgnored) {
    auto e = ApiError::from_response(404, R"({"kind":"Status","reason":7,"message":null,"code":"x"})");
    EXPECT_EQ(e.code, 404);
    EXPECT_TRUE(e.reason.empty());
}

}  // namespace
}  // namespace attune::kube
