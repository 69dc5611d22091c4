#include "attune/core/resize/qos_compat.hpp"

namespace attune::core {

QosCompatibility check_qos_compatibility(const Pod& live, const Pod& after, bool pod_level_resources_gate) {
    QosCompatibility out;
    out.current = pod_qos(live, pod_level_resources_gate);
    out.after = compute_pod_qos(after, pod_level_resources_gate);
    if (out.current == out.after) return out;
    out.compatible = false;
    out.condition_type = kResizeBlockedCondition;
    out.reason = kReasonWouldChangeQos;
    out.message = "in-place resize would change the pod QoS class from " + std::string(qos_name(out.current)) +
                  " to " + std::string(qos_name(out.after)) + ", which Kubernetes fixes at creation";
    switch (out.current) {
        case QosClass::BestEffort:
            out.message += "; a resource-less BestEffort pod cannot receive CPU or memory requests in place: add "
                           "initial resources to the workload template and recreate the pods before validation";
            break;
        case QosClass::Guaranteed:
            out.message += "; a Guaranteed pod keeps requests equal to limits: use controlledValues "
                           "RequestsAndLimits, or give the template requests below limits and recreate the pods";
            break;
        case QosClass::Burstable:
            out.message += "; to make the pod Guaranteed, set requests equal to limits in the workload template and "
                           "recreate the pods";
            break;
    }
    return out;
}

QosCompatibility check_qos_compatibility(const Pod& live, const ContainerResourceMap& targets,
                                         bool pod_level_resources_gate) {
    Pod after = live;
    for (const auto& [name, rr] : targets) {
        if (Container* c = after.find_container(name)) c->resources = overlay_requirements(c->resources, rr);
    }
    return check_qos_compatibility(live, after, pod_level_resources_gate);
}

}  // namespace attune::core
