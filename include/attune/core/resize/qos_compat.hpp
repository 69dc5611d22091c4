#pragma once
// QoS compatibility (docs/lifecycle.md): Kubernetes fixes a pod's QoS class at
// creation and an in-place resize cannot change it. Checked on the whole
// pod (targeted containers, untargeted sidecars, init containers) before a
// resize is requested.
#include <string>

#include "attune/core/policy/overlay.hpp"
#include "attune/core/model/pod_model.hpp"
#include "attune/core/model/qos.hpp"

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

// The one QoS check: plan_resize calls it on the pod it planned, the
// lifecycle on its candidate. The live class is status.qosClass when
// reported (what the apiserver compares against), else computed.
// `pod_level_resources_gate`: whether spec.resources decides QoS (pass
// Capabilities::in_place_pod_level_resources).
QosCompatibility check_qos_compatibility(const Pod& live, const Pod& after, bool pod_level_resources_gate);

// `targets` overlay the live containers (explicit keys replace, omitted
// keys inherited), then as above.
QosCompatibility check_qos_compatibility(const Pod& live, const ContainerResourceMap& targets,
                                         bool pod_level_resources_gate);

}  // namespace attune::core
