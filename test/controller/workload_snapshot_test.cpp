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
using kube::watch_event_type;

json::value parse(const std::string& s) { return json::parse(s); }

const char* kDeployment = R"({"apiVersion":"apps/v1","kind":"Deployment",
  "metadata":{"namespace":"ns","name":"web","uid":"web-uid","resourceVersion":"1","labels":{"tier":"web"}},
  "spec":{"replicas":2,"template":{"spec":{"containers":[
    {"name":"app","resources":{"requests":{"cpu":"500m","memory":"256Mi"}}},
    {"name":"istio-proxy","resources":{"requests":{"cpu":"10m"}}}]}}}})";
const char* kReplicaSet = R"({"metadata":{"namespace":"ns","name":"web-abc","uid":"rs-uid","resourceVersion":"1",
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

struct fixture : test::fake_caches {
    bool defaults_synced = true;
    fixture() {
        synced = [this](std::string_view what) { return what.starts_with("Attune") ? defaults_synced : true; };
        deployments.apply(watch_event_type::added, parse(kDeployment));
        replicasets.apply(watch_event_type::added, parse(kReplicaSet));
        pods.apply(watch_event_type::added, parse(pod("web-abc-2", "Pending", "900m")));
        pods.apply(watch_event_type::added, parse(pod("web-abc-1", "Running", "300m")));
    }
    void set_policy(const std::string& p) { policies.apply(watch_event_type::added, parse(p)); }
};

const object_key kWeb{"ns", "Deployment", "web"};

TEST(WorkloadSnapshot, TheWinnersMergedSettingsAndTheLiveBaselineThroughTheReplicaSet) {
    fixture f;
    f.set_policy(policy(kPrometheus));
    f.namespace_defaults.apply(watch_event_type::added,
                               parse(R"({"metadata":{"namespace":"ns","name":"team","resourceVersion":"4"},"spec":{"cpu":{"overhead":"35"}}})"));
    effective_policies policies({});
    const auto s = take_snapshot(f.views(), policies, kWeb);
    ASSERT_NE(s.effective(), nullptr) << s.policy.config_error;
    EXPECT_EQ(s.effective()->cpu.overhead_percent, 35);
    EXPECT_EQ(s.effective()->namespace_defaults, "team");
    EXPECT_EQ(s.pod_names, (std::vector<std::string>{"web-abc-1", "web-abc-2"}));
    ASSERT_EQ(s.baseline.containers.size(), 1u);  // istio-proxy is a known sidecar
    EXPECT_EQ(s.baseline.containers.at("app").requests.at("cpu"), core::Quantity::parse("300m").value());
    EXPECT_EQ(s.policy_generation(), 1);
    EXPECT_EQ(s.suppress_warnings(), "HPAConflict");
    EXPECT_EQ(next_step(s), workload_step::query_source);
}

TEST(WorkloadSnapshot, TheSettingsPointerStaysWhileNothingItDependsOnMoved) {
    fixture f;
    f.set_policy(policy(kPrometheus));
    effective_policies policies({});
    const auto a = take_snapshot(f.views(), policies, kWeb).policy.effective;
    const auto b = take_snapshot(f.views(), policies, kWeb).policy.effective;
    EXPECT_EQ(a, b);
    f.cluster_defaults.apply(watch_event_type::added,
                             parse(R"({"metadata":{"name":"default","resourceVersion":"7"},"spec":{"memory":{"overhead":"50"}}})"));
    const auto c = take_snapshot(f.views(), policies, kWeb).policy.effective;
    EXPECT_NE(c, a);
    EXPECT_EQ(c->memory.overhead_percent, 50);
}

TEST(WorkloadSnapshot, EachPolicyStateLeadsToItsStep) {
    struct row {
        const char* what;
        std::string policy;
        bool defaults_synced;
        workload_step want;
        const char* message;  // part of config_error / source_error / vpa_problem
    };
    const std::vector<row> rows = {
        {"loopback Prometheus without the flag", policy(R"({"prometheus":{"address":"http://127.0.0.1:9090"}})"), true,
         workload_step::config_failed, "loopback"},
        {"defaults not listed yet", policy(kPrometheus), false, workload_step::config_failed, "Failed to fetch defaults"},
        {"a Secret without Secret reads",
         policy(R"({"prometheus":{"address":"http://prom:9090","bearerTokenSecret":{"name":"s","key":"t"}}})"), true,
         workload_step::config_failed, "needs Secret reads"},
        {"paused", policy(kPrometheus, R"(,"paused":true)"), true, workload_step::paused, ""},
        {"Observe", policy(kPrometheus, R"(,"updateStrategy":{"type":"Observe"})"), true, workload_step::observe, ""},
        {"no source anywhere", policy("{}"), true, workload_step::source_failed, "no metrics source"},
        {"Datadog", policy(R"({"datadog":{"apiKeySecretRef":{"name":"d","key":"k"}}})"), true,
         workload_step::source_failed, "not implemented"},
        {"VPA without the VPA API", policy(R"({"vpa":{"name":"web"}})"), true, workload_step::query_source,
         "not served"},
        {"every container excluded", policy(kPrometheus, R"(,"excludedContainers":["app"])"), true,
         workload_step::nothing_to_size, ""},
    };
    for (const auto& r : rows) {
        SCOPED_TRACE(r.what);
        fixture f;
        f.defaults_synced = r.defaults_synced;
        f.set_policy(r.policy);
        effective_policies policies({});
        const auto s = take_snapshot(f.views(), policies, kWeb);
        EXPECT_EQ(next_step(s), r.want);
        const auto said = s.policy.config_error + s.policy.source_error + s.vpa_problem;
        EXPECT_NE(said.find(r.message), std::string::npos) << said;
    }
}

TEST(WorkloadSnapshot, AnIdleWorkloadIsNotQueriedButItsManualRecommendationIsComputed) {
    const std::string manual = R"({"manual":{"containers":[{"name":"app","resources":{"requests":{"cpu":"200m"}}}]}})";
    struct row {
        const char* what;
        std::string source;
        std::string extra;
        workload_step want;
    };
    const std::vector<row> rows = {
        {"Prometheus", kPrometheus, "", workload_step::idle},
        {"Manual", manual, "", workload_step::query_source},
        {"Manual, paused", manual, R"(,"paused":true)", workload_step::paused},
        {"Manual, Observe", manual, R"(,"updateStrategy":{"type":"Observe"})", workload_step::observe},
    };
    for (const auto& r : rows) {
        SCOPED_TRACE(r.what);
        fixture f;
        f.deployments.apply(watch_event_type::modified,
                            parse(R"({"apiVersion":"apps/v1","kind":"Deployment",
  "metadata":{"namespace":"ns","name":"web","uid":"web-uid","resourceVersion":"2","labels":{"tier":"web"}},
  "spec":{"replicas":0,"template":{"spec":{"containers":[{"name":"app","resources":{"requests":{"cpu":"500m"}}}]}}}})"));
        f.set_policy(policy(r.source, r.extra));
        effective_policies policies({});
        const auto s = take_snapshot(f.views(), policies, kWeb);
        EXPECT_NE(s.report.idle, core::IdleKind::None);
        EXPECT_EQ(next_step(s), r.want);
    }
}

TEST(WorkloadSnapshot, VpaObjectFromItsCache) {
    fixture f;
    f.with_vpas = true;
    f.set_policy(policy(R"({"vpa":{"name":"web-vpa","selection":"UpperBound"}})"));
    effective_policies policies({});
    auto s = take_snapshot(f.views(), policies, kWeb);
    EXPECT_EQ(s.vpa, nullptr);
    EXPECT_NE(s.vpa_problem.find("VerticalPodAutoscaler ns/web-vpa not found"), std::string::npos) << s.vpa_problem;
    f.vpas.apply(watch_event_type::added, parse(R"({"metadata":{"namespace":"ns","name":"web-vpa","resourceVersion":"1"}})"));
    s = take_snapshot(f.views(), policies, kWeb);
    EXPECT_NE(s.vpa, nullptr);
    EXPECT_TRUE(s.vpa_problem.empty());
}

TEST(WorkloadSnapshot, OutrankedAndOptedOutPoliciesAreResolvedForTheirEvents) {
    fixture f;
    f.set_policy(policy(kPrometheus));
    f.policies.apply(watch_event_type::added,
                     parse(R"({"metadata":{"namespace":"ns","name":"q","uid":"q-uid","resourceVersion":"1","generation":1,
                               "annotations":{"attune.io/suppress-warnings":"PolicyConflict"}},
                               "spec":{"targetRef":{"kind":"Deployment","name":"web"},"cpu":{},"memory":{},"weight":50}})"));
    effective_policies policies({});
    const auto s = take_snapshot(f.views(), policies, kWeb);
    ASSERT_EQ(s.outranked.size(), 1u);
    EXPECT_EQ(s.outranked[0].ref.name, "q");
    EXPECT_EQ(s.outranked[0].ref.uid, "q-uid");
    EXPECT_EQ(s.outranked[0].suppress_warnings, "PolicyConflict");
}

TEST(WorkloadSnapshot, PodsOfEveryKind) {
    fixture f;
    EXPECT_EQ(pods_of(f.views(), "Deployment", "web-uid").size(), 2u);
    EXPECT_EQ(pods_of(f.views(), "ReplicaSet", "rs-uid").size(), 2u);
    EXPECT_TRUE(pods_of(f.views(), "StatefulSet", "web-uid").empty());
    EXPECT_TRUE(pods_of(f.views(), "Deployment", "").empty());
}

}  // namespace
}  // namespace attune::controller
