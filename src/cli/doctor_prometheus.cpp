#include "doctor_prometheus.hpp"

#include <attune/http/url.hpp>

#include <algorithm>
#include <map>

namespace attune::cli {

namespace {

DoctorRow row(DoctorStatus s, std::string detail) { return make_row("Prometheus", false, s, std::move(detail)); }

bool ends_with(std::string_view s, std::string_view tail) {
    return s.size() >= tail.size() && s.substr(s.size() - tail.size()) == tail;
}

std::string users(const PrometheusTarget& t) { return " (policy " + join_names(t.policies, 3) + ")"; }

}  // namespace

std::vector<PrometheusTarget> prometheus_targets(std::span<const core::EffectivePolicy> policies) {
    std::map<std::string, PrometheusTarget> by_address;
    for (const auto& p : policies) {
        const auto* prom = std::get_if<core::PrometheusSource>(&p.metrics.provider);
        if (prom == nullptr || prom->address.empty()) continue;
        auto& t = by_address[prom->address];
        t.address = prom->address;
        t.policies.push_back(p.namespace_ + "/" + p.name);
        // One probe per address: the first policy's TLS and headers stand for all.
        if (t.policies.size() == 1) {
            t.insecure_skip_verify = prom->insecure_skip_verify;
            t.headers = prom->headers;
        }
    }
    std::vector<PrometheusTarget> out;
    for (auto& [addr, t] : by_address) {
        std::sort(t.policies.begin(), t.policies.end());
        out.push_back(std::move(t));
    }
    return out;
}

std::optional<std::string> in_cluster_only(std::string_view address) {
    http::ServerUrl u;
    try {
        u = http::split_server_url(address);
    } catch (const std::invalid_argument&) {
        return std::nullopt;
    }
    std::string host = u.host;
    while (!host.empty() && host.back() == '.') host.pop_back();
    if (host.find(':') != std::string::npos) return std::nullopt;  // IPv6 literal
    if (host.find('.') == std::string::npos)
        return host == "localhost" ? std::nullopt
                                   : std::optional<std::string>("\"" + host + "\" is a single-label name (a Service in the policy's namespace)");
    if (ends_with(host, ".svc") || host.find(".svc.") != std::string::npos || ends_with(host, ".cluster.local"))
        return "\"" + host + "\" is a Service name only cluster DNS resolves";
    return std::nullopt;
}

std::vector<DoctorRow> prometheus_rows(std::span<const PrometheusTarget> targets,
                                       std::span<const PrometheusProbe> probes, const std::string& policies_error) {
    std::vector<DoctorRow> out;
    if (!policies_error.empty()) {
        out.push_back(row(DoctorStatus::Warn, "cannot list the policies to find their Prometheus: " + policies_error));
        return out;
    }
    if (targets.empty()) {
        out.push_back(row(DoctorStatus::Ok,
                          "no policy names a Prometheus address (the manager's auto-discovery in the cluster is "
                          "not checked from here)"));
        return out;
    }
    for (std::size_t i = 0; i < targets.size(); ++i) {
        const auto& t = targets[i];
        if (i >= probes.size()) {
            out.push_back(row(DoctorStatus::Warn, t.address + " not probed: doctor probes at most " +
                                                      std::to_string(kMaxPrometheusProbes) + " addresses" + users(t)));
            continue;
        }
        const auto& p = probes[i];
        if (p.skipped) {
            out.push_back(row(DoctorStatus::Ok, t.address + " skipped: " + p.skip_reason +
                                                    ", not reachable from here; the manager reaches it in the cluster" +
                                                    users(t)));
        } else if (p.healthy) {
            out.push_back(row(DoctorStatus::Ok, t.address + " healthy (/-/healthy in " +
                                                    std::to_string(p.took.count()) + " ms)" + users(t)));
        } else {
            out.push_back(row(DoctorStatus::Warn, t.address + " not healthy from here: " + p.error + users(t)));
        }
    }
    return out;
}

}  // namespace attune::cli
