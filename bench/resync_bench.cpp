// Full resync of 1,000 workloads (bench/RESULTS.md): every policy's pass is
// planned and every selected workload classified, exactly as the workers do
// after enqueue_all_policies(), against the manager's real caches (compact
// text, the real transforms, HPAs decoded once per change and indexed by
// scale target). Prints CPU seconds per resync.
//
// "before" adds, per workload, the decode of every HPA in its namespace that
// classify_workload did until the HPA index (commit 111806b): that loop is
// kept here only as the baseline. Figures only, never asserted.
#include <attune/controller/reconcile.hpp>
#include <attune/core/idle.hpp>
#include <attune/kube/transforms.hpp>

#include <boost/json.hpp>

#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <string>

namespace {
namespace json = boost::json;
using namespace attune;
using kube::object_cache;
using kube::watch_event_type;

json::value deployment(const std::string& ns, int i) {
    const std::string name = "svc-" + std::to_string(i);
    return json::parse(R"({"apiVersion":"apps/v1","kind":"Deployment","metadata":{"namespace":")" + ns + R"(","name":")" +
                       name + R"(","uid":")" + name + R"(-uid","resourceVersion":"1","labels":{"attune.io/bench":"true","app":")" +
                       name + R"("}},"spec":{"replicas":)" + std::to_string(i % 17 == 0 ? 0 : 3) +
                       R"(,"selector":{"matchLabels":{"app":")" + name +
                       R"("}},"template":{"metadata":{"labels":{"app":")" + name +
                       R"("}},"spec":{"containers":[{"name":"app","image":"i","resources":{"requests":{"cpu":"20m"}}}]}}}})");
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
    object_cache deployments(kube::strip_workload, kube::cache_storage::compact_text);
    object_cache none(kube::strip_workload, kube::cache_storage::compact_text);
    object_cache hpas(kube::strip_hpa,
                      kube::cache_storage::compact_text);
    controller::index_hpas(hpas);
    // The old manager held HPAs as trees: its per-event decode paid no parse.
    object_cache hpas_before(kube::strip_hpa, kube::cache_storage::tree);
    object_cache policies(kube::strip_generic, kube::cache_storage::compact_text);
    for (int n = 0; n < namespaces; ++n) {
        const std::string ns = "bench-" + std::to_string(n);
        policies.apply(watch_event_type::added,
                       json::parse(R"({"apiVersion":"attune.io/v1alpha1","kind":"AttunePolicy","metadata":{"namespace":")" +
                                   ns + R"(","name":"bench","resourceVersion":"1","generation":1},"spec":{"selector":{"matchLabels":{"attune.io/bench":"true"}}}})"));
    }
    for (int i = 0; i < workloads; ++i) {
        const std::string ns = "bench-" + std::to_string(i % namespaces);
        deployments.apply(watch_event_type::added, deployment(ns, i));
        hpas.apply(watch_event_type::added, hpa(ns, i));  // one HPA per workload
        hpas_before.apply(watch_event_type::added, hpa(ns, i));
    }
    controller::cache_views v{&deployments, &none, &none, &none, &hpas, &policies};

    auto resync = [&](bool before) {
        std::size_t classified = 0, decoded = 0;
        for (const auto& p : policies.all()) {
            controller::object_key pk{std::string(kube::meta_string(*p, "namespace")), "AttunePolicy",
                                      std::string(kube::meta_string(*p, "name"))};
            auto plan = controller::plan_policy_pass(v, pk);
            for (const auto& t : plan.targets) {
                auto k = controller::parse_object_key(t);
                if (before) {
                    for (const auto& h : hpas_before.in_namespace(k->ns)) decoded += core::decode_hpa(*h).ok();
                }
                controller::classify_workload(v, *k);
                ++classified;
            }
        }
        return std::pair{classified, decoded};
    };
    for (bool before : {true, false}) {
        resync(before);  // warm
        const double t0 = cpu_seconds();
        std::size_t classified = 0;
        for (int r = 0; r < rounds; ++r) classified = resync(before).first;
        const double per = (cpu_seconds() - t0) / rounds;
        std::printf("%s: full resync of %zu workloads (%d namespaces, %d HPAs): %.4f CPU s (%.1f us per workload)\n",
                    before ? "before (decode every HPA of the namespace per workload)"
                           : "after  (HPA decoded once per change, indexed by scale target)",
                    classified, namespaces, workloads, per, per * 1e6 / static_cast<double>(classified));
    }
    return 0;
}
