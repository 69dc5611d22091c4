#pragma once
// Where an in-place resize stands, from pod status and the generation of
// our /resize (docs/resize.md#one-pod-step-by-step, step 5).
// A successful PATCH is not "applied": the runtime must report the target.
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>

#include "attune/core/model/pod_model.hpp"

namespace attune::core {

enum class ResizeState {
    Pending,     // no resize requested, or the spec does not carry our target
    InProgress,  // spec has the target, runtime status has not caught up
    Deferred,    // Kubernetes reports a retryable pending resize
    Infeasible,  // Kubernetes will not apply it
    Applied,     // spec and runtime status both reflect the target
};

std::string_view resize_state_name(ResizeState s) noexcept;
// The inverse of resize_state_name; nullopt for any other text.
std::optional<ResizeState> parse_resize_state(std::string_view name) noexcept;

struct ResizeRequest {
    // metadata.generation from the /resize response; 0 when the server does
    // not report generations (1.32).
    std::int64_t generation = 0;
    // What we asked for, per container (cpu/memory keys compared).
    std::map<std::string, ResourceRequirements, std::less<>> targets;
    // The pod-level envelope (spec.resources) we asked for, when the body
    // raised it: Applied then also needs pod-level status.resources to match.
    std::optional<ResourceRequirements> envelope;
};

struct ResizeStatus {
    ResizeState state = ResizeState::Pending;
    std::string reason;   // condition or status.resize reason ("Error", "Deferred", ...)
    std::string message;  // surfaced from the condition (e.g. the kubelet's error)
};

// request == nullptr: nothing requested, Pending. Order of evidence:
//  1. PodResizePending with observedGeneration >= G (or unset):
//     Infeasible / Deferred by reason;
//  2. PodResizeInProgress present: InProgress (reason Error surfaces its message);
//  3. 1.32 status.resize: Infeasible / Deferred / Proposed|InProgress;
//  4. every target container's status.resources (and allocatedResources
//     where present) equal to the target as Quantities, and the pod's
//     status.observedGeneration (where reported) >= G: Applied. A missing
//     status.resources is not applied.
ResizeStatus classify_resize_state(const Pod& pod, const ResizeRequest* request);

// Where the pod's *own* spec stands, whoever asked for it: the request is
// every app container and native sidecar as the spec has it now, plus the
// envelope where the pod reports pod-level status.resources, at the pod's
// generation. Applied means no resize is pending or
// in progress, so a new one may be planned (eligibility, and the executor
// after a restart, when it no longer knows what it asked for).
ResizeStatus classify_current_resize(const Pod& pod);

// That request on its own: the pod's own spec at its generation (what the
// executor follows for a resize it finds in flight after a restart or a
// failover, when it no longer knows what it asked for).
ResizeRequest current_request(const Pod& pod);

}  // namespace attune::core
