#pragma once
// doctor's cgroup v2 row (docs/cli.md#the-cgroup-v2-row). In-place
// resize needs cgroup v2, but no Node field reports a node's runtime cgroup
// version, and doctor never execs, never calls a node's /proxy and never
// scrapes a kubelet's /metrics. So the row reads only what the node list
// (the same list the Capabilities probe read) says:
//   - the list failed (Forbidden, ...)   => WARN could not determine;
//   - a Ready node's kernel is before 5.8 => WARN suspect cgroup v1 there;
//   - otherwise (kernel 5.8+ or unknown)  => WARN could not determine;
//   - git version 1.35+ (and Ready nodes, when the list could tell): the
//     kubelet's failCgroupV1 defaults true, as a note;
//   - NFD's kernel.config.CGROUP_V2 label: a footnote only (compiled in,
//     not booted), never ok.
// It is never ok and never FAIL (a heuristic proves nothing), and it is
// optional, so it never changes doctor's exit status. Pure.
#include "doctor_report.hpp"

#include <attune/core/model/capabilities.hpp>

#include <string_view>

namespace attune::cli {

inline constexpr std::string_view kCgroupRowName = "cgroup v2";

// `major`/`minor`: the server's git version (0/0 when unknown).
DoctorRow cgroup_row(const core::NodeListProbe& nodes, unsigned major, unsigned minor);

}  // namespace attune::cli
