#include "attune/core/resize/plan_resize.hpp"

#include <boost/json.hpp>

#include "attune/core/resize/envelope.hpp"
#include "attune/core/resize/memory_clamp.hpp"
#include "attune/core/policy/overlay.hpp"
#include "attune/core/resize/qos_compat.hpp"

namespace attune::core {
namespace {

Container* find_by_name(std::vector<Container>& v, std::string_view name) {
    for (auto& c : v)
        if (c.name == name) return &c;
    return nullptr;
}

std::string join(const std::vector<std::string>& v) {
    std::string s;
    for (const auto& x : v) s += (s.empty() ? "" : "; ") + x;
    return s;
}

}  // namespace

ResourceRequirements apply_target(const ResourceRequirements& live, const ResourceRequirements& target,
                                  ControlledValues cv) {
    ResourceRequirements controlled;  // only what /resize may change and the policy controls
    for (std::string_view r : {kCpu, kMemory}) {
        if (const Quantity* q = find(target.requests, r)) controlled.requests.emplace(std::string(r), *q);
        if (cv == ControlledValues::RequestsAndLimits) {
            if (const Quantity* q = find(target.limits, r)) controlled.limits.emplace(std::string(r), *q);
        }
    }
    ResourceRequirements out = overlay_requirements(live, controlled);
    for (std::string_view r : {kCpu, kMemory}) {
        // requests <= limits or the API rejects the resize.
        auto req = out.requests.find(r);
        const Quantity* lim = find(out.limits, r);
        if (req != out.requests.end() && lim && req->second > *lim) req->second = *lim;
    }
    return out;
}

PlanOutcome plan_resize(const Pod& pod, std::span<const ContainerTarget> targets, const Capabilities& caps,
                        ControlledValues cv, const PlanOptions& options) {
    ResizePlan plan;
    plan.planned = pod;
    const QosClass qos = pod_qos(pod, caps.in_place_pod_level_resources);
    const bool guaranteed = qos == QosClass::Guaranteed;
    std::vector<const Container*> changed;

    for (const auto& t : targets) {
        Container* c = find_by_name(plan.planned.containers, t.name);
        const bool is_init = c == nullptr;
        if (is_init) c = find_by_name(plan.planned.init_containers, t.name);
        if (!c) return Skip{"container_not_found", "pod has no container " + t.name};
        if (is_init && !c->is_native_sidecar()) {
            return Skip{"not_resizable", "init container " + t.name + " is not a native sidecar; /resize cannot change it"};
        }
        if (is_init && !caps.in_place_sidecar_resize) {
            return Skip{"not_resizable", "native sidecar " + t.name + " cannot be resized in place before Kubernetes 1.33"};
        }
        const Container& live = *pod.find_container(t.name);
        ResourceRequirements next = apply_target(live.resources, t.resources, cv);
        // A container shaped Guaranteed (memory request == limit) in a
        // Guaranteed pod must keep that shape when its limit is held up.
        const Quantity* live_req = find(live.resources.requests, kMemory);
        const Quantity* live_lim = find(live.resources.limits, kMemory);
        const bool keep_equal = guaranteed && live_req && live_lim && *live_req == *live_lim;
        MemoryDecision m = clamp_memory_limit_decrease(live, std::move(next), caps.allow_in_place_memory_limit_decrease,
                                                       keep_equal);
        if (m.clamped) plan.memory_clamped.push_back(t.name);
        if (t.memory_usage) {
            m = apply_memory_usage_floor(live, std::move(m.resources), *t.memory_usage,
                                         options.memory_floor_headroom_percent, keep_equal);
            if (m.floored) plan.memory_floored.push_back(t.name);
        }
        if (m.resources != live.resources) {
            c->resources = std::move(m.resources);
            changed.push_back(c);
        }
    }
    if (changed.empty()) {
        return Skip{"no_change", "targets already match the live pod after the memory clamp and usage floor",
                    plan.memory_clamped, plan.memory_floored};
    }

    if (pod.pod_resources) {
        if (caps.in_place_pod_level_resources) {
            auto raise = raise_envelope(pod.pod_resources, plan.planned, qos);
            if (raise->limits_raised && cv == ControlledValues::RequestsOnly && !guaranteed) {
                return Skip{"envelope_constraint",
                            "RequestsOnly will not lift the pod-level (spec.resources) limit of a non-Guaranteed pod"};
            }
            if (raise->raised && options.node && !node_allows_pod_level_resize(caps, *options.node)) {
                // Container-only changes inside the envelope still pass on
                // such a node; a raise of spec.resources is refused there.
                return Skip{"envelope_constraint",
                            "the pod-level (spec.resources) envelope must grow, but the pod's node does not declare " +
                                std::string(kInPlacePodLevelResourcesFeature)};
            }
            if (raise->raised) {
                plan.planned.pod_resources = raise->next;
                plan.envelope = raise->next;
            }
        } else if (!pod.pod_resources->requests.empty() || !pod.pod_resources->limits.empty()) {
            // Decreases under the envelope look harmless, but every
            // apiserver without in-place pod-level resize (1.33-1.35, 1.36
            // with the gate off) forbids resizing such a pod at all (e2e:
            // "resize of pods with pod-level resources is forbidden ..."),
            // so any change is skipped.
            const auto why = exceeds_envelope(plan.planned, *pod.pod_resources);
            return Skip{"envelope_constraint",
                        "pods with pod-level resources (spec.resources) cannot be resized on this cluster" +
                            (why.empty() ? std::string() : ": " + join(why))};
        }
    }

    if (const auto qos_check = check_qos_compatibility(pod, plan.planned, caps.in_place_pod_level_resources);
        !qos_check.compatible) {
        return Skip{qos_check.reason, qos_check.message};
    }

    boost::json::array containers, init_containers;
    for (const Container* c : changed) {
        boost::json::object entry{{"name", c->name}, {"resources", requirements_json(c->resources)}};
        (c->is_native_sidecar() ? init_containers : containers).push_back(std::move(entry));
    }
    boost::json::object spec;
    if (!containers.empty()) spec["containers"] = std::move(containers);
    if (!init_containers.empty()) spec["initContainers"] = std::move(init_containers);
    if (plan.envelope) spec["resources"] = requirements_json(*plan.envelope);
    plan.body["spec"] = std::move(spec);
    plan.pod_requests = pod_requests(plan.planned);
    return plan;
}

}  // namespace attune::core
