#include <attune/kube/transforms.hpp>

#include <attune/core/model/idle.hpp>

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
       "state":{"running":{"startedAt":"x"}},"resources":{"requests":{"cpu":"100m"}},"allocatedResources":{"cpu":"100m"},
       "lastState":{"terminated":{"reason":"OOMKilled","exitCode":137,"startedAt":"s","finishedAt":"2026-01-01T00:00:00Z","containerID":"c0"}}}]}
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
    EXPECT_EQ(cs.at("state"), json::parse(R"({"running":{"startedAt":"x"}})"));
    // The safety monitor's OOM evidence survives, and nothing else of it.
    const auto& term = cs.at("lastState").at("terminated").as_object();
    EXPECT_EQ(term.at("reason").as_string(), "OOMKilled");
    EXPECT_EQ(term.at("finishedAt").as_string(), "2026-01-01T00:00:00Z");
    EXPECT_EQ(term.size(), 3u);  // reason, finishedAt, exitCode
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

// A ScaledToZero=True condition survives the HPA strip (the idle rule reads
// it).
TEST(Transforms, HpaScaledToZeroConditionSurvivesStrip) {
    json::value hpa = json::parse(R"({
      "metadata": {"name": "web", "namespace": "shop", "managedFields": [{"manager": "kube-controller-manager"}]},
      "spec": {"scaleTargetRef": {"apiVersion": "apps/v1", "kind": "Deployment", "name": "web"}, "minReplicas": 0, "maxReplicas": 5},
      "status": {"currentMetrics": [{"type": "External"}],
                 "conditions": [{"type": "ScaledToZero", "status": "True", "reason": "ScaledToZero", "message": "idle"}]}})");
    strip_hpa(hpa.as_object());
    EXPECT_FALSE(hpa.at("metadata").as_object().contains("managedFields"));
    EXPECT_FALSE(hpa.at("status").as_object().contains("currentMetrics"));
    auto r = core::decode_hpa(hpa);
    ASSERT_TRUE(r.ok()) << r.error().message;
    const core::WorkloadView web{"Deployment", "web", 0};
    EXPECT_EQ(core::classify_workload_idle(web, &r.value()), core::IdleKind::HPAScaledToZero);
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

// Server data of an unexpected shape is passed over, never thrown on: each
// transform returns, and what it could not read is left as it was.
TEST(Transforms, UnexpectedShapesAreLeftAloneWithoutThrowing) {
    for (const char* s : {R"({})", R"({"metadata":[],"spec":"x","status":7})",
                          R"({"spec":{"containers":[1,"x",null]},"status":{"conditions":{},"containerStatuses":[[]]}})"}) {
        json::value v = json::parse(s);
        auto& o = v.as_object();
        EXPECT_NO_THROW(strip_pod(o)) << s;
        EXPECT_NO_THROW(strip_workload(o)) << s;
        EXPECT_NO_THROW(strip_hpa(o)) << s;
        EXPECT_NO_THROW(strip_replicaset(o)) << s;
        EXPECT_NO_THROW(strip_node(o)) << s;
        EXPECT_NO_THROW(strip_namespace(o)) << s;
        EXPECT_TRUE(v.is_object()) << s;
    }
    json::value odd = json::parse(R"({"metadata":[],"spec":"x","status":7})");
    strip_pod(odd.as_object());
    EXPECT_EQ(odd.at("status"), 7) << "a status that is not an object is left as it was";
}

TEST(Transforms, PodKeepsTheTerminationReasonAnOomRevertReads) {
    json::value p = json::parse(R"({"metadata":{"name":"p","finalizers":["x"],"generateName":"p-","deletionTimestamp":"t"},
      "status":{"containerStatuses":[{"name":"app","restartCount":2,"image":"i",
        "state":{"waiting":{"reason":"CrashLoopBackOff","message":"back-off 10s"}},
        "lastState":{"terminated":{"reason":"OOMKilled","exitCode":137,"finishedAt":"t2","startedAt":"t1","containerID":"c"}}}]}})");
    strip_pod(p.as_object());
    const auto& cs = p.at("status").at("containerStatuses").as_array()[0].as_object();
    EXPECT_EQ(cs.at("lastState"), json::parse(R"({"terminated":{"reason":"OOMKilled","exitCode":137,"finishedAt":"t2"}})"));
    EXPECT_EQ(cs.at("state"), json::parse(R"({"waiting":{"reason":"CrashLoopBackOff"}})"));
    EXPECT_EQ(cs.at("restartCount").as_int64(), 2);
    const auto& md = p.at("metadata").as_object();
    EXPECT_TRUE(md.contains("deletionTimestamp"));
    EXPECT_FALSE(md.contains("finalizers"));
    EXPECT_FALSE(md.contains("generateName"));
}

TEST(Transforms, WorkloadKeepsReplicasSelectorTemplateResourcesAndRolloutState) {
    json::value d = json::parse(R"({"apiVersion":"apps/v1","kind":"Deployment",
      "metadata":{"name":"web","namespace":"ns","uid":"u","resourceVersion":"5","generation":7,"labels":{"app":"web"},
        "annotations":{"deployment.kubernetes.io/revision":"3","attune.io/mode":"auto"}},
      "spec":{"replicas":3,"selector":{"matchLabels":{"app":"web"}},"strategy":{"type":"RollingUpdate"},"revisionHistoryLimit":10,
        "template":{"metadata":{"labels":{"app":"web"},"annotations":{"checksum/config":"abc","attune.io/x":"y"},"creationTimestamp":null},
          "spec":{"containers":[{"name":"app","image":"i","env":[{"name":"A","value":"B"}],"resources":{"requests":{"cpu":"1"}}}]}}},
      "status":{"replicas":3,"readyReplicas":2,"updatedReplicas":1,"observedGeneration":6,
        "conditions":[{"type":"Progressing","status":"True","reason":"ReplicaSetUpdated","message":"m","lastUpdateTime":"t"}]}})");
    strip_workload(d.as_object());
    EXPECT_EQ(d.at("apiVersion").as_string(), "apps/v1");
    EXPECT_EQ(d.at("metadata").at("generation").as_int64(), 7);
    EXPECT_EQ(d.at("metadata").at("annotations"), json::parse(R"({"attune.io/mode":"auto"})"));
    EXPECT_EQ(d.at("spec").as_object().size(), 3u);  // replicas, selector, template
    EXPECT_EQ(d.at("spec").at("template").at("metadata"), json::parse(R"({"labels":{"app":"web"},"annotations":{"attune.io/x":"y"}})"));
    EXPECT_EQ(d.at("spec").at("template").at("spec").at("containers").as_array()[0],
              json::parse(R"({"name":"app","resources":{"requests":{"cpu":"1"}}})"));
    EXPECT_EQ(d.at("status"), json::parse(R"({"replicas":3,"readyReplicas":2,"updatedReplicas":1,"observedGeneration":6,
        "conditions":[{"type":"Progressing","status":"True","reason":"ReplicaSetUpdated"}]})"));
}

TEST(Transforms, CronJobKeepsItsJobTemplateStrippedLikeAPod) {
    json::value cj = json::parse(R"({"kind":"CronJob","metadata":{"name":"nightly"},
      "spec":{"schedule":"0 3 * * *","concurrencyPolicy":"Forbid","suspend":false,
        "jobTemplate":{"metadata":{"labels":{"a":"b"}},"spec":{"backoffLimit":2,"template":{"metadata":{"labels":{"job":"n"}},
          "spec":{"restartPolicy":"Never","containers":[{"name":"c","image":"i","env":[],"resources":{"requests":{"cpu":"1"}}}]}}}}}})");
    strip_workload(cj.as_object());
    EXPECT_EQ(cj.at("spec"), json::parse(R"({"schedule":"0 3 * * *","suspend":false,"jobTemplate":{"spec":{
        "template":{"metadata":{"labels":{"job":"n"}},"spec":{"containers":[{"name":"c","resources":{"requests":{"cpu":"1"}}}]}}}}})"));
}

TEST(Transforms, ReplicaSetKeepsOwnershipLabelsAndReplicasOnly) {
    json::value rs = json::parse(R"({"kind":"ReplicaSet","metadata":{"name":"web-1","namespace":"ns","uid":"u","labels":{"app":"web"},
        "annotations":{"deployment.kubernetes.io/revision":"3"},
        "ownerReferences":[{"apiVersion":"apps/v1","kind":"Deployment","name":"web","uid":"d","controller":true,"blockOwnerDeletion":true}]},
      "spec":{"replicas":2,"selector":{},"template":{"spec":{"containers":[{"name":"a"}]}}},"status":{"replicas":2}})");
    strip_replicaset(rs.as_object());
    EXPECT_FALSE(rs.as_object().contains("status"));
    EXPECT_EQ(rs.at("spec"), json::parse(R"({"replicas":2})"));
    EXPECT_FALSE(rs.at("metadata").as_object().contains("annotations"));
    EXPECT_EQ(rs.at("metadata").at("ownerReferences").as_array()[0],
              json::parse(R"({"apiVersion":"apps/v1","kind":"Deployment","name":"web","uid":"d","controller":true})"));
}

TEST(Transforms, NodeKeepsPressureConditionsVersionsAndRoom) {
    json::value n = json::parse(R"({"kind":"Node","metadata":{"name":"n1","labels":{"zone":"a"},"annotations":{"big":"x"}},
      "status":{"capacity":{"cpu":"4"},"allocatable":{"cpu":"3"},"addresses":[{"type":"InternalIP"}],
        "conditions":[{"type":"Ready","status":"True","reason":"KubeletReady","lastHeartbeatTime":"t"},
          {"type":"MemoryPressure","status":"False","reason":"r"},{"type":"NetworkUnavailable","status":"False"},
          {"type":"DiskPressure","status":"False"},{"type":"PIDPressure","status":"False"}],
        "nodeInfo":{"kernelVersion":"6.1","containerRuntimeVersion":"containerd://2.1","kubeletVersion":"v1.36.3","osImage":"x"}}})");
    strip_node(n.as_object());
    EXPECT_FALSE(n.at("metadata").as_object().contains("annotations"));
    EXPECT_EQ(n.at("status").at("conditions").as_array().size(), 4u);
    EXPECT_FALSE(n.at("status").at("conditions").as_array()[0].as_object().contains("lastHeartbeatTime"));
    EXPECT_EQ(n.at("status").at("nodeInfo").as_object().size(), 3u);
    EXPECT_FALSE(n.at("status").as_object().contains("addresses"));
    EXPECT_EQ(n.at("status").at("allocatable").at("cpu").as_string(), "3");
}

TEST(Transforms, NamespaceKeepsLabelsAndAnnotations) {
    json::value ns = json::parse(R"({"kind":"Namespace","metadata":{"name":"shop","labels":{"a":"b"},
        "annotations":{"attune.io/frozen":"true","kubectl.kubernetes.io/last-applied-configuration":"{}"},"managedFields":[]},
      "spec":{"finalizers":["kubernetes"]},"status":{"phase":"Active"}})");
    strip_namespace(ns.as_object());
    EXPECT_EQ(ns, json::parse(R"({"kind":"Namespace","metadata":{"name":"shop","labels":{"a":"b"},"annotations":{"attune.io/frozen":"true"}}})"));
}

}  // namespace
}  // namespace attune::kube
