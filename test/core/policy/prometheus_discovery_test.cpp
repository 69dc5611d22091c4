#include <attune/core/policy/prometheus_discovery.hpp>

#include <gtest/gtest.h>

namespace attune::core {
namespace {

using Objects = std::vector<PrometheusOperatorObject>;
using Services = std::vector<FoundService>;

TEST(PrometheusDiscovery, OperatorObjectsFirstThenWellKnownServicesInOrder) {
    struct Case {
        const char* what;
        Objects objects;
        Services services;
        std::optional<DiscoveredPrometheus> want;
    };
    const Case cases[] = {
        {"nothing", {}, {}, std::nullopt},
        {"one operator object, default port",
         {{"monitoring", "k8s", std::nullopt}},
         {},
         DiscoveredPrometheus{"http://prometheus-k8s.monitoring:9090",
                              "Prometheus monitoring/k8s (Prometheus Operator)"}},
        {"the first in namespace/name order, its spec.port",
         {{"zz", "a", 1}, {"obs", "main", 9091}, {"obs", "b-second", std::nullopt}},
         {},
         DiscoveredPrometheus{"http://prometheus-b-second.obs:9090", "Prometheus obs/b-second (Prometheus Operator)"}},
        {"an operator object beats a well-known Service",
         {{"obs", "main", 9091}},
         {{"monitoring", "prometheus-server", 80}},
         DiscoveredPrometheus{"http://prometheus-main.obs:9091", "Prometheus obs/main (Prometheus Operator)"}},
        {"a nonsense spec.port is the default",
         {{"obs", "main", 70000}},
         {},
         DiscoveredPrometheus{"http://prometheus-main.obs:9090", "Prometheus obs/main (Prometheus Operator)"}},
        {"Services in the well-known order, not the given one",
         {},
         {{"kube-prometheus-stack", "prometheus-kube-prometheus-prometheus", 9090},
          {"prometheus", "prometheus-server", 80}},
         DiscoveredPrometheus{"http://prometheus-server.prometheus:80", "Service prometheus/prometheus-server"}},
        {"a Service's first port, else 9090",
         {},
         {{"monitoring", "prometheus-kube-prometheus-prometheus", std::nullopt}},
         DiscoveredPrometheus{"http://prometheus-kube-prometheus-prometheus.monitoring:9090",
                              "Service monitoring/prometheus-kube-prometheus-prometheus"}},
        {"a Service of another name is not looked at", {}, {{"monitoring", "grafana", 3000}}, std::nullopt},
    };
    for (const auto& c : cases) {
        EXPECT_EQ(discover_prometheus(c.objects, c.services), c.want) << c.what;
    }
}

TEST(PrometheusDiscovery, NoneFoundTextNamesWhatWasLookedFor) {
    const auto text = no_prometheus_discovered_text();
    for (const auto& s : well_known_prometheus_services())
        EXPECT_NE(text.find(s.namespace_ + "/" + s.name), std::string::npos) << text;
    EXPECT_NE(text.find("monitoring.coreos.com"), std::string::npos);
}

}  // namespace
}  // namespace attune::core
