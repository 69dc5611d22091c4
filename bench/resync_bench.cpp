// Full resync of 1,000 workloads (bench/RESULTS.md): every policy's pass is
// planned and every selected workload classified, exactly as the workers do
// after enqueue_all_policies(), against the manager's real caches (compact
// text, the real transforms, HPAs decoded once per change and indexed by
// scale target, policies decoded once per change). Prints CPU seconds per
// resync.
//
// The baselines add, per workload, what classify_workload did before: the
// decode of every HPA in its namespace (until the HPA index, commit 111806b)
// and the parse and decode of every policy in its namespace (until the
// policy view). Those loops are kept here only as baselines. Figures only,
// never asserted.
#include <attune/controller/reconcile.hpp>
#include <attune/core/model/idle.hpp>
#include <attune/kube/transforms.hpp>

#include <boost/json.hpp>

#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <string>
#include <tuple>
#include <vector>

namespace {
namespace json = boost::json;
using namespace attune;
using kube::ObjectCache;
using kube::WatchEventType;

constexpr int kPoliciesPerNamespace = 5;

// Workload i belongs to team i % 5 of its namespace (one of its policies).
std::string team_of(int i, int namespaces) { return "team-" + std::to_string(i / namespaces % kPoliciesPerNamespace); }

json::value deployment(const std::string& ns, int i, int namespaces) {
    const std::string name = "svc-" + std::to_string(i);
    return json::parse(R"({"apiVersion":"apps/v1","kind":"Deployment","metadata":{"namespace":")" + ns + R"(","name":")" +
                       name + R"(","uid":")" + name + R"(-uid","resourceVersion":"1","labels":{"attune.io/bench":"true","app":")" +
                       name + R"(","team":")" + team_of(i, namespaces) + R"("}},"spec":{"replicas":)" +
                       std::to_string(i % 17 == 0 ? 0 : 3) + R"(,"selector":{"matchLabels":{"app":")" + name +
                       R"("}},"template":{"metadata":{"labels":{"app":")" + name +
                       R"("}},"spec":{"containers":[{"name":"app","image":"i","resources":{"requests":{"cpu":"20m"}}}]}}}})");
}

// A policy as the cluster holds it once Attune runs: a targetRef selector
// (its team's Deployments), a full spec, and the status the controller
// writes (one recommendation per target, conditions).
json::value policy_object(const std::string& ns, int team, const std::vector<std::string>& targets) {
    std::string recs;
    for (const auto& t : targets)
        recs += std::string(recs.empty() ? "" : ",") + R"({"workload":")" + t +
                R"(","kind":"Deployment","stale":false,"lastDataTime":"2026-12-01T10:00:00Z","containers":[)"
                R"({"name":"app","confidence":0.92,"dataPoints":2016,"lastUpdated":"2026-12-01T10:00:00Z",)"
                R"("current":{"cpuRequest":"20m","cpuLimit":"0","memoryRequest":"64Mi","memoryLimit":"0"},)"
                R"("recommended":{"cpuRequest":"15m","cpuLimit":"0","memoryRequest":"48Mi","memoryLimit":"0"}}]})";
    const std::string name = "team-" + std::to_string(team);
    return json::parse(
        R"({"apiVersion":"attune.io/v1alpha1","kind":"AttunePolicy","metadata":{"namespace":")" + ns + R"(","name":")" +
        name + R"(","uid":")" + ns + "-" + name + R"(","resourceVersion":"1","generation":1},)"
        R"("spec":{"targetRef":{"kind":"Deployment","selector":{"matchLabels":{"team":")" + name + R"("}}},)"
        R"("metricsSource":{"prometheus":{"address":"http://prometheus.monitoring:9090"}},)"
        R"("cpu":{"percentile":95,"startupBoost":{"multiplier":"1.5","duration":"2m"}},)"
        R"("memory":{"controlledValues":"RequestsAndLimits"},"updateStrategy":{"type":"Auto","initialSizing":true}},)"
        R"("status":{"observedGeneration":1,"targetedWorkloads":)" + std::to_string(targets.size()) +
        R"(,"conditions":[{"type":"Ready","status":"True","reason":"Monitoring","lastTransitionTime":"2026-12-01T10:00:00Z"}],)"
        R"("recommendations":[)" + recs + "]}}");
}

json::value hpa(const std::string& ns, int i) {
    const std::string target = "svc-" + std::to_string(i);
    return json::parse(R"({"apiVersion":"autoscaling/v2","kind":"HorizontalPodAutoscaler","metadata":{"namespace":")" + ns +
                       R"(","name":"h-)" + target + R"(","resourceVersion":"1"},"spec":{"scaleTargetRef":{"apiVersion":"apps/v1","kind":"Deployment","name":")" +
                       target +
                       R"("},"minReplicas":1,"maxReplicas":10,"metrics":[{"type":"Resource","resource":{"name":"cpu","target":{"type":"Utilization","averageUtilization":70}}}]},)"
                       R"("status":{"currentReplicas":3,"desiredReplicas":3,"conditions":[{"type":"AbleToScale","status":"True","reason":"ReadyForNewScale"}]}})");
}

double cpu_seconds() { return static_cast<double>(std::clock()) / CLOCKS_PER_SEC; }

}  // namespace

int main(int argc, char** argv) {
    const int workloads = argc > 1 ? std::atoi(argv[1]) : 1000;
    const int namespaces = 20;
    const int rounds = argc > 2 ? std::atoi(argv[2]) : 5;
    ObjectCache deployments(kube::strip_workload, kube::CacheStorage::CompactText);
    ObjectCache none(kube::strip_workload, kube::CacheStorage::CompactText);
    ObjectCache hpas(kube::strip_hpa, kube::CacheStorage::CompactText);
    controller::index_hpas(hpas);
    // The old manager held HPAs as trees: its per-event decode paid no parse.
    ObjectCache hpas_before(kube::strip_hpa, kube::CacheStorage::Tree);
    ObjectCache policies(kube::strip_generic, kube::CacheStorage::CompactText);
    policy::index_policies(policies);
    // Until the policy view, policies_in parsed each one from its text and decoded it.
    ObjectCache policies_before(kube::strip_generic, kube::CacheStorage::CompactText);
    std::vector<std::vector<std::vector<std::string>>> targets(
        namespaces, std::vector<std::vector<std::string>>(kPoliciesPerNamespace));
    for (int i = 0; i < workloads; ++i) {
        const std::string ns = "bench-" + std::to_string(i % namespaces);
        deployments.apply(WatchEventType::Added, deployment(ns, i, namespaces));
        hpas.apply(WatchEventType::Added, hpa(ns, i));  // one HPA per workload
        hpas_before.apply(WatchEventType::Added, hpa(ns, i));
        targets[i % namespaces][i / namespaces % kPoliciesPerNamespace].push_back("svc-" + std::to_string(i));
    }
    for (int n = 0; n < namespaces; ++n)
        for (int t = 0; t < kPoliciesPerNamespace; ++t)
            for (auto* c : {&policies, &policies_before})
                c->apply(WatchEventType::Added, policy_object("bench-" + std::to_string(n), t, targets[n][t]));
    // Named, not positional: CacheViews grows fields.
    policy::CacheViews v;
    v.deployments = &deployments;
    v.statefulsets = v.replicasets = v.daemonsets = v.jobs = v.cronjobs = &none;
    v.hpas = &hpas;
    v.policies = &policies;

    struct Stage {
        const char* name;
        bool hpas_per_workload;
        bool policies_per_workload;
    };
    const Stage stages[] = {
        {"HPAs and policies decoded per workload (before the HPA index)", true, true},
        {"policies decoded per workload (before the policy view)       ", false, true},
        {"both decoded once per change                                 ", false, false},
    };
    auto resync = [&](const Stage& s) {
        std::size_t classified = 0, selected = 0, decoded = 0;
        for (const auto& p : policies.all()) {
            controller::ObjectKey pk{std::string(kube::meta_string(*p, "namespace")), "AttunePolicy",
                                     std::string(kube::meta_string(*p, "name"))};
            auto plan = controller::plan_policy_pass(v, pk);
            for (const auto& t : plan.targets) {
                auto k = controller::parse_object_key(t);
                if (s.hpas_per_workload)
                    for (const auto& h : hpas_before.in_namespace(k->ns)) decoded += core::decode_hpa(*h).ok();
                if (s.policies_per_workload)
                    for (const auto& o : policies_before.in_namespace(k->ns)) decoded += policy::decode_policy(*o).ok();
                selected += controller::classify_workload(v, *k).selected_by.size();
                ++classified;
            }
        }
        return std::tuple{classified, selected, decoded};
    };
    for (const auto& s : stages) {
        resync(s);  // warm
        const double t0 = cpu_seconds();
        std::size_t classified = 0, selected = 0;
        for (int r = 0; r < rounds; ++r) std::tie(classified, selected, std::ignore) = resync(s);
        const double per = (cpu_seconds() - t0) / rounds;
        std::printf("%s: full resync of %zu workloads (%zu selected; %d namespaces, %d policies, %d HPAs): %.4f CPU s "
                    "(%.1f us per workload)\n",
                    s.name, classified, selected, namespaces, namespaces * kPoliciesPerNamespace, workloads, per,
                    per * 1e6 / static_cast<double>(classified));
    }
    return 0;
}
