#include <attune/core/policy/prometheus_discovery.hpp>

#include <algorithm>
#include <array>
#include <tuple>

namespace attune::core {

namespace {
constexpr std::int64_t kPrometheusPort = 9090;

std::int64_t port_or_default(const std::optional<std::int64_t>& p) {
    return p && *p > 0 && *p <= 65535 ? *p : kPrometheusPort;
}
}  // namespace

std::span<const ServiceName> well_known_prometheus_services() {
    static const std::array<ServiceName, 4> kServices{{
        {"monitoring", "prometheus-server"},
        {"monitoring", "prometheus-kube-prometheus-prometheus"},
        {"prometheus", "prometheus-server"},
        {"kube-prometheus-stack", "prometheus-kube-prometheus-prometheus"},
    }};
    return kServices;
}

std::optional<DiscoveredPrometheus> discover_prometheus(std::span<const PrometheusOperatorObject> objects,
                                                        std::span<const FoundService> services) {
    std::optional<DiscoveredPrometheus> found;
    if (!objects.empty()) {
        const auto first = std::min_element(objects.begin(), objects.end(), [](const auto& a, const auto& b) {
            return std::tie(a.namespace_, a.name) < std::tie(b.namespace_, b.name);
        });
        found = DiscoveredPrometheus{"http://prometheus-" + first->name + "." + first->namespace_ + ":" +
                                         std::to_string(port_or_default(first->port)),
                                     "Prometheus " + first->namespace_ + "/" + first->name + " (Prometheus Operator)"};
    } else {
        for (const auto& want : well_known_prometheus_services()) {
            const auto it = std::find_if(services.begin(), services.end(), [&](const FoundService& s) {
                return s.namespace_ == want.namespace_ && s.name == want.name;
            });
            if (it == services.end()) continue;
            found = DiscoveredPrometheus{"http://" + it->name + "." + it->namespace_ + ":" +
                                             std::to_string(port_or_default(it->first_port)),
                                         "Service " + it->namespace_ + "/" + it->name};
            break;
        }
    }
    return found;
}

std::string no_prometheus_discovered_text() {
    std::string names;
    for (const auto& s : well_known_prometheus_services())
        names += (names.empty() ? "" : ", ") + s.namespace_ + "/" + s.name;
    return "auto-discovery found no Prometheus (no monitoring.coreos.com Prometheus object, and none of the "
           "Services " +
           names + ")";
}

}  // namespace attune::core
