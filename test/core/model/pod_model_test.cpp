#include "attune/core/model/pod_model.hpp"

#include <gtest/gtest.h>

#include <boost/json.hpp>

namespace attune::core {
namespace {

constexpr const char* kFullPod = R"({
  "metadata": {"namespace": "shop", "name": "web-1", "uid": "u-1", "generation": 3, "resourceVersion": "991",
               "labels": {"app": "web"}, "annotations": {"a": "b"},
               "ownerReferences": [{"apiVersion": "apps/v1", "kind": "ReplicaSet", "name": "web-7d", "uid": "rs-1", "controller": true}]},
  "spec": {
    "nodeName": "n1",
    "resources": {"requests": {"cpu": "2", "hugepages-2Mi": "4Mi"}, "limits": {"cpu": "4"}},
    "initContainers": [
      {"name": "init", "resources": {"requests": {"cpu": "1"}}},
      {"name": "proxy", "restartPolicy": "Always", "resources": {"requests": {"cpu": "100m", "memory": "64Mi"}}}],
    "containers": [{"name": "app", "resources": {"requests": {"cpu": "500m", "memory": 1073741824}, "limits": {"memory": "1Gi"}},
                    "resizePolicy": [{"resourceName": "memory", "restartPolicy": "RestartContainer"}]}]
  },
  "status": {
    "phase": "Running", "qosClass": "Burstable", "resize": "InProgress", "observedGeneration": 2,
    "conditions": [{"type": "PodResizeInProgress", "status": "True", "reason": "Error", "message": "oom", "observedGeneration": 3}],
    "containerStatuses": [{"name": "app", "resources": {"requests": {"cpu": "500m"}}, "allocatedResources": {"cpu": "500m"}}],
    "initContainerStatuses": [{"name": "proxy"}]
  }
})";

TEST(PodModel, DecodesEveryFieldTheCoreReads) {
    auto r = decode_pod(boost::json::parse(kFullPod));
    ASSERT_TRUE(r.ok()) << r.error().message;
    const Pod& p = r.value();
    EXPECT_EQ(p.namespace_, "shop");
    EXPECT_EQ(p.name, "web-1");
    EXPECT_EQ(p.generation, 3);
    EXPECT_EQ(p.resource_version, "991");
    EXPECT_EQ(p.labels.at("app"), "web");
    ASSERT_NE(p.controller_ref(), nullptr);
    EXPECT_EQ(p.controller_ref()->kind, "ReplicaSet");
    EXPECT_EQ(p.node_name, "n1");
    ASSERT_TRUE(p.pod_resources.has_value());
    EXPECT_EQ(p.pod_resources->requests.at("hugepages-2Mi").to_string(), "4Mi");
    ASSERT_EQ(p.init_containers.size(), 2u);
    EXPECT_FALSE(p.init_containers[0].is_native_sidecar());
    EXPECT_TRUE(p.init_containers[1].is_native_sidecar());
    const Container* app = p.find_container("app");
    ASSERT_NE(app, nullptr);
    // A bare JSON number is accepted as a quantity, like upstream (DecimalSI).
    EXPECT_EQ(app->resources.requests.at("memory").to_string(), "1073741824");
    EXPECT_EQ(app->resources.requests.at("memory"), app->resources.limits.at("memory"));
    EXPECT_EQ(app->resize_restart_policy("memory"), "RestartContainer");
    EXPECT_EQ(app->resize_restart_policy("cpu"), "NotRequired");
    EXPECT_EQ(p.qos_class, "Burstable");
    EXPECT_EQ(p.status_resize, "InProgress");
    EXPECT_EQ(p.observed_generation, 2);
    const auto* cond = p.find_condition("PodResizeInProgress");
    ASSERT_NE(cond, nullptr);
    EXPECT_EQ(cond->reason, "Error");
    EXPECT_EQ(cond->observed_generation, 3);
    ASSERT_NE(p.find_status("app"), nullptr);
    EXPECT_TRUE(p.find_status("app")->resources.has_value());
    EXPECT_TRUE(p.find_status("app")->allocated_resources.has_value());
    ASSERT_NE(p.find_status("proxy"), nullptr);
    EXPECT_FALSE(p.find_status("proxy")->resources.has_value());
}

TEST(PodModel, DecodesWhatTheSafetyMonitorReads) {
    auto r = decode_pod(boost::json::parse(R"({"metadata":{"deletionTimestamp":"2026-12-01T10:00:00Z"},
      "spec":{"containers":[{"name":"a"}]},
      "status":{"containerStatuses":[{"name":"a","ready":true,"restartCount":3,
        "state":{"terminated":{"reason":"Error","exitCode":1}},
        "lastState":{"terminated":{"reason":"OOMKilled","exitCode":137,"finishedAt":"2026-12-01T09:59:00Z"}}}]}})"));
    ASSERT_TRUE(r.ok()) << r.error().message;
    const Pod& p = r.value();
    EXPECT_EQ(p.deletion_timestamp, "2026-12-01T10:00:00Z");
    const ContainerStatus* s = p.find_status("a");
    ASSERT_NE(s, nullptr);
    EXPECT_TRUE(s->ready);
    EXPECT_EQ(s->restart_count, 3);
    ASSERT_TRUE(s->last_terminated.has_value());
    EXPECT_EQ(s->last_terminated->reason, "OOMKilled");
    EXPECT_EQ(s->last_terminated->finished_at, "2026-12-01T09:59:00Z");
    EXPECT_EQ(s->last_terminated->exit_code, 137);
    ASSERT_TRUE(s->terminated.has_value());
    EXPECT_EQ(s->terminated->reason, "Error");
}

TEST(PodModel, AbsentEnvelopeStaysAbsent) {
    auto r = decode_pod(boost::json::parse(R"({"spec":{"containers":[{"name":"a"}]}})"));
    ASSERT_TRUE(r.ok());
    EXPECT_FALSE(r.value().pod_resources.has_value());
    EXPECT_EQ(r.value().generation, 0);
}

TEST(PodModel, MalformedObjectsGiveAnErrorNamingThePath) {
    struct Case {
        const char* json;
        const char* path;
    } cases[] = {
        {R"([])", "pod"},
        {R"({"metadata":{}})", "spec"},
        {R"({"spec":{"containers":[]}})", "spec.containers"},
        {R"({"spec":{"containers":[{"name":"a","resources":{"requests":{"cpu":"lots"}}}]}})",
         "spec.containers[0].resources.requests.cpu"},
        {R"({"spec":{"containers":[{"name":"a","resources":{"limits":[]}}]}})", "spec.containers[0].resources.limits"},
        {R"({"spec":{"containers":[{"resources":{}}]}})", "spec.containers[0].name"},
        {R"({"metadata":{"generation":"x"},"spec":{"containers":[{"name":"a"}]}})", "metadata.generation"},
        {R"({"spec":{"containers":[{"name":"a"}]},"status":{"conditions":[7]}})", "status.conditions[0]"},
        {R"({"spec":{"containers":[{"name":"a"}]},"status":{"containerStatuses":[{"name":"a","resources":{"requests":{"memory":true}}}]}})",
         "status.containerStatuses[0].resources.requests.memory"},
    };
    for (const auto& c : cases) {
        auto r = decode_pod(boost::json::parse(c.json));
        ASSERT_FALSE(r.ok()) << c.json;
        EXPECT_EQ(r.error().code, "invalid_pod");
        EXPECT_EQ(r.error().message.rfind(c.path, 0), 0u) << r.error().message;
    }
}

}  // namespace
}  // namespace attune::core
