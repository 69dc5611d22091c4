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
struct KnownCrd {
    std::string_view name;                      // attunepolicies.attune.io
    std::vector<std::string_view> properties;  // "status.recommendations"
};
std::span<const KnownCrd> known_crds();
inline constexpr std::string_view kAttuneVersion = "v1alpha1";

struct CrdLookup {
    std::string name;
    ObjectLookup lookup;
};

// Required: FAIL when a CRD is missing, not Established, or does not serve
// v1alpha1 as its storage version; WARN when its schema lacks a property
// this plugin reads, or when the CRDs cannot be read (forbidden).
DoctorRow crds_row(std::span<const CrdLookup> crds);

struct ManagerFacts {
    std::string ns;             // where the manager runs (--manager-namespace)
    std::string name;           // Deployment and Lease name: attune-manager
    ObjectLookup deployment;    // apps/v1 Deployment
    ObjectLookup lease;         // coordination.k8s.io/v1 Lease (only with --leader-elect)
};

// Required: ok when the Deployment has a ready replica or a Lease holder
// renewed within its lease duration; FAIL when neither the Deployment nor a
// fresh Lease exists; WARN when neither could be read (forbidden).
DoctorRow manager_row(const ManagerFacts& m, core::Timestamp now);

}  // namespace attune::cli
