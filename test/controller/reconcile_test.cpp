#include <attune/controller/reconcile.hpp>

#include <attune/core/idle.hpp>

#include <boost/json/parse.hpp>

#include <gtest/gtest.h>

namespace attune::controller {
namespace {
namespace json = boost::json;
using kube::object_cache;
using kube::watch_event_type;

json::value deployment(const char* name, int replicas, const char* labels = R"({"tier":"web"})") {
    return json::parse(std::string(R"({"apiVersion":"apps/v1","kind":"Deployment","metadata":{"namespace":"ns","name":")") +
                       name + R"(","uid":")" + name + R"(-uid","resourceVersion":"1","labels":)" + labels +
                       R"(},"spec":{"replicas":)" + std::to_string(replicas) + "}}");
}

json::value hpa(const char* target, const char* scaled_to_zero, const char* rv = "1") {
    return json::parse(std::string(R"({"metadata":{"namespace":"ns","name":"h-)") + target + R"(","resourceVersion":")" +
                       rv + R"("},"spec":{"scaleTargetRef":{"apiVersion":"apps/v1","kind":"Deployment","name":")" +
                       target +
                       R"("},"minReplicas":1,"maxReplicas":3,"metrics":[{"type":"External","external":{"metric":{"name":"q"},"target":{"type":"AverageValue","averageValue":"1"}}}]},)"
                       R"("status":{"currentReplicas":0,"desiredReplicas":0,"currentMetrics":[{"type":"External"}],)"
                       R"("conditions":[{"type":"ScaledToZero","status":")" + scaled_to_zero + R"("}]}})");
}

json::value policy(const char* name, long long generation, const char* selector) {
    return json::parse(std::string(R"({"metadata":{"namespace":"ns","name":")") + name + R"(","resourceVersion":")" +
                       std::to_string(generation) + R"(","generation":)" + std::to_string(generation) +
                       R"(},"spec":{"selector":)" + selector + "}}");
}

struct fixture {
    fixture() { index_hpas(hpas); }
    object_cache deployments, statefulsets, replicasets, daemonsets, hpas{core::strip_hpa_json}, policies;
    cache_views views() {
        return {&deployments, &statefulsets, &replicasets, &daemonsets, &hpas, &policies};
    }
};

TEST(Reconcile, ClassifiesWithTheMatchingHpaFromTheCache) {
    fixture f;
    f.deployments.apply(watch_event_type::added, deployment("queue", 1));
    f.deployments.apply(watch_event_type::added, deployment("off", 0));
    f.deployments.apply(watch_event_type::added, deployment("busy", 2));
    f.hpas.apply(watch_event_type::added, hpa("queue", "True"));  // the transform keeps the condition
    f.hpas.apply(watch_event_type::added, hpa("busy", "False"));
    f.policies.apply(watch_event_type::added, policy("p", 1, R"({"matchLabels":{"tier":"web"}})"));
    const auto v = f.views();

    auto q = classify_workload(v, {"ns", "Deployment", "queue"});
    EXPECT_EQ(q.idle, core::IdleKind::HPAScaledToZero);
    EXPECT_EQ(q.hpa_name, "h-queue");
    EXPECT_EQ(q.uid, "queue-uid");
    EXPECT_EQ(q.selected_by, (std::vector<std::string>{"p"}));
    EXPECT_EQ(classify_workload(v, {"ns", "Deployment", "off"}).idle, core::IdleKind::ManualZero);
    EXPECT_EQ(classify_workload(v, {"ns", "Deployment", "busy"}).idle, core::IdleKind::None);

    auto gone = classify_workload(v, {"ns", "Deployment", "missing"});
    EXPECT_TRUE(gone.selected_by.empty());
}

TEST(Reconcile, UnselectedWorkloadReportsNoPolicy) {
    fixture f;
    f.deployments.apply(watch_event_type::added, deployment("other", 0, R"({"tier":"db"})"));
    f.policies.apply(watch_event_type::added, policy("p", 1, R"({"matchLabels":{"tier":"web"}})"));
    EXPECT_TRUE(classify_workload(f.views(), {"ns", "Deployment", "other"}).selected_by.empty());
}

TEST(Reconcile, PolicyPassPlanListsTargetsAndServerStatus) {
    fixture f;
    f.deployments.apply(watch_event_type::added, deployment("a", 1));
    f.deployments.apply(watch_event_type::added, deployment("b", 1, R"({"tier":"db"})"));
    auto p = policy("p", 2, R"({"matchLabels":{"tier":"web"}})");
    p.as_object()["status"] = json::parse(R"({"observedGeneration":1,"idleWorkloads":[]})");
    f.policies.apply(watch_event_type::added, p);
    auto plan = plan_policy_pass(f.views(), {"ns", "AttunePolicy", "p"});
    EXPECT_FALSE(plan.deleted);
    EXPECT_EQ(plan.policy.generation, 2);
    EXPECT_EQ(plan.targets, (std::vector<std::string>{"ns/Deployment/a"}));
    EXPECT_EQ(plan.written.observed_generation, 1);
    EXPECT_TRUE(plan_policy_pass(f.views(), {"ns", "AttunePolicy", "nope"}).deleted);
}

}  // namespace
}  // namespace attune::controller
