#pragma once
// Pod QoS class exactly as Kubernetes computes it (ComputePodQOS).
#include <optional>
#include <string_view>

#include "attune/core/model/pod_model.hpp"

namespace attune::core {

enum class QosClass { BestEffort, Burstable, Guaranteed };

std::string_view qos_name(QosClass q) noexcept;
std::optional<QosClass> parse_qos(std::string_view name) noexcept;

// ComputePodQOS. With pod_level_resources_gate on and spec.resources present
// (even empty), only the pod-level cpu/memory decide; otherwise every app,
// init and sidecar container counts, with requests and limits summed per
// resource. Zero quantities are unset; only cpu and memory matter.
QosClass compute_pod_qos(const Pod& pod, bool pod_level_resources_gate);

// The class the pod has: status.qosClass when reported, else computed
// (upstream GetPodQOS). Unknown status strings fall back to computing.
QosClass pod_qos(const Pod& pod, bool pod_level_resources_gate);

}  // namespace attune::core
