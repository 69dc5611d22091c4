#pragma once
// QoS compatibility (seed 001): Kubernetes fixes a pod's QoS class at
// creation and an in-place resize cannot change it. Checked on the whole
// pod (targeted containers, untargeted sidecars, init containers) before a
// resize is requested.
#include <string>

#include "attune/core/overlay.hpp"
#include "attune/core/pod_model.hpp"
#include "attune/core/qos.hpp"

namespace attune::core {

inline constexpr std::string_view kResizeBlockedCondition = "ResizeBlocked";
inline constexpr std::string_view kReasonWouldChangeQos = "InPlaceResizeWouldChangeQoSClass";

struct QosCompatibility {
    bool compatible = true;
    QosClass current = QosClass::BestEffort;
    QosClass after = QosClass::BestEffort;
    // When incompatible: condition ResizeBlocked=True with this reason.
    std::string condition_type;
    std::string reason;
    std::string message;
};

// `targets` overlay the live containers (explicit keys replace, omitted
// keys inherited). `pod_level_resources_gate`: whether spec.resources
// decides QoS (in-place pod-level resize on).
QosCompatibility check_qos_compatibility(const Pod& live, const ContainerResourceMap& targets,
                                         bool pod_level_resources_gate);

}  // namespace attune::core
