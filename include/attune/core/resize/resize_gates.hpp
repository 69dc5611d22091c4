#pragma once
// The executor's per-pod decision (docs/resize.md): plan the resize, then
// gate it. A maintenance window and the cooldown hold every change; the other
// gates hold increases (they fail closed) and let decreases through.
//
//   paused                         blocks everything (the API: "stops all work")
//   cooldown, outside_schedule     block every change, decreases too, except a
//                                  restore (ResizeGateInputs::restore)
//   max_concurrent_resizes         block every increase
//   budget_exhausted               per resource (maxTotal{Cpu,Memory}Increase)
//   node_memory_pressure           memory increases
//   node_disk_pressure / _pid_     every increase
//   node_capacity                  per resource (requests past allocatable; node not cached: all)
//   limit_range                    any changed value LimitRange admission would refuse (either direction)
//   resource_quota                 per resource increase past ResourceQuota headroom
//   envelope_constraint, InPlaceResizeWouldChangeQoSClass, not_resizable, container_not_found
//                                  from plan_resize: the whole resize
//
// A target that raises one resource and lowers the other, when only the
// raise is gated: the blocked increase is dropped (each blocked value is
// held at its live value, decreases of the same resource kept) and the rest
// is re-planned and goes ahead, with the gate's Event naming what was
// dropped. If nothing is left, the pod is held with the gate's reason.
#include <chrono>
#include <optional>
#include <span>
#include <string>
#include <variant>
#include <vector>

#include "attune/core/resize/admission_limits.hpp"
#include "attune/core/resize/cooldown.hpp"
#include "attune/core/resize/node_fit.hpp"
#include "attune/core/resize/plan_resize.hpp"
#include "attune/core/resize/resize_events.hpp"
#include "attune/core/resize/schedule_window.hpp"

namespace attune::core {

// Everything the gates read, as plain values the shell fills per pod.
struct ResizeGateInputs {
    Timestamp now;
    bool paused = false;
    // cooldown_state(updateStrategy.cooldown, count_consecutive_reverts(history))
    CooldownState cooldown;
    std::optional<std::string> last_resize_time;  // the policy's attune.io/last-resize-time
    Schedule schedule;
    std::optional<TimeZone> zone;  // schedule.timezone as loaded; nullopt: could not be (fails open)
    int max_concurrent_resizes = 1;
    int resizes_in_flight = 0;  // this policy's pods submitted and not yet Applied
    std::optional<Quantity> max_total_cpu_increase;  // unset: unlimited
    std::optional<Quantity> max_total_memory_increase;
    ResourceList increase_used;  // request increases already admitted this cycle (ResizeGo::increase summed)
    std::optional<NodeFacts> node;  // the pod's node; nullopt: not cached (increases fail closed)
    ResourceList node_others_requests;  // sum_pod_requests(pods on the node, except this pod)
    std::vector<LimitRangeItem> limit_ranges;
    std::vector<QuotaFacts> quotas;
    // The end of a startup boost or a lifecycle rollback: a return to values
    // the workload already ran with, so neither the schedule nor the cooldown
    // holds it (safety reverts do not come through here: plan_revert).
    bool restore = false;
};

struct GateBlock {
    std::string gate;      // the reason string (skip_report)
    std::string resource;  // cpu | memory | "" (every resource)
    std::string message;
};

struct ResizeGo {
    ResizePlan plan;             // submit plan.body as one PATCH .../resize
    ResourceList increase;       // request increases this resize adds to the cycle budget
    std::vector<GateBlock> dropped;  // increases held back while the rest goes ahead
    std::vector<EventIntent> events;  // MemoryLimitClamped, MemoryLimitUsageFloor, the dropped gates' Events
    std::vector<std::string> notes;   // for the log (e.g. an invalid schedule zone that failed open)
};

struct ResizeHeld {
    std::string reason;  // history / metric reason (skip_report)
    std::string message;
    std::vector<GateBlock> blocks;
    std::vector<EventIntent> events;  // ResizeUnchanged, ResizeSkipped, CooldownActive, ...
    std::vector<std::string> notes;
};

using ResizeDecision = std::variant<ResizeGo, ResizeHeld>;

// "cpu"/"memory" for each resource whose requests or limits (any container,
// or the envelope) rise from `live` to `planned`.
std::vector<std::string> resource_increases(const Pod& live, const Pod& planned);

ResizeDecision decide_resize(const Pod& live, std::span<const ContainerTarget> targets, const Capabilities& caps,
                             ControlledValues controlled_values, const PlanOptions& options,
                             const ResizeGateInputs& gates);

}  // namespace attune::core
