#pragma once
// The progressive validation lifecycle (docs/lifecycle.md) as one pure
// step function. Each reconcile of a workload under updateStrategy Canary:
//
//   plan = plan_attempt(...)                       (lifecycle_attempt.hpp)
//   pods = live pods + classify_resize_state(pod, plan.candidate)
//   d    = step_lifecycle({..., plan, pods, previous entry, now, ...})
//   carry out d.actions in order, write d.status into status.lifecycle
//
// Everything step_lifecycle knows comes from its inputs, and everything it
// must remember goes into the status entry, so a manager restart at any
// phase (same entry, same pods) gives the same decision: no step is
// repeated or skipped, and a step whose pods are all Applied is not
// re-issued. docs/lifecycle.md has the phase diagram and every rule.
#include <optional>
#include <string>
#include <variant>
#include <vector>

#include "attune/core/lifecycle/lifecycle_attempt.hpp"
#include "attune/core/policy/lifecycle_spec.hpp"
#include "attune/core/lifecycle/lifecycle_status.hpp"
#include "attune/core/model/pod_model.hpp"
#include "attune/core/resize/resize_state.hpp"
#include "attune/core/lifecycle/revision.hpp"
#include "attune/core/lifecycle/throttling_analysis.hpp"
#include "attune/core/util/timestamp.hpp"

namespace attune::core {

struct LifecyclePod {
    const Pod* pod = nullptr;  // the live pod: name, uid, Ready, resources (for the QoS check)
    ResizeStatus resize;       // classify_resize_state(*pod, request for plan.candidate)
};

// The measurement a RunThrottlingAnalysis asked for, tagged so that an
// answer for another revision or step is never used.
struct LifecycleAnalysisInput {
    std::string revision;
    std::size_t step = 0;
    ThrottlingMeasurement measurement;
};

struct LifecycleInputs {
    WorkloadIdentity workload;
    // The workload's attune.io/persisted-revision annotation ("" when absent).
    std::string persisted_revision;
    AttemptPlan attempt;  // plan_attempt for this reconcile
    std::vector<LifecyclePod> pods;
    EffectiveLifecycle spec;
    const LifecycleStatusEntry* previous = nullptr;
    bool pod_level_resources_gate = false;  // Capabilities::in_place_pod_level_resources, for QoS
    Timestamp now{};
    std::optional<LifecycleAnalysisInput> analysis;
};

struct PodRef {
    std::string name;
    std::string uid;
    friend bool operator==(const PodRef&, const PodRef&) = default;
};

// Resize these pods in place to `target` (through plan_resize). At most
// maxConcurrentResizes are in flight at once.
struct ResizePods {
    std::vector<PodRef> pods;
    ContainerResourceMap target;
    std::string revision;
    friend bool operator==(const ResizePods&, const ResizePods&) = default;
};
// Best effort: resize these pods back to the frozen baseline.
struct RollbackPods {
    std::vector<PodRef> pods;
    ContainerResourceMap baseline;
    std::string revision;  // the revision rolled back
    friend bool operator==(const RollbackPods&, const RollbackPods&) = default;
};
// Query increase() of the two CFS counters per pod over `window`, then call
// step_lifecycle again with the measurement in LifecycleInputs::analysis.
struct RunThrottlingAnalysis {
    std::vector<std::string> pods;
    Seconds window{0};
    std::string revision;
    std::size_t step = 0;
    friend bool operator==(const RunThrottlingAnalysis&, const RunThrottlingAnalysis&) = default;
};
// TemplatePatch persistence: patch the pod template with `resources` and
// the revision annotations (docs/lifecycle.md). Idempotent; repeated until the
// workload carries attune.io/persisted-revision == revision.
struct PatchTemplate {
    ContainerResourceMap resources;
    std::string revision;
    friend bool operator==(const PatchTemplate&, const PatchTemplate&) = default;
};
// The webhook must no longer inject `revision`: write the status (which no
// longer offers it) before any other action.
struct ClearWebhookEligibility {
    std::string revision;
    friend bool operator==(const ClearWebhookEligibility&, const ClearWebhookEligibility&) = default;
};
struct EmitEvent {
    bool warning = false;
    std::string reason;
    std::string message;
    friend bool operator==(const EmitEvent&, const EmitEvent&) = default;
};
// Condition ResizeBlocked=True on the policy with this reason and message.
// Absent from a decision: the lifecycle no longer blocks this workload.
struct SetResizeBlocked {
    std::string reason;
    std::string message;
    friend bool operator==(const SetResizeBlocked&, const SetResizeBlocked&) = default;
};

using LifecycleAction = std::variant<ResizePods, RollbackPods, RunThrottlingAnalysis, PatchTemplate,
                                     ClearWebhookEligibility, EmitEvent, SetResizeBlocked>;

struct LifecycleDecision {
    LifecycleStatusEntry status;  // the workload's next status.lifecycle entry
    std::vector<LifecycleAction> actions;
    // Reconcile again at this time at the latest (a pause, the settle gate,
    // the initial delay or a readiness deadline ends); pod events may come
    // sooner.
    std::optional<Timestamp> requeue_at;
    friend bool operator==(const LifecycleDecision&, const LifecycleDecision&) = default;
};

LifecycleDecision step_lifecycle(const LifecycleInputs& in);

}  // namespace attune::core
