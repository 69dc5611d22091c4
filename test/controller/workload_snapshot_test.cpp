// What a worker reads for one workload: the winner's merged settings (cached
// per resourceVersions), the live baseline from its pods through its
// ReplicaSet, and the next step each policy state leads to.
#include <attune/controller/workload_snapshot.hpp>

#include <boost/json/parse.hpp>

#include <gtest/gtest.h>

#include "fake_caches.hpp"

namespace attune::controller {
namespace {
namespace json = boost::json;
using kube::WatchEventType;

json::value parse(const std::string& s) { return json::parse(s); }

const char* const kDeployment = R"({"apiVersion":"apps/v1","kind":"Deployment",
  "metadata":{"namespace":"ns","name":"web","uid":"web-uid","resourceVersion":"1","labels":{"tier":"web"}},
  "spec":{"replicas":2,"template":{"spec":{"containers":[
    {"name":"app","resources":{"requests":{"cpu":"500m","memory":"256Mi"}}},
    {"name":"istio-proxy","resources":{"requests":{"cpu":"10m"}}}]}}}})";
const char* const kReplicaSet = R"({"metadata":{"namespace":"ns","name":"web-abc","uid":"rs-uid","resourceVersion":"1",
  "ownerReferences":[{"apiVersion":"apps/v1","kind":"Deployment","name":"web","uid":"web-uid","controller":true}]},
  "spec":{"replicas":2}})";

std::string pod(const char* name, const char* phase, const char* cpu) {
    return std::string(R"({"metadata":{"namespace":"ns","name":")") + name + R"(","uid":")" + name +
           R"(-uid","resourceVersion":"1","ownerReferences":[{"apiVersion":"apps/v1","kind":"ReplicaSet","name":"web-abc","uid":"rs-uid","controller":true}]},)"
           R"("spec":{"containers":[{"name":"app","resources":{"requests":{"cpu":")" + cpu +
           R"(","memory":"256Mi"}}},{"name":"istio-proxy","resources":{"requests":{"cpu":"10m"}}}]},)"
           R"("status":{"phase":")" + phase + R"("}})";
}

std::string policy(const std::string& metrics_source, const std::string& extra = "", int generation = 1) {
    return std::string(R"({"metadata":{"namespace":"ns","name":"p","uid":"p-uid","resourceVersion":")") +
           std::to_string(generation) + R"(","generation":)" + std::to_string(generation) +
           R"(,"annotations":{"attune.io/suppress-warnings":"HPAConflict"}},"spec":{"targetRef":{"kind":"Deployment","name":"web"},)"
           R"("cpu":{},"memory":{},"metricsSource":)" + metrics_source + extra + "}}";
}
const std::string kPrometheus = R"({"prometheus":{"address":"http://prometheus.monitoring:9090"}})";

struct Fixture : test::FakeCaches {
    bool defaults_synced = true;
    Fixture() {
        synced = [this](std::string_view what) { return what.starts_with("Attune") ? defaults_synced : true; };
        deployments.apply(WatchEventType::Added, parse(kDeployment));
        replicasets.apply(WatchEventType::Added, parse(kReplicaSet));
        pods.apply(WatchEventType::Added, parse(pod("web-abc-2", "Pending", "900m")));
        pods.apply(WatchEventType::Added, parse(pod("web-abc-1", "Running", "300m")));
    }
    void set_policy(const std::string& p) { policies.apply(WatchEventType::Added, parse(p)); }
};

const ObjectKey kWeb{"ns", "Deployment", "web"};

TEST(WorkloadSnapshot, TheWinnersMergedSettingsAndTheLiveBaselineThroughTheReplicaSet) {
    Fixture f;
    f.set_policy(policy(kPrometheus));
    f.namespace_defaults.apply(
        WatchEventType::Added,
        parse(
            R"({"metadata":{"namespace":"ns","name":"team","resourceVersion":"4"},"spec":{"cpu":{"overhead":"35"}}})"));
    EffectivePolicies policies({});
    const auto s = take_snapshot(f.views(), policies, kWeb);
    ASSERT_NE(s.effective(), nullptr) << s.policy.config_error;
    EXPECT_EQ(s.effective()->cpu.overhead_percent, 35);
    EXPECT_EQ(s.effective()->namespace_defaults, "team");
    EXPECT_EQ(s.pod_names, (std::vector<std::string>{"web-abc-1", "web-abc-2"}));
    ASSERT_EQ(s.baseline.containers.size(), 1u);  // istio-proxy is a known sidecar
    EXPECT_EQ(s.baseline.containers.at("app").requests.at("cpu"), core::Quantity::parse("300m").value());
    EXPECT_EQ(s.policy_generation(), 1);
    EXPECT_EQ(s.suppress_warnings(), "HPAConflict");
    EXPECT_EQ(next_step(s), WorkloadStep::QuerySource);
}

TEST(WorkloadSnapshot, TheSettingsPointerStaysWhileNothingItDependsOnMoved) {
    Fixture f;
    f.set_policy(policy(kPrometheus));
    EffectivePolicies policies({});
    const auto a = take_snapshot(f.views(), policies, kWeb).policy.effective;
    const auto b = take_snapshot(f.views(), policies, kWeb).policy.effective;
    EXPECT_EQ(a, b);
    f.cluster_defaults
        .apply(WatchEventType::Added,
               parse(R"({"metadata":{"name":"default","resourceVersion":"7"},"spec":{"memory":{"overhead":"50"}}})"));
    const auto c = take_snapshot(f.views(), policies, kWeb).policy.effective;
    EXPECT_NE(c, a);
    EXPECT_EQ(c->memory.overhead_percent, 50);
}

TEST(WorkloadSnapshot, EachPolicyStateLeadsToItsStepAndOnlyAQueryReadsThePods) {
    struct Row {
        const char* what;
        std::string policy;
        bool defaults_synced;
        WorkloadStep want;
        const char* message;  // part of ConfigError / source_error / vpa_problem
        bool reads_pods;      // only a step that depends on the baseline reads the pods
    };
    const std::vector<Row> rows = {
        {"loopback Prometheus without the flag", policy(R"({"prometheus":{"address":"http://127.0.0.1:9090"}})"), true,
         WorkloadStep::ConfigFailed, "loopback", false},
        {"defaults not listed yet", policy(kPrometheus), false, WorkloadStep::ConfigFailed, "Failed to fetch defaults",
         false},
        {"a Secret without Secret reads",
         policy(R"({"prometheus":{"address":"http://prom:9090","bearerTokenSecret":{"name":"s","key":"t"}}})"), true,
         WorkloadStep::ConfigFailed, "needs Secret reads", false},
        {"paused", policy(kPrometheus, R"(,"paused":true)"), true, WorkloadStep::Paused, "", false},
        {"Observe", policy(kPrometheus, R"(,"updateStrategy":{"type":"Observe"})"), true, WorkloadStep::Observe, "",
         false},
        {"no source anywhere", policy("{}"), true, WorkloadStep::SourceFailed, "no metrics source", false},
        {"CloudWatch", policy(R"({"cloudwatch":{"region":"eu-west-1","clusterName":"c"}})"), true,
         WorkloadStep::QuerySource, "", true},
        {"Datadog without Secret reads", policy(R"({"datadog":{"apiKeySecretRef":{"name":"d","key":"k"}}})"), true,
         WorkloadStep::ConfigFailed, "needs Secret reads", false},
        {"VPA without the VPA API", policy(R"({"vpa":{"name":"web"}})"), true, WorkloadStep::QuerySource, "not served",
         true},
        {"every container excluded", policy(kPrometheus, R"(,"excludedContainers":["app"])"), true,
         WorkloadStep::NothingToSize, "", true},
    };
    for (const auto& r : rows) {
        SCOPED_TRACE(r.what);
        Fixture f;
        f.defaults_synced = r.defaults_synced;
        f.set_policy(r.policy);
        EffectivePolicies policies({});
        const auto s = take_snapshot(f.views(), policies, kWeb);
        EXPECT_EQ(next_step(s), r.want);
        const auto said = s.policy.config_error + s.policy.source_error + s.vpa_problem;
        EXPECT_NE(said.find(r.message), std::string::npos) << said;
        EXPECT_EQ(!s.pod_names.empty(), r.reads_pods);
    }
}

TEST(WorkloadSnapshot, APolicyWithNoSourceUsesTheDiscoveredPrometheus) {
    Fixture f;
    f.set_policy(policy("{}"));
    EffectivePolicies policies({});
    // Nothing discovered: no source, and the message says what was looked for.
    auto none = take_snapshot(f.views(), policies, kWeb);
    EXPECT_EQ(next_step(none), WorkloadStep::SourceFailed);
    EXPECT_NE(none.policy.source_error.find("auto-discovery found no Prometheus"), std::string::npos)
        << none.policy.source_error;
    EXPECT_TRUE(none.policy.discovered_source.empty());

    const core::DiscoveredPrometheus found{"http://prometheus-server.monitoring:9090",
                                           "Service monitoring/prometheus-server"};
    EXPECT_TRUE(policies.set_discovered_prometheus(found));
    EXPECT_FALSE(policies.set_discovered_prometheus(found));  // the same answer is no change
    const auto a = take_snapshot(f.views(), policies, kWeb);
    EXPECT_EQ(next_step(a), WorkloadStep::QuerySource);
    EXPECT_TRUE(a.policy.source_error.empty());
    const auto* src = std::get_if<core::PrometheusSource>(&a.policy.effective->metrics.provider);
    ASSERT_NE(src, nullptr);
    EXPECT_EQ(src->address, found.address);
    EXPECT_EQ(src->origin, "auto-discovered Service monitoring/prometheus-server");
    ASSERT_TRUE(a.policy.effective->metrics.prometheus);  // the instant queries' Prometheus too
    EXPECT_EQ(a.policy.effective->metrics.prometheus->address, found.address);
    EXPECT_EQ(a.policy.discovered_source,
              "Prometheus auto-discovered at http://prometheus-server.monitoring:9090 (Service "
              "monitoring/prometheus-server)");
    // Unchanged settings and answer: the same pointer (the store reads it as "same settings").
    EXPECT_EQ(take_snapshot(f.views(), policies, kWeb).policy.effective, a.policy.effective);

    // Another answer: new settings.
    EXPECT_TRUE(policies.set_discovered_prometheus(
        core::DiscoveredPrometheus{"http://prometheus-k8s.obs:9090", "Prometheus obs/k8s (Prometheus Operator)"}));
    const auto b = take_snapshot(f.views(), policies, kWeb);
    EXPECT_NE(b.policy.effective, a.policy.effective);
    EXPECT_EQ(std::get<core::PrometheusSource>(b.policy.effective->metrics.provider).address,
              "http://prometheus-k8s.obs:9090");

    // A policy that names its own source is never given the discovered one.
    Fixture own;
    own.set_policy(policy(kPrometheus));
    const auto c = take_snapshot(own.views(), policies, kWeb);
    EXPECT_TRUE(c.policy.discovered_source.empty());
    EXPECT_NE(std::get<core::PrometheusSource>(c.policy.effective->metrics.provider).address,
              "http://prometheus-k8s.obs:9090");

    // Discovery finds nothing again: no source again.
    EXPECT_TRUE(policies.set_discovered_prometheus(std::nullopt));
    EXPECT_EQ(next_step(take_snapshot(f.views(), policies, kWeb)), WorkloadStep::SourceFailed);
}

TEST(WorkloadSnapshot, AnIdleWorkloadIsNotQueriedButItsManualRecommendationIsComputed) {
    const std::string manual = R"({"manual":{"containers":[{"name":"app","resources":{"requests":{"cpu":"200m"}}}]}})";
    struct Row {
        const char* what;
        std::string source;
        std::string extra;
        WorkloadStep want;
    };
    const std::vector<Row> rows = {
        {"Prometheus", kPrometheus, "", WorkloadStep::Idle},
        {"Manual", manual, "", WorkloadStep::QuerySource},
        {"Manual, paused", manual, R"(,"paused":true)", WorkloadStep::Paused},
        {"Manual, Observe", manual, R"(,"updateStrategy":{"type":"Observe"})", WorkloadStep::Observe},
    };
    for (const auto& r : rows) {
        SCOPED_TRACE(r.what);
        Fixture f;
        f.deployments.apply(WatchEventType::Modified, parse(R"({"apiVersion":"apps/v1","kind":"Deployment",
  "metadata":{"namespace":"ns","name":"web","uid":"web-uid","resourceVersion":"2","labels":{"tier":"web"}},
  "spec":{"replicas":0,"template":{"spec":{"containers":[{"name":"app","resources":{"requests":{"cpu":"500m"}}}]}}}})"));
        f.set_policy(policy(r.source, r.extra));
        EffectivePolicies policies({});
        const auto s = take_snapshot(f.views(), policies, kWeb);
        EXPECT_NE(s.report.idle, core::IdleKind::None);
        EXPECT_EQ(next_step(s), r.want);
    }
}

TEST(WorkloadSnapshot, VpaObjectFromItsCache) {
    Fixture f;
    f.with_vpas = true;
    f.set_policy(policy(R"({"vpa":{"name":"web-vpa","selection":"UpperBound"}})"));
    EffectivePolicies policies({});
    auto s = take_snapshot(f.views(), policies, kWeb);
    EXPECT_EQ(s.vpa, nullptr);
    EXPECT_NE(s.vpa_problem.find("VerticalPodAutoscaler ns/web-vpa not found"), std::string::npos) << s.vpa_problem;
    f.vpas.apply(WatchEventType::Added,
                 parse(R"({"metadata":{"namespace":"ns","name":"web-vpa","resourceVersion":"1"}})"));
    s = take_snapshot(f.views(), policies, kWeb);
    EXPECT_NE(s.vpa, nullptr);
    EXPECT_TRUE(s.vpa_problem.empty());
}

TEST(WorkloadSnapshot, OutrankedAndOptedOutPoliciesAreResolvedForTheirEvents) {
    Fixture f;
    f.set_policy(policy(kPrometheus));
    f.policies.apply(WatchEventType::Added,
                     parse(
                         R"({"metadata":{"namespace":"ns","name":"q","uid":"q-uid","resourceVersion":"1","generation":1,
                               "annotations":{"attune.io/suppress-warnings":"PolicyConflict"}},
                               "spec":{"targetRef":{"kind":"Deployment","name":"web"},"cpu":{},"memory":{},"weight":50}})"));
    EffectivePolicies policies({});
    const auto s = take_snapshot(f.views(), policies, kWeb);
    ASSERT_EQ(s.outranked.size(), 1u);
    EXPECT_EQ(s.outranked[0].ref.name, "q");
    EXPECT_EQ(s.outranked[0].ref.uid, "q-uid");
    EXPECT_EQ(s.outranked[0].suppress_warnings, "PolicyConflict");
}

TEST(WorkloadSnapshot, PodsOfEveryKind) {
    Fixture f;
    EXPECT_EQ(pods_of(f.views(), "Deployment", "web-uid").size(), 2u);
    EXPECT_EQ(pods_of(f.views(), "ReplicaSet", "rs-uid").size(), 2u);
    EXPECT_TRUE(pods_of(f.views(), "StatefulSet", "web-uid").empty());
    EXPECT_TRUE(pods_of(f.views(), "Deployment", "").empty());
    EXPECT_EQ(listed_pods_of(f.views(), "Deployment", "web-uid").size(), 2u);
    EXPECT_EQ(listed_pods_of(f.views(), "ReplicaSet", "rs-uid").size(), 2u);
    EXPECT_TRUE(listed_pods_of(f.views(), "StatefulSet", "web-uid").empty());
}

// Only the baseline pod is decoded: a pod that does not decode is still
// named for the source's query, and when it is the first candidate the
// next running pod by name holds the baseline.
TEST(WorkloadSnapshot, TheBaselineComesFromTheFirstRunningPodThatDecodesAndEveryPodIsNamed) {
    Fixture f;
    f.set_policy(policy(kPrometheus));
    f.pods.apply(WatchEventType::Added, parse(pod("web-abc-0", "Running", "not-a-quantity")));
    f.pods.apply(WatchEventType::Added, parse(pod("web-abc-3", "Running", "700m")));
    EffectivePolicies policies({});
    const auto s = take_snapshot(f.views(), policies, kWeb);
    ASSERT_NE(s.effective(), nullptr) << s.policy.config_error;
    EXPECT_EQ(s.pod_names, (std::vector<std::string>{"web-abc-0", "web-abc-1", "web-abc-2", "web-abc-3"}));
    ASSERT_EQ(s.baseline.containers.count("app"), 1u);
    EXPECT_EQ(s.baseline.containers.at("app").requests.at("cpu"), core::Quantity::parse("300m").value());

    // web-abc-1 stops running: the baseline moves on to web-abc-3, never to
    // the Pending web-abc-2.
    f.pods.apply(WatchEventType::Modified,
                 parse(
                     R"({"metadata":{"namespace":"ns","name":"web-abc-1","uid":"web-abc-1-uid","resourceVersion":"2",)"
                     R"("deletionTimestamp":"2026-01-01T00:00:00Z","ownerReferences":[{"apiVersion":"apps/v1",)"
                     R"("kind":"ReplicaSet","name":"web-abc","uid":"rs-uid","controller":true}]},)"
                     R"("spec":{"containers":[{"name":"app","resources":{"requests":{"cpu":"300m"}}}]},)"
                     R"("status":{"phase":"Running"}})"));
    const auto moved = take_snapshot(f.views(), policies, kWeb);
    ASSERT_EQ(moved.baseline.containers.count("app"), 1u);
    EXPECT_EQ(moved.baseline.containers.at("app").requests.at("cpu"), core::Quantity::parse("700m").value());
}

}  // namespace
}  // namespace attune::controller
