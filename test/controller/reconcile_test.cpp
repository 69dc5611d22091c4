#include <attune/controller/reconcile.hpp>

#include <attune/core/model/idle.hpp>

#include "fake_caches.hpp"

#include <boost/json/parse.hpp>

#include <algorithm>
#include <stdexcept>

#include <gtest/gtest.h>

namespace attune::controller {
namespace {
namespace json = boost::json;
using kube::ObjectCache;
using kube::WatchEventType;

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

// A policy whose targetRef is `target` (JSON), with an optional weight.
json::value policy(const char* name, long long generation, const char* target, int weight = 0) {
    auto p = json::parse(std::string(R"({"metadata":{"namespace":"ns","name":")") + name + R"(","resourceVersion":")" +
                         std::to_string(generation) + R"(","generation":)" + std::to_string(generation) +
                         R"(},"spec":{"cpu":{},"memory":{},"targetRef":)" + target + "}}");
    if (weight) p.at("spec").as_object()["weight"] = weight;
    return p;
}
constexpr const char* kWebDeployments = R"({"kind":"Deployment","selector":{"matchLabels":{"tier":"web"}}})";

using Fixture = test::FakeCaches;

TEST(Reconcile, ClassifiesWithTheMatchingHpaFromTheCache) {
    Fixture f;
    f.deployments.apply(WatchEventType::Added, deployment("queue", 1));
    f.deployments.apply(WatchEventType::Added, deployment("off", 0));
    f.deployments.apply(WatchEventType::Added, deployment("busy", 2));
    f.hpas.apply(WatchEventType::Added, hpa("queue", "True"));  // the transform keeps the condition
    f.hpas.apply(WatchEventType::Added, hpa("busy", "False"));
    f.policies.apply(WatchEventType::Added, policy("p", 1, kWebDeployments));
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
    Fixture f;
    f.deployments.apply(WatchEventType::Added, deployment("other", 0, R"({"tier":"db"})"));
    f.policies.apply(WatchEventType::Added, policy("p", 1, kWebDeployments));
    EXPECT_TRUE(classify_workload(f.views(), {"ns", "Deployment", "other"}).selected_by.empty());
}

TEST(Reconcile, PolicyPassPlanListsTargetsAndServerStatus) {
    Fixture f;
    f.deployments.apply(WatchEventType::Added, deployment("a", 1));
    f.deployments.apply(WatchEventType::Added, deployment("b", 1, R"({"tier":"db"})"));
    auto p = policy("p", 2, kWebDeployments);
    p.as_object()["status"] = json::parse(R"({"observedGeneration":1,"idleWorkloads":[]})");
    f.policies.apply(WatchEventType::Added, p);
    auto plan = plan_policy_pass(f.views(), {"ns", "AttunePolicy", "p"});
    EXPECT_FALSE(plan.deleted);
    EXPECT_EQ(plan.policy.generation, 2);
    EXPECT_EQ(plan.targets, (std::vector<std::string>{"ns/Deployment/a"}));
    EXPECT_EQ(plan.written.observed_generation, 1);
    EXPECT_TRUE(plan_policy_pass(f.views(), {"ns", "AttunePolicy", "nope"}).deleted);
}

TEST(Reconcile, PolicyPassLooksOnlyAtTheTargetKindAndName) {
    Fixture f;
    f.deployments.apply(WatchEventType::Added, deployment("web", 1));
    f.deployments.apply(WatchEventType::Added, deployment("api", 1));
    f.statefulsets.apply(WatchEventType::Added,
                         json::parse(
                             R"({"metadata":{"namespace":"ns","name":"web","labels":{"tier":"web"}},"spec":{}})"));
    f.jobs.apply(WatchEventType::Added, json::parse(R"({"metadata":{"namespace":"ns","name":"migrate"},"spec":{}})"));
    f.policies.apply(WatchEventType::Added, policy("by-name", 1, R"({"kind":"Deployment","name":"api"})"));
    f.policies.apply(WatchEventType::Added,
                     policy("sts", 1, R"({"kind":"StatefulSet","selector":{"matchLabels":{"tier":"web"}}})"));
    f.policies.apply(WatchEventType::Added, policy("job", 1, R"({"kind":"Job","name":"migrate"})"));
    f.policies.apply(WatchEventType::Added, policy("old", 1, R"({"kind":"Pod","name":"x"})"));
    const auto v = f.views();
    EXPECT_EQ(plan_policy_pass(v, {"ns", "AttunePolicy", "by-name"}).targets, (std::vector<std::string>{"ns/Deployment/api"}));
    EXPECT_EQ(plan_policy_pass(v, {"ns", "AttunePolicy", "sts"}).targets, (std::vector<std::string>{"ns/StatefulSet/web"}));
    EXPECT_EQ(plan_policy_pass(v, {"ns", "AttunePolicy", "job"}).targets, (std::vector<std::string>{"ns/Job/migrate"}));
    const auto invalid = plan_policy_pass(v, {"ns", "AttunePolicy", "old"});
    EXPECT_FALSE(invalid.deleted);
    EXPECT_TRUE(invalid.targets.empty());
    EXPECT_FALSE(invalid.policy.error.empty());

    // A Job is classified (never idle), so recommendations can reach it later.
    auto job = classify_workload(v, {"ns", "Job", "migrate"});
    EXPECT_EQ(job.selected_by, (std::vector<std::string>{"job"}));
    EXPECT_EQ(job.idle, core::IdleKind::None);
    EXPECT_EQ(job.api_version, "batch/v1");
}

TEST(Reconcile, TheWinningPolicyManagesAndTheOthersAreReported) {
    Fixture f;
    f.deployments.apply(WatchEventType::Added, deployment("web", 0));
    f.policies.apply(WatchEventType::Added, policy("broad", 1, kWebDeployments));
    f.policies.apply(WatchEventType::Added, policy("exact", 1, R"({"kind":"Deployment","name":"web"})", 200));
    auto r = classify_workload(f.views(), {"ns", "Deployment", "web"});
    EXPECT_EQ(r.selected_by, (std::vector<std::string>{"exact"}));
    EXPECT_EQ(r.conflicting_policies, (std::vector<std::string>{"broad"}));
    EXPECT_EQ(r.idle, core::IdleKind::ManualZero);

    // Both passes list the workload; only the winner's keeps it (its report names only the winner).
    EXPECT_EQ(plan_policy_pass(f.views(), {"ns", "AttunePolicy", "broad"}).targets,
              (std::vector<std::string>{"ns/Deployment/web"}));
}

TEST(Reconcile, AnOptedOutWorkloadIsManagedByNobody) {
    Fixture f;
    auto d = deployment("web", 0);
    d.at("metadata").as_object()["annotations"] = json::object{{"attune.io/skip", "true"}};
    f.deployments.apply(WatchEventType::Added, d);
    f.policies.apply(WatchEventType::Added, policy("p", 1, kWebDeployments));
    auto r = classify_workload(f.views(), {"ns", "Deployment", "web"});
    EXPECT_TRUE(r.selected_by.empty());
    EXPECT_EQ(r.opted_out_of, (std::vector<std::string>{"p"}));
    EXPECT_EQ(r.idle, core::IdleKind::None);  // not classified
}

TEST(Reconcile, WorkloadEventsReadEachPolicyAsDecodedAtItsLastChange) {
    Fixture f;
    // Each view's name carries the number of the decode that made it: a
    // policy decoded again at read time would come back under its plain name.
    int decodes = 0;
    f.policies.decode_as<policy::PolicyView>(kube::decoded_view<policy::PolicyView>([&decodes](const json::value& obj) {
        auto p = policy::decode_policy(obj);
        ++decodes;
        if (p) p.value().name += "@" + std::to_string(decodes);
        return p;
    }));
    for (const char* name : {"web", "api", "db"}) f.deployments.apply(WatchEventType::Added, deployment(name, 1));
    f.policies.apply(WatchEventType::Added, policy("broad", 1, kWebDeployments));
    f.policies.apply(WatchEventType::Added, policy("exact", 1, R"({"kind":"Deployment","name":"web"})", 200));
    const auto v = f.views();
    auto names = [&] {
        std::vector<std::string> out;
        for (const auto& p : policy::policies_in(v, "ns")) out.push_back(p.name);
        std::sort(out.begin(), out.end());
        return out;
    };

    for (int event = 0; event < 10; ++event)
        for (const char* name : {"web", "api", "db"}) classify_workload(v, {"ns", "Deployment", name});
    EXPECT_EQ(decodes, 2);
    EXPECT_EQ(classify_workload(v, {"ns", "Deployment", "web"}).selected_by, (std::vector<std::string>{"exact@2"}));
    EXPECT_EQ(classify_workload(v, {"ns", "Deployment", "api"}).selected_by, (std::vector<std::string>{"broad@1"}));
    EXPECT_EQ(plan_policy_pass(v, {"ns", "AttunePolicy", "exact"}).policy.name, "exact@2");
    EXPECT_EQ(names(), (std::vector<std::string>{"broad@1", "exact@2"}));

    // A replayed event (same resourceVersion) changes nothing; a new version is decoded once.
    f.policies.apply(WatchEventType::Modified, policy("broad", 1, kWebDeployments));
    EXPECT_EQ(decodes, 2);
    f.policies.apply(WatchEventType::Modified, policy("exact", 2, R"({"kind":"Deployment","name":"db"})", 200));
    EXPECT_EQ(decodes, 3);
    EXPECT_EQ(classify_workload(v, {"ns", "Deployment", "web"}).selected_by, (std::vector<std::string>{"broad@1"}));
    EXPECT_EQ(classify_workload(v, {"ns", "Deployment", "db"}).selected_by, (std::vector<std::string>{"exact@3"}));
    EXPECT_EQ(names(), (std::vector<std::string>{"broad@1", "exact@3"}));
    EXPECT_EQ(decodes, 3);
}

TEST(Reconcile, ThePolicyViewSkipsOnlyPoliciesWithoutNameOrNamespace) {
    Fixture f;  // index_policies, as the manager's informer catalog
    f.policies.apply(WatchEventType::Added, policy("good", 4, R"({"kind":"Deployment","name":"web"})", 300));
    f.policies
        .apply(WatchEventType::Added,
               json::parse(
                   R"({"metadata":{"namespace":"ns","name":"old","resourceVersion":"1"},"spec":{"selector":{}}})"));
    f.policies.apply(WatchEventType::Added,
                     json::parse(R"({"metadata":{"name":"no-namespace","resourceVersion":"1"},"spec":{}})"));
    const auto v = f.views();

    auto in_ns = policy::policies_in(v, "ns");
    std::sort(in_ns.begin(), in_ns.end(),
              [](const policy::PolicyView& a, const policy::PolicyView& b) { return a.name < b.name; });
    ASSERT_EQ(in_ns.size(), 2u);
    EXPECT_EQ(in_ns[0].name, "good");
    EXPECT_EQ(in_ns[0].generation, 4);
    EXPECT_EQ(in_ns[0].weight, 300);
    EXPECT_EQ(in_ns[0].target.name, std::optional<std::string>("web"));
    EXPECT_TRUE(in_ns[0].error.empty());
    EXPECT_EQ(in_ns[1].name, "old");  // kept: it is reported InvalidConfig
    EXPECT_EQ(in_ns[1].error.rfind("spec.targetRef: required", 0), 0u) << in_ns[1].error;
    EXPECT_TRUE(policy::policies_in(v, "").empty());  // stored under "no-namespace", never decoded into a view
    EXPECT_TRUE(plan_policy_pass(v, {"", "AttunePolicy", "no-namespace"}).deleted);

    // Reading a policy cache nobody set up is a wiring bug, and says so.
    ObjectCache bare;
    bare.apply(WatchEventType::Added, policy("good", 1, kWebDeployments));
    EXPECT_THROW(policy::policies_in(bare, "ns"), std::logic_error);
}

}  // namespace
}  // namespace attune::controller
