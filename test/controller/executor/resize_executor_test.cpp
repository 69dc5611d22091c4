// The executor's passes against a scripted apiserver (the runtime's loopback
// TLS test server), with informer caches filled by hand and a store entry:
// the idle rule (an idle workload gets no /resize and
// no eviction), the write path (originals first, then ONE /resize; 409
// re-read, re-plan, retry; any other 4xx never retried blindly), and a
// resize that counts only once the kubelet reports it Applied.
#include <attune/controller/reconcile.hpp>
#include <attune/controller/executor/resize_executor.hpp>

#include <attune/controller/recommendation_store.hpp>
#include <attune/core/policy/policy.hpp>
#include <attune/core/lifecycle/selection.hpp>

#include "../runtime/run_coro.hpp"
#include "../runtime/scripted_tls_server.hpp"
#include "../runtime/test_certs.hpp"

#include <boost/json/parse.hpp>
#include <boost/json/serialize.hpp>

#include <prometheus/registry.h>

#include <gtest/gtest.h>

namespace attune::controller {
namespace {
namespace asio = boost::asio;
namespace json = boost::json;
using kube::ObjectCache;
using kube::WatchEventType;
using test::ScriptedReply;

// The live pod: over-provisioned (cpu 500m, memory 256Mi), Running, applied.
std::string pod_json(const std::string& name, const std::string& spec_cpu = "500m",
                     const std::string& status_cpu = "500m", int generation = 1, const std::string& extra_status = "") {
    static int version = 100;
    return R"({"apiVersion":"v1","kind":"Pod","metadata":{"namespace":"shop","name":")" + name + R"(","uid":")" + name +
           R"(-uid","resourceVersion":")" + std::to_string(++version) + R"(","generation":)" + std::to_string(generation) +
           R"(,"ownerReferences":[{"apiVersion":"apps/v1","kind":"ReplicaSet","name":"web-rs","uid":"web-rs-uid","controller":true}]},
      "spec":{"nodeName":"n1","containers":[{"name":"app","resources":{"requests":{"cpu":")" + spec_cpu +
           R"(","memory":"256Mi"}}}]},
      "status":{"phase":"Running","qosClass":"Burstable","observedGeneration":)" + std::to_string(generation) +
           extra_status + R"(,"conditions":[{"type":"Ready","status":"True"}],
        "containerStatuses":[{"name":"app","ready":true,"restartCount":0,"resources":{"requests":{"cpu":")" +
           status_cpu + R"(","memory":"256Mi"}}}]}})";
}

std::string deployment_json(int replicas) {
    return R"({"apiVersion":"apps/v1","kind":"Deployment","metadata":{"namespace":"shop","name":"web","uid":"web-uid",
      "resourceVersion":")" + std::to_string(replicas + 10) + R"(","generation":1},
      "spec":{"replicas":)" + std::to_string(replicas) +
           R"(,"template":{"spec":{"containers":[{"name":"app","resources":{"requests":{"cpu":"500m","memory":"256Mi"}}}]}}},
      "status":{"observedGeneration":1,"replicas":1,"updatedReplicas":1,"readyReplicas":1,"availableReplicas":1}})";
}

constexpr const char* kPolicy = R"({"apiVersion":"attune.io/v1alpha1","kind":"AttunePolicy",
  "metadata":{"namespace":"shop","name":"web","uid":"policy-uid","generation":1},
  "spec":{"targetRef":{"kind":"Deployment","name":"web"},"cpu":{},"memory":{},
          "metricsSource":{"manual":{"containers":[{"name":"app","resources":{"requests":{"cpu":"200m"}}}]}},
          "updateStrategy":{"type":"Auto","cooldown":"1m","resizeMethod":"InPlaceOrRecreate"}}})";

core::Capabilities caps_136() {
    core::Capabilities c;
    c.major = 1;
    c.minor = 36;
    c.pods_resize = true;
    c.in_place_pod_level_resources = true;
    c.allow_in_place_memory_limit_decrease = true;
    c.in_place_sidecar_resize = true;
    return c;
}

struct Harness {
    asio::io_context io;
    test::ScriptedTlsServer server{io, test::pki().server_cert_pem, test::pki().server_key_pem};
    std::unique_ptr<kube::Client> client;
    ObjectCache deployments, statefulsets, replicasets, daemonsets, jobs, cronjobs, hpas{kube::strip_hpa}, policies;
    ObjectCache pods{kube::strip_pod}, nodes{kube::strip_node}, namespaces, limit_ranges, quotas;
    RecommendationStore store;
    prometheus::Registry registry;
    ExecutorMetrics metrics{registry};
    std::unique_ptr<ResizeExecutor> exec;
    const ObjectKey key{"shop", "Deployment", "web"};

    std::string policy_json;

    explicit Harness(std::string policy = kPolicy) : policy_json(std::move(policy)) {
        controller::index_hpas(hpas);  // as the manager's informer catalog sets them up
        policy::index_policies(policies);
        kube::RestConfig rc;
        rc.host = "127.0.0.1";
        rc.port = std::to_string(server.port());
        rc.tls.ca_pem = test::pki().ca_pem;
        kube::ClientSettings s;
        s.retry.max_retries = 0;
        client = std::make_unique<kube::Client>(io.get_executor(), rc, s);
        ExecutorCaches c;
        c.views.deployments = &deployments;
        c.views.statefulsets = &statefulsets;
        c.views.replicasets = &replicasets;
        c.views.daemonsets = &daemonsets;
        c.views.jobs = &jobs;
        c.views.cronjobs = &cronjobs;
        c.views.hpas = &hpas;
        c.views.policies = &policies;
        c.views.pods = &pods;
        decode_nodes(nodes);
        c.nodes = &nodes;
        c.namespaces = &namespaces;
        c.limit_ranges = &limit_ranges;
        c.resource_quotas = &quotas;
        ExecutorOptions opts;
        exec = std::make_unique<ResizeExecutor>(io.get_executor(), *client, nullptr, metrics, c, store, opts);
        exec->set_capabilities(caps_136());

        add(deployments, deployment_json(1));
        add(replicasets, R"({"metadata":{"namespace":"shop","name":"web-rs","uid":"web-rs-uid",
          "ownerReferences":[{"apiVersion":"apps/v1","kind":"Deployment","name":"web","uid":"web-uid","controller":true}]}})");
        add(policies, policy_json);
        add(namespaces, R"({"metadata":{"name":"shop"}})");
        add(nodes, R"({"metadata":{"name":"n1"},"status":{"allocatable":{"cpu":"4","memory":"16Gi"},
          "conditions":[{"type":"Ready","status":"True"}]}})");
        put_recommendation("200m");
    }

    static void add(ObjectCache& c, const std::string& j) { c.apply(WatchEventType::Added, json::parse(j)); }
    void update_pod(const std::string& j) {
        if (auto d = pods.apply(WatchEventType::Modified, json::parse(j))) exec->on_pod_change()(*d);
    }

    void put_recommendation(const char* cpu) {
        auto policy = core::decode_attune_policy(json::parse(policy_json));
        ASSERT_TRUE(policy.ok()) << policy.error().message;
        StoredRecommendation r;
        r.workload = key;
        r.workload_uid = "web-uid";
        r.policy = "web";
        r.effective = std::make_shared<const core::EffectivePolicy>(core::merge_effective_policy(policy.value(), {}, {}));
        core::ContainerRecommendation c;
        c.name = "app";
        c.current.cpu_request = core::Quantity::parse("500m").value();
        c.current.memory_request = core::Quantity::parse("256Mi").value();
        c.recommended = c.current;
        c.recommended.cpu_request = core::Quantity::parse(cpu).value();
        r.recommendation.containers.push_back(c);
        r.source = "manual";
        store.put(std::move(r));
    }

    void pass() { test::run_coro(io, exec->process(key)); }
    std::vector<test::RecordedRequest> requests() const { return server.requests(); }
};

std::string path_of(const test::RecordedRequest& r) { return r.target.substr(0, r.target.find('?')); }

// An idle workload, HPA-held or manual
// zero, never reaches the executor: no /resize, no eviction.
TEST(ResizeExecutor, IdleWorkloadGetsNoResizeAndNoEviction) {
    for (const char* how : {"manual zero", "HPA ScaledToZero"}) {
        Harness h;
        if (std::string(how) == "manual zero") {
            h.deployments.apply(WatchEventType::Modified, json::parse(deployment_json(0)));
        } else {
            h.add(h.hpas, R"({"metadata":{"namespace":"shop","name":"web"},"spec":{"scaleTargetRef":{"apiVersion":"apps/v1",
              "kind":"Deployment","name":"web"},"minReplicas":0,"maxReplicas":3,"metrics":[{"type":"External","external":
              {"metric":{"name":"q"},"target":{"type":"AverageValue","averageValue":"1"}}}]},
              "status":{"conditions":[{"type":"ScaledToZero","status":"True"}]}})");
        }
        // A leftover Running pod, far over its recommendation, and an
        // Infeasible one an InPlaceOrRecreate policy would otherwise evict.
        h.add(h.pods, pod_json("web-1"));
        h.add(h.pods, R"({"apiVersion":"v1","kind":"Pod","metadata":{"namespace":"shop","name":"web-2","uid":"web-2-uid",
          "generation":2,"labels":{"attune.io/tracked":"true"},
          "ownerReferences":[{"apiVersion":"apps/v1","kind":"ReplicaSet","name":"web-rs","uid":"web-rs-uid","controller":true}]},
          "spec":{"nodeName":"n1","containers":[{"name":"app","resources":{"requests":{"cpu":"9","memory":"256Mi"}}}]},
          "status":{"phase":"Running","qosClass":"Burstable","observedGeneration":2,
            "conditions":[{"type":"Ready","status":"True"},
                          {"type":"PodResizePending","status":"True","reason":"Infeasible","observedGeneration":2}],
            "containerStatuses":[{"name":"app","ready":true,"restartCount":0,
              "resources":{"requests":{"cpu":"500m","memory":"256Mi"}}}]}})");
        h.pass();
        EXPECT_TRUE(h.requests().empty()) << how << ": the idle workload got " << h.requests().size()
                                          << " request(s), the first " << (h.requests().empty() ? "" : h.requests()[0].target);
    }
}

// The same workload, active: the negative control of the test above.
TEST(ResizeExecutor, ActiveWorkloadWritesTheOriginalsThenOneResizePatch) {
    Harness h;
    h.add(h.pods, pod_json("web-1"));
    h.server.script(ScriptedReply::http(200, pod_json("web-1")));                     // originals
    h.server.script(ScriptedReply::http(200, pod_json("web-1", "200m", "500m", 2)));  // /resize
    h.pass();
    const auto r = h.requests();
    ASSERT_EQ(r.size(), 2u);
    EXPECT_EQ(r[0].method, "PATCH");
    EXPECT_EQ(path_of(r[0]), "/api/v1/namespaces/shop/pods/web-1");
    EXPECT_NE(r[0].head.find("application/merge-patch+json"), std::string::npos);
    const auto ann = json::parse(r[0].body).at("metadata").at("annotations");
    EXPECT_EQ(ann.at("attune.io/original-cpu-request.app").as_string(), "500m");
    EXPECT_EQ(ann.at("attune.io/original-restart-count.app").as_string(), "0");
    EXPECT_EQ(r[1].method, "PATCH");
    EXPECT_EQ(path_of(r[1]), "/api/v1/namespaces/shop/pods/web-1/resize");
    EXPECT_NE(r[1].head.find("application/strategic-merge-patch+json"), std::string::npos);
    const auto body = json::parse(r[1].body);
    EXPECT_EQ(body.at("spec").at("containers").at(0).at("resources").at("requests").at("cpu").as_string(), "200m");
    EXPECT_EQ(h.exec->in_flight(), 1u);

    // The PATCH is not success: nothing Applied, nothing in the history yet.
    const auto* book = h.exec->ledger().find("shop", "web");
    ASSERT_NE(book, nullptr);
    EXPECT_TRUE(book->history.empty());

    // The kubelet reports it at the new generation: Applied, one Success.
    h.update_pod(pod_json("web-1", "200m", "200m", 2));
    h.server.script(ScriptedReply::http(200, "{}"));  // the cooldown anchor on the policy
    h.pass();
    ASSERT_EQ(book->history.size(), 1u);
    EXPECT_EQ(core::history_result_name(book->history[0].result), "Success");
    EXPECT_EQ(book->history[0].from, "500m");
    EXPECT_EQ(book->history[0].to, "200m");
    EXPECT_EQ(h.exec->in_flight(), 0u);
    const auto r2 = h.requests();
    ASSERT_EQ(r2.size(), 3u) << "no second /resize for an Applied pod";
    EXPECT_EQ(path_of(r2[2]), "/apis/attune.io/v1alpha1/namespaces/shop/attunepolicies/web");
    EXPECT_NE(json::parse(r2[2].body).at("metadata").at("annotations").as_object().find("attune.io/last-resize-time"),
              nullptr);
}

TEST(ResizeExecutor, AConflictReReadsReplansAndRetries) {
    Harness h;
    h.add(h.pods, pod_json("web-1"));
    h.server.script(ScriptedReply::http(200, pod_json("web-1")));
    h.server.script(ScriptedReply::status(409, "Conflict", "the object has been modified"));
    h.server.script(ScriptedReply::http(200, pod_json("web-1")));                     // the re-read
    h.server.script(ScriptedReply::http(200, pod_json("web-1", "200m", "500m", 2)));  // the retried /resize
    h.pass();
    const auto r = h.requests();
    ASSERT_EQ(r.size(), 4u);
    EXPECT_EQ(path_of(r[1]), "/api/v1/namespaces/shop/pods/web-1/resize");
    EXPECT_EQ(r[2].method, "GET");
    EXPECT_EQ(path_of(r[3]), "/api/v1/namespaces/shop/pods/web-1/resize");
    EXPECT_EQ(h.exec->in_flight(), 1u);
}

TEST(ResizeExecutor, AnotherClientErrorIsNeverRetriedBlindly) {
    Harness h;
    h.add(h.pods, pod_json("web-1"));
    h.server.script(ScriptedReply::http(200, pod_json("web-1")));
    h.server.script(
        ScriptedReply::status(422, "Invalid", "spec.resources: must be greater than or equal to aggregate"));
    h.pass();
    ASSERT_EQ(h.requests().size(), 2u);
    EXPECT_EQ(h.exec->in_flight(), 0u);
    const auto* book = h.exec->ledger().find("shop", "web");
    ASSERT_NE(book, nullptr);
    ASSERT_EQ(book->history.size(), 1u);
    EXPECT_EQ(book->history[0].reason, "Invalid");
    h.pass();
    EXPECT_EQ(h.requests().size(), 2u) << "the same recommendation is not sent again";
    // A new recommendation may be.
    h.put_recommendation("300m");
    h.server.script(ScriptedReply::http(200, pod_json("web-1")));
    h.server.script(ScriptedReply::http(200, pod_json("web-1", "300m", "500m", 2)));
    h.pass();
    EXPECT_EQ(h.requests().size(), 4u);
}

// The safety monitor: a resized pod OOMKilled after its resize goes back to
// the originals its own annotations hold (so a fresh executor, as after a
// manager restart, does it): one /resize, no tracking patch.
TEST(ResizeExecutor, ARevertComesFromTheOriginalsOnThePod) {
    Harness h;
    h.add(h.pods, R"({"apiVersion":"v1","kind":"Pod","metadata":{"namespace":"shop","name":"web-1","uid":"web-1-uid",
      "resourceVersion":"7","generation":2,"labels":{"attune.io/tracked":"true"},
      "annotations":{"attune.io/original-cpu-request.app":"500m","attune.io/original-memory-request.app":"256Mi",
        "attune.io/original-restart-count.app":"0","attune.io/resized-at":"2026-12-01T10:00:00Z",
        "attune.io/resized-workload":"web","attune.io/resized-containers":"app"},
      "ownerReferences":[{"apiVersion":"apps/v1","kind":"ReplicaSet","name":"web-rs","uid":"web-rs-uid","controller":true}]},
      "spec":{"nodeName":"n1","containers":[{"name":"app","resources":{"requests":{"cpu":"200m","memory":"256Mi"}}}]},
      "status":{"phase":"Running","qosClass":"Burstable","observedGeneration":2,"conditions":[{"type":"Ready","status":"True"}],
        "containerStatuses":[{"name":"app","ready":true,"restartCount":1,
          "lastState":{"terminated":{"reason":"OOMKilled","exitCode":137,"finishedAt":"2099-01-01T00:00:00Z"}},
          "resources":{"requests":{"cpu":"200m","memory":"256Mi"}}}]}})");
    h.server.script(ScriptedReply::http(200, pod_json("web-1", "500m", "200m", 3)));  // the revert
    h.pass();
    const auto r = h.requests();
    ASSERT_EQ(r.size(), 1u);
    EXPECT_EQ(path_of(r[0]), "/api/v1/namespaces/shop/pods/web-1/resize");
    EXPECT_EQ(json::parse(r[0].body).at("spec").at("containers").at(0).at("resources").at("requests").at("cpu").as_string(),
              "500m");
    const auto* book = h.exec->ledger().find("shop", "web");
    ASSERT_NE(book, nullptr);
    ASSERT_EQ(book->history.size(), 1u);
    EXPECT_EQ(core::history_result_name(book->history[0].result), "Reverted");
    EXPECT_EQ(book->history[0].reason, "oomkill");
}

// ---- updateStrategy.type Canary: the lifecycle through the same write path ----

// Three pods, steps 33/100 (1 pod, then all 3), one at a time, no pause.
constexpr const char* kCanaryPolicy = R"({"apiVersion":"attune.io/v1alpha1","kind":"AttunePolicy",
  "metadata":{"namespace":"shop","name":"web","uid":"policy-uid","generation":1},
  "spec":{"targetRef":{"kind":"Deployment","name":"web"},"cpu":{},"memory":{},
          "metricsSource":{"manual":{"containers":[{"name":"app","resources":{"requests":{"cpu":"200m"}}}]}},
          "updateStrategy":{"type":"Canary","cooldown":"1m"},
          "lifecycle":{"steps":[{"percent":33},{"percent":100}],"persistence":{"mode":"Disabled"}}}})";

// The pod names in StableHash order (workload UID + pod UID), as the core orders them.
std::vector<std::string> stable_order(const std::vector<std::string>& names) {
    std::vector<std::string> uids;
    for (const auto& n : names) uids.push_back(n + "-uid");
    std::vector<std::string> out;
    for (auto i : core::selection_order("web-uid", uids)) out.push_back(names[i]);
    return out;
}

const core::LifecycleStatusEntry* entry_of(const ResizeExecutor& e) {
    const auto* book = e.ledger().find("shop", "web");
    return book ? ResizeLedger::lifecycle_entry(*book, "Deployment", "web") : nullptr;
}

// Step 1 resizes exactly the first pod of the StableHash order (originals,
// then one /resize), step 2 only once that pod is Applied, and then the next
// pod, one at a time: the canary goes through the executor's one write path.
TEST(ResizeExecutor, CanaryResizesTheFirstStepsPodsInStableHashOrderThenTheNext) {
    Harness h(kCanaryPolicy);
    for (const char* n : {"web-1", "web-2", "web-3"}) h.add(h.pods, pod_json(n));
    const auto order = stable_order({"web-1", "web-2", "web-3"});
    h.server.script(ScriptedReply::http(200, pod_json(order[0])));                     // originals
    h.server.script(ScriptedReply::http(200, pod_json(order[0], "200m", "500m", 2)));  // /resize
    h.pass();
    auto r = h.requests();
    ASSERT_EQ(r.size(), 2u);
    EXPECT_EQ(path_of(r[1]), "/api/v1/namespaces/shop/pods/" + order[0] + "/resize");
    EXPECT_EQ(json::parse(r[1].body).at("spec").at("containers").at(0).at("resources").at("requests").at("cpu").as_string(),
              "200m");
    const auto* e = entry_of(*h.exec);
    ASSERT_NE(e, nullptr);
    EXPECT_EQ(e->phase, core::LifecyclePhase::ValidationRunning);
    EXPECT_EQ(e->step, 0u);
    ASSERT_EQ(e->pods.size(), 1u);
    EXPECT_EQ(e->pods[0].name, order[0]);

    // Still InProgress: nothing more is sent.
    h.pass();
    EXPECT_EQ(h.requests().size(), 2u);

    // Applied: step 1 passes, step 2 resizes the next pod (maxConcurrentResizes 1).
    h.update_pod(pod_json(order[0], "200m", "200m", 2));
    h.server.script(ScriptedReply::http(200, pod_json(order[1])));
    h.server.script(ScriptedReply::http(200, pod_json(order[1], "200m", "500m", 2)));
    h.pass();
    r = h.requests();
    ASSERT_EQ(r.size(), 4u);
    EXPECT_EQ(path_of(r[3]), "/api/v1/namespaces/shop/pods/" + order[1] + "/resize");
    e = entry_of(*h.exec);
    ASSERT_NE(e, nullptr);
    EXPECT_EQ(e->step, 1u);
    ASSERT_EQ(e->pods.size(), 3u);
    EXPECT_EQ(e->pods[0].name, order[0]);
    EXPECT_EQ(e->pods[0].state, core::ResizeState::Applied);
}

// A restart: a fresh executor whose policy status holds the entry (as the
// aggregator wrote it) resumes at step 2 and never resizes step 1's pod again.
TEST(ResizeExecutor, CanaryResumesFromThePolicyStatusAfterARestart) {
    const auto order = stable_order({"web-1", "web-2", "web-3"});
    json::value saved;
    {
        Harness h(kCanaryPolicy);
        for (const char* n : {"web-1", "web-2", "web-3"}) h.add(h.pods, pod_json(n));
        h.server.script(ScriptedReply::http(200, pod_json(order[0])));
        h.server.script(ScriptedReply::http(200, pod_json(order[0], "200m", "500m", 2)));
        h.pass();
        ASSERT_NE(entry_of(*h.exec), nullptr);
        saved = core::encode_lifecycle_status({*entry_of(*h.exec)});
    }
    auto policy = json::parse(kCanaryPolicy);
    policy.as_object()["status"] = json::object{{"lifecycle", saved}};
    Harness h(json::serialize(policy));
    // The step-1 pod is Applied now (the kubelet finished while we were down).
    for (const auto& n : order) h.add(h.pods, n == order[0] ? pod_json(n, "200m", "200m", 2) : pod_json(n));
    h.server.script(ScriptedReply::http(200, pod_json(order[1])));
    h.server.script(ScriptedReply::http(200, pod_json(order[1], "200m", "500m", 2)));
    h.pass();
    const auto r = h.requests();
    ASSERT_EQ(r.size(), 2u);
    EXPECT_EQ(path_of(r[1]), "/api/v1/namespaces/shop/pods/" + order[1] + "/resize");
    const auto* e = entry_of(*h.exec);
    ASSERT_NE(e, nullptr);
    EXPECT_EQ(e->step, 1u);
    EXPECT_EQ(e->attempt, 1) << "the same attempt goes on";
}

// A BestEffort pod: nothing is sent, the policy gets ResizeBlocked with
// InPlaceResizeWouldChangeQoSClass through the ledger.
TEST(ResizeExecutor, CanaryNeverPatchesAPodWhoseQosClassWouldChange) {
    Harness h(kCanaryPolicy);
    h.add(h.pods, R"({"apiVersion":"v1","kind":"Pod","metadata":{"namespace":"shop","name":"web-1","uid":"web-1-uid",
      "resourceVersion":"7","generation":1,
      "ownerReferences":[{"apiVersion":"apps/v1","kind":"ReplicaSet","name":"web-rs","uid":"web-rs-uid","controller":true}]},
      "spec":{"nodeName":"n1","containers":[{"name":"app"}]},
      "status":{"phase":"Running","qosClass":"BestEffort","observedGeneration":1,"conditions":[{"type":"Ready","status":"True"}],
        "containerStatuses":[{"name":"app","ready":true,"restartCount":0}]}})");
    h.pass();
    EXPECT_TRUE(h.requests().empty()) << h.requests()[0].target;
    const auto* book = h.exec->ledger().find("shop", "web");
    ASSERT_NE(book, nullptr);
    const auto block = ResizeLedger::lifecycle_block(*book);
    ASSERT_TRUE(block.has_value());
    EXPECT_EQ(block->first, "InPlaceResizeWouldChangeQoSClass");
    EXPECT_NE(block->second.find("web-1"), std::string::npos) << block->second;

    // The policy leaves Canary: the workload leaves status.lifecycle and the block goes.
    h.policy_json = kPolicy;
    h.put_recommendation("200m");
    h.pass();
    EXPECT_EQ(entry_of(*h.exec), nullptr);
    EXPECT_FALSE(ResizeLedger::lifecycle_block(*book).has_value());
}

}  // namespace
}  // namespace attune::controller
