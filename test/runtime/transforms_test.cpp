#include <attune/kube/transforms.hpp>

#include <boost/json.hpp>

#include <gtest/gtest.h>

namespace attune::kube {
namespace {
namespace json = boost::json;

const char* full_pod = R"({
  "kind":"Pod","apiVersion":"v1",
  "metadata":{"name":"web-1","namespace":"shop","uid":"u1","resourceVersion":"99","generation":3,
    "labels":{"app":"web"},
    "annotations":{"kubectl.kubernetes.io/last-applied-configuration":"{...huge...}","attune.io/mode":"auto"},
    "ownerReferences":[{"apiVersion":"apps/v1","kind":"ReplicaSet","name":"web-abc","uid":"rs-uid","controller":true}],
    "managedFields":[{"manager":"kube-controller-manager","fieldsV1":{}}]},
  "spec":{"nodeName":"n1","restartPolicy":"Always","serviceAccountName":"default",
    "volumes":[{"name":"v"}],"tolerations":[{"key":"k"}],
    "resources":{"requests":{"cpu":"1"}},
    "containers":[{"name":"app","image":"nginx","env":[{"name":"A","value":"B"}],
       "resources":{"requests":{"cpu":"100m","memory":"64Mi"},"limits":{"memory":"128Mi"}},
       "resizePolicy":[{"resourceName":"cpu","restartPolicy":"NotRequired"}],
       "livenessProbe":{"httpGet":{"path":"/"}},"volumeMounts":[{"name":"v","mountPath":"/v"}]}],
    "initContainers":[{"name":"sidecar","image":"envoy","restartPolicy":"Always",
       "resources":{"requests":{"cpu":"50m"}}}]},
  "status":{"phase":"Running","qosClass":"Burstable","observedGeneration":3,"hostIP":"10.0.0.1","podIPs":[{"ip":"1.2.3.4"}],
    "conditions":[{"type":"PodResizePending","status":"True","reason":"Deferred","message":"m",
       "lastTransitionTime":"2026-01-01T00:00:00Z","observedGeneration":3}],
    "containerStatuses":[{"name":"app","image":"nginx","imageID":"sha","containerID":"c","ready":true,"restartCount":0,
       "state":{"running":{"startedAt":"x"}},"resources":{"requests":{"cpu":"100m"}},"allocatedResources":{"cpu":"100m"}}]}
})";

TEST(Transforms, PodKeepsOnlyWhatResizeAndIdleLogicRead) {
    json::value v = json::parse(full_pod);
    strip_pod(v.as_object());
    const auto& md = v.at("metadata").as_object();
    EXPECT_FALSE(md.contains("managedFields"));
    EXPECT_TRUE(md.contains("ownerReferences"));
    EXPECT_TRUE(md.contains("labels"));
    EXPECT_FALSE(md.at("annotations").as_object().contains("kubectl.kubernetes.io/last-applied-configuration"));
    EXPECT_TRUE(md.at("annotations").as_object().contains("attune.io/mode"));

    const auto& spec = v.at("spec").as_object();
    EXPECT_EQ(spec.size(), 4u);  // containers, initContainers, resources, nodeName
    EXPECT_EQ(spec.at("nodeName").as_string(), "n1");
    EXPECT_TRUE(spec.contains("resources"));
    const auto& c = spec.at("containers").as_array()[0].as_object();
    EXPECT_EQ(c.size(), 3u);
    EXPECT_TRUE(c.contains("resources"));
    EXPECT_TRUE(c.contains("resizePolicy"));
    EXPECT_EQ(spec.at("initContainers").as_array()[0].at("restartPolicy").as_string(), "Always");

    const auto& st = v.at("status").as_object();
    EXPECT_FALSE(st.contains("hostIP"));
    EXPECT_EQ(st.at("qosClass").as_string(), "Burstable");
    const auto& cond = st.at("conditions").as_array()[0].as_object();
    EXPECT_EQ(cond.at("reason").as_string(), "Deferred");
    EXPECT_EQ(cond.at("observedGeneration").as_int64(), 3);
    EXPECT_FALSE(cond.contains("lastTransitionTime"));
    const auto& cs = st.at("containerStatuses").as_array()[0].as_object();
    EXPECT_TRUE(cs.contains("resources"));
    EXPECT_TRUE(cs.contains("allocatedResources"));
    EXPECT_FALSE(cs.contains("image"));
    EXPECT_FALSE(cs.contains("state"));
}

TEST(Transforms, HpaScaledToZeroConditionSurvives) {
    json::value hpa = json::parse(R"({
      "kind":"HorizontalPodAutoscaler","apiVersion":"autoscaling/v2",
      "metadata":{"name":"web","namespace":"shop","resourceVersion":"5","managedFields":[{"manager":"x"}]},
      "spec":{"minReplicas":0,"maxReplicas":5,"scaleTargetRef":{"kind":"Deployment","name":"web"}},
      "status":{"currentReplicas":0,"desiredReplicas":0,
        "conditions":[{"type":"ScaledToZero","status":"True","reason":"ScaledToZero","lastTransitionTime":"t"},
                      {"type":"AbleToScale","status":"True"}]}})");
    strip_generic(hpa.as_object());
    EXPECT_FALSE(hpa.at("metadata").as_object().contains("managedFields"));
    const auto& conds = hpa.at("status").at("conditions").as_array();
    ASSERT_EQ(conds.size(), 2u);
    EXPECT_EQ(conds[0].at("type").as_string(), "ScaledToZero");
    EXPECT_EQ(conds[0].at("status").as_string(), "True");
    EXPECT_EQ(hpa.at("spec").at("minReplicas").as_int64(), 0);
}

TEST(Transforms, WorkloadTemplateIsStrippedLikeAPod) {
    json::value d = json::parse(R"({"kind":"Deployment","metadata":{"name":"web","managedFields":[]},
      "spec":{"replicas":0,"selector":{"matchLabels":{"app":"web"}},
        "template":{"metadata":{"labels":{"app":"web"}},"spec":{"volumes":[],"containers":[{"name":"a","image":"i","resources":{}}]}}},
      "status":{"replicas":0}})");
    strip_workload(d.as_object());
    EXPECT_EQ(d.at("spec").at("replicas").as_int64(), 0);
    const auto& tspec = d.at("spec").at("template").at("spec").as_object();
    EXPECT_FALSE(tspec.contains("volumes"));
    EXPECT_FALSE(tspec.at("containers").as_array()[0].as_object().contains("image"));
    EXPECT_TRUE(d.at("status").as_object().contains("replicas"));
}

TEST(Transforms, CronJobTemplateIsStrippedAsAPodSpec) {
    json::value c = json::parse(R"({"kind":"CronJob","metadata":{"name":"c","managedFields":[{}]},
      "spec":{"schedule":"* * * * *","jobTemplate":{"spec":{"template":{"spec":{"volumes":[{}],
        "containers":[{"name":"job","image":"x","resources":{"requests":{"cpu":"1"}}}]}}}}}})");
    strip_workload(c.as_object());
    EXPECT_FALSE(c.at("metadata").as_object().contains("managedFields"));
    EXPECT_EQ(c.at("spec").at("schedule").as_string(), "* * * * *");
    const auto& tspec = c.at("spec").at("jobTemplate").at("spec").at("template").at("spec").as_object();
    EXPECT_FALSE(tspec.contains("volumes"));
    EXPECT_FALSE(tspec.at("containers").as_array()[0].as_object().contains("image"));
    EXPECT_TRUE(tspec.at("containers").as_array()[0].as_object().contains("resources"));
}

TEST(Transforms, NodeKeepsDeclaredFeatures) {
    json::value n = json::parse(R"({"kind":"Node","metadata":{"name":"n1"},"spec":{"podCIDR":"x"},
      "status":{"declaredFeatures":["InPlacePodLevelResourcesVerticalScaling"],"images":[{"names":["a"]}],
        "capacity":{"cpu":"4"},"nodeInfo":{"kubeletVersion":"v1.36.0","machineID":"m"}}})");
    strip_node(n.as_object());
    EXPECT_FALSE(n.as_object().contains("spec"));
    EXPECT_EQ(n.at("status").at("declaredFeatures").as_array().size(), 1u);
    EXPECT_FALSE(n.at("status").as_object().contains("images"));
    EXPECT_FALSE(n.at("status").at("nodeInfo").as_object().contains("machineID"));
}

TEST(Transforms, TolerateUnexpectedShapes) {
    for (const char* s : {R"({})", R"({"metadata":[],"spec":"x","status":7})",
                          R"({"spec":{"containers":[1,"x",null]},"status":{"conditions":{},"containerStatuses":[[]]}})"}) {
        json::value v = json::parse(s);
        strip_pod(v.as_object());
        strip_workload(v.as_object());
        strip_node(v.as_object());
    }
    SUCCEED();
}

}  // namespace
}  // namespace attune::kube
