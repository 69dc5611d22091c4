#pragma once
// doctor's Prometheus rows: one per distinct effective Prometheus address
// (the policy's block, else its defaults', through the core's defaults
// merge), probed with GET /-/healthy in 3 s from where doctor runs. An
// address only in-cluster DNS resolves (a Service name) is skipped politely:
// a workstation cannot reach it, and that says nothing about the manager.
// Optional rows: the manager, not doctor, is the one that must reach it.
// Pure; the shell runs the probes.
#include "doctor_report.hpp"

#include <attune/core/policy/policy.hpp>

#include <chrono>
#include <optional>
#include <span>
#include <string>
#include <vector>

namespace attune::cli {

inline constexpr std::chrono::milliseconds kPrometheusHealthTimeout{3000};
// Probed one after another, so doctor's deadline holds whatever the policies name.
inline constexpr std::size_t kMaxPrometheusProbes = 10;

struct PrometheusTarget {
    std::string address;
    std::vector<std::string> policies;  // "ns/name", sorted
    bool insecure_skip_verify = false;
    core::StringMap headers;
};

// Distinct addresses of the policies' effective Prometheus sources, in
// address order. Policies without a Prometheus source are not listed.
std::vector<PrometheusTarget> prometheus_targets(std::span<const core::EffectivePolicy> policies);

// Why only in-cluster DNS would resolve the address's host ("a Service name
// (.svc)", "a single-label name"), or nullopt when doctor should probe it.
// An unparseable address gives nullopt: the probe then reports it.
std::optional<std::string> in_cluster_only(std::string_view address);

struct PrometheusProbe {
    bool skipped = false;  // in-cluster only: not probed
    std::string skip_reason;
    bool healthy = false;
    std::chrono::milliseconds took{0};
    std::string error;  // when probed and not healthy
};

// `probes` is parallel to `targets`; targets past the probes (beyond
// kMaxPrometheusProbes) get a WARN row "not probed". `policies_error`: the
// policies could not be listed (the row then says so). No target: one ok
// row saying so.
std::vector<DoctorRow> prometheus_rows(std::span<const PrometheusTarget> targets,
                                       std::span<const PrometheusProbe> probes, const std::string& policies_error);

}  // namespace attune::cli
