#pragma once
// plan_resize: from the live pod, per-container targets and the cluster's
// capabilities to either one atomic /resize body or a reasoned skip.
#include <boost/json/object.hpp>
#include <optional>
#include <span>
#include <string>
#include <variant>
#include <vector>

#include "attune/core/model/capabilities.hpp"
#include "attune/core/model/pod_model.hpp"
#include "attune/core/model/qos.hpp"
#include "attune/core/policy/resource_tuning.hpp"  // ControlledValues

namespace attune::core {

struct ContainerTarget {
    std::string name;                // app container or native sidecar
    ResourceRequirements resources;  // cpu/memory keys used; others ignored
    // Observed memory working set, for the usage floor on limit decreases.
    std::optional<Quantity> memory_usage;
};

struct PlanOptions {
    unsigned memory_floor_headroom_percent = 10;
    // The pod's node, when known. The apiserver checks that node's declared
    // features before it raises spec.resources in place, so an envelope that
    // must grow on a node that does not declare the feature is skipped
    // (envelope_constraint). Unset: the cluster-wide capability decides.
    std::optional<NodeProbe> node;
};

struct ResizePlan {
    // Strategic-merge patch for PATCH .../pods/{name}/resize:
    // {"spec":{"containers":[{name,resources}], "initContainers":[...sidecars],
    //          "resources":{...envelope, only when raised in place}}}
    boost::json::object body;
    Pod planned;                                   // the live pod with the plan applied
    std::optional<ResourceRequirements> envelope;  // the raised envelope when in the body
    // Capacity pre-check input: per cpu/memory,
    // max(sum_container_requests, envelope.requests) after the plan.
    ResourceList pod_requests;
    std::vector<std::string> memory_clamped;  // containers whose limit decrease was clamped
    std::vector<std::string> memory_floored;  // containers held up by the usage floor
};

// Reasons are history/event strings: "envelope_constraint",
// "InPlaceResizeWouldChangeQoSClass" (check_qos_compatibility, the
// lifecycle's ResizeBlocked reason), "no_change", "container_not_found", "not_resizable".
struct Skip {
    std::string reason;
    std::string message;
    // For no_change: containers whose target the memory clamp or the usage
    // floor cancelled (MemoryLimitClamped / MemoryLimitUsageFloor Events).
    std::vector<std::string> memory_clamped;
    std::vector<std::string> memory_floored;
};

using PlanOutcome = std::variant<ResizePlan, Skip>;

// One target written over a container's resources, as plan_resize writes
// it: only cpu/memory, limits only under RequestsAndLimits, keys the target
// does not name inherited, nothing removed, requests kept <= limits.
// Template persistence writes the same values onto the pod template.
ResourceRequirements apply_target(const ResourceRequirements& live, const ResourceRequirements& target,
                                  ControlledValues controlled_values);

// Steps: write each target onto a copy of the live pod (RequestsOnly leaves
// limits alone; requests are kept <= limits), apply the memory clamp
// (caps.allow_in_place_memory_limit_decrease) and usage floor, then the
// envelope: raise it in place when caps.in_place_pod_level_resources (skip
// envelope_constraint if RequestsOnly would lift a non-Guaranteed envelope
// limit). Without in-place pod-level resize, a pod with a non-empty
// envelope cannot be resized at all (apiserver validation), so any change
// is skipped as envelope_constraint. Last, the QoS class must not change
// (check_qos_compatibility): the envelope decides QoS only when in-place
// pod-level resize is on.
PlanOutcome plan_resize(const Pod& pod, std::span<const ContainerTarget> targets, const Capabilities& caps,
                        ControlledValues controlled_values, const PlanOptions& options = {});

}  // namespace attune::core
