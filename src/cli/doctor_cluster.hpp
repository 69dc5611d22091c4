#pragma once
// doctor's rows about the cluster itself, from the same probes and the same
// core::decide_capabilities the manager runs at start (one discovery,
// reused): the Kubernetes version with Attune's stance per minor,
// pods/resize, and one row per Capabilities decision with its reason.
// Pure.
#include "doctor_report.hpp"

#include <attune/core/model/capabilities.hpp>
#include <attune/core/util/result.hpp>

#include <vector>

namespace attune::cli {

// Required: FAIL below 1.32 or when /version is unusable; WARN above the
// newest minor Attune has tested (1.37).
DoctorRow kubernetes_version_row(const core::ServerVersionProbe& version);

// Required: FAIL when discovery does not list pods/resize on v1.
DoctorRow pods_resize_row(const core::ApiResourcesProbe& resources, const core::ServerVersionProbe& version);

// Optional rows, one per decision: pod-level resources (the field) and
// in-place pod-level resize (the three-way declaredFeatures rule, with its
// source; WARN when some Ready nodes cannot have spec.resources changed in
// place, or when the answer is a fallback because nodes could not be
// listed) -- both omitted before 1.33, where pod-level resources do not
// exist for Attune --, then memory-limit decrease, HPA scale-to-zero and
// sidecar resize.
std::vector<DoctorRow> capability_rows(const core::Capabilities& caps, const core::OpenApiProbe& openapi,
                                       const core::NodeListProbe& nodes);

}  // namespace attune::cli
