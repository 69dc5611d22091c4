#pragma once
// Prometheus auto-discovery, for a policy whose merged settings name no
// metrics source at all (docs/recommender.md, "Prometheus auto-discovery"):
// the first Prometheus Operator `Prometheus` object, else the first of a few
// well-known Services, as the Go Attune finds it. Pure: the controller lists
// and reads what this needs and hands it in.
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

namespace attune::core {

// A monitoring.coreos.com/v1 Prometheus object.
struct PrometheusOperatorObject {
    std::string namespace_;
    std::string name;
    std::optional<std::int64_t> port;  // spec.port, when set and positive
};

// A Service that exists (one of well_known_prometheus_services()).
struct FoundService {
    std::string namespace_;
    std::string name;
    std::optional<std::int64_t> first_port;  // spec.ports[0].port
};

struct ServiceName {
    std::string namespace_;
    std::string name;
    friend bool operator==(const ServiceName&, const ServiceName&) = default;
};

// The Services looked for, in the order they are tried: the Prometheus
// community chart's and kube-prometheus-stack's default names.
std::span<const ServiceName> well_known_prometheus_services();

struct DiscoveredPrometheus {
    std::string address;  // "http://prometheus-k8s.monitoring:9090"
    std::string
        found_by;  // "Prometheus monitoring/k8s (Prometheus Operator)" or "Service monitoring/prometheus-server"
    friend bool operator==(const DiscoveredPrometheus&, const DiscoveredPrometheus&) = default;
};

// The Prometheus Operator object first in namespace/name order (its Service
// prometheus-NAME.NAMESPACE on spec.port, default 9090), else the first
// found Service in the well-known order (its first port, default 9090).
// nullopt when there is neither. The host is always SERVICE.NAMESPACE, two
// DNS labels, which the endpoint rule (check_endpoint_url) never refuses;
// what it resolves to is still checked at connect time, as for any address
// (check_resolved_address).
std::optional<DiscoveredPrometheus> discover_prometheus(std::span<const PrometheusOperatorObject> objects,
                                                        std::span<const FoundService> services);

// Why a policy with no source has none, for its Ready message.
std::string no_prometheus_discovered_text();

}  // namespace attune::core
