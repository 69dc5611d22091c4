#pragma once
// doctor's rows about what is installed: the three CRDs at the schema this
// plugin reads, and the manager (running, which replica leads through the
// Lease, version). Pure: the shell reads the objects, these judge them.
#include "doctor_report.hpp"
#include "object_lookup.hpp"

#include <attune/core/util/timestamp.hpp>

#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace attune::cli {

// The CRDs and, per CRD, the schema properties this plugin reads; a CRD
// without one of them is older than the plugin (the apiserver prunes what
// its schema lacks).
struct known_crd {
    std::string_view name;                      // attunepolicies.attune.io
    std::vector<std::string_view> properties;  // "status.recommendations"
};
std::span<const known_crd> known_crds();
inline constexpr std::string_view kAttuneVersion = "v1alpha1";

struct crd_lookup {
    std::string name;
    object_lookup lookup;
};

// Required: FAIL when a CRD is missing, not Established, or does not serve
// v1alpha1 as its storage version; WARN when its schema lacks a property
// this plugin reads, or when the CRDs cannot be read (forbidden).
doctor_row crds_row(std::span<const crd_lookup> crds);

struct manager_facts {
    std::string ns;             // where the manager runs (--manager-namespace)
    std::string name;           // Deployment and Lease name: attune-manager
    object_lookup deployment;   // apps/v1 Deployment
    object_lookup lease;        // coordination.k8s.io/v1 Lease (only with --leader-elect)
};

// Required: ok when the Deployment has a ready replica or a Lease holder
// renewed within its lease duration; FAIL when neither the Deployment nor a
// fresh Lease exists; WARN when neither could be read (forbidden).
doctor_row manager_row(const manager_facts& m, core::Timestamp now);

}  // namespace attune::cli
