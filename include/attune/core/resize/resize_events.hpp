#pragma once
// What each executor outcome tells the user: the Event (events.k8s.io/v1,
// regarding the AttunePolicy, docs/api.md#events) and the metric it counts
// (docs/resize.md#metrics). One table, so the shell, the docs (docs/resize.md) and the tests
// agree on every reason string.
#include <optional>
#include <string>
#include <string_view>

namespace attune::core {

// Event reasons Attune emits on the resize path.
inline constexpr std::string_view kEventResized = "Resized";
inline constexpr std::string_view kEventResizeUnchanged = "ResizeUnchanged";  // never ResizeDeferred (the kubelet's)
inline constexpr std::string_view kEventResizeSkipped = "ResizeSkipped";
inline constexpr std::string_view kEventResizeFailed = "ResizeFailed";
inline constexpr std::string_view kEventMemoryLimitClamped = "MemoryLimitClamped";
inline constexpr std::string_view kEventMemoryLimitUsageFloor = "MemoryLimitUsageFloor";
inline constexpr std::string_view kEventInfeasibleBlocked = "InfeasibleBlocked";
inline constexpr std::string_view kEventReverted = "Reverted";
inline constexpr std::string_view kEventEvicted = "Evicted";
inline constexpr std::string_view kEventEvictionBlocked = "EvictionBlocked";
inline constexpr std::string_view kEventCooldownActive = "CooldownActive";
inline constexpr std::string_view kEventScheduleSkipped = "ScheduleSkipped";
inline constexpr std::string_view kEventBudgetExhausted = "BudgetExhausted";
inline constexpr std::string_view kEventTemplatePatched = "TemplatePatched";
inline constexpr std::string_view kEventTemplatePatchFailed = "TemplatePatchFailed";
// Not in the Go Attune: a patched template of a workload that Argo CD or Flux
// applies (gitops_drift.hpp).
inline constexpr std::string_view kEventGitOpsDrift = "GitOpsDrift";
// Not in the Go Attune, which only logs it: the retune's patch was refused
// (a 403 when the hpa-retune RBAC is off names the verb and the resource).
inline constexpr std::string_view kEventHpaRetuneFailed = "HPARetuneFailed";

struct EventIntent {
    std::string type;    // Normal | Warning
    std::string reason;  // CamelCase
    std::string action;  // resize | revert | template | hpa | export
    std::string note;
    bool dedupe = false;  // "D" (docs/api.md#events): same uid+reason+message at most once per hour
    friend bool operator==(const EventIntent&, const EventIntent&) = default;
};

// How a skip reason (a plan_resize Skip or a gate) is reported.
struct SkipReport {
    std::string_view event_reason;  // "" when no Event is emitted
    std::string_view event_type;
    bool dedupe = false;
    // The counter and its label value: attune_capacity_skip_total{reason},
    // attune_envelope_blocked_total, attune_schedule_skipped_total,
    // attune_budget_exhausted_total; "" for none.
    std::string_view metric;
};

// Known reasons: paused, cooldown, outside_schedule, max_concurrent_resizes,
// budget_exhausted, node_memory_pressure, node_disk_pressure,
// node_pid_pressure, node_capacity, limit_range, resource_quota,
// envelope_constraint, InPlaceResizeWouldChangeQoSClass, not_resizable,
// container_not_found, no_change. Unknown reasons report as ResizeSkipped.
SkipReport skip_report(std::string_view reason) noexcept;

// The Event for `reason` with `note`; nullopt when the reason has none
// (paused: Ready=False/Paused already says it).
std::optional<EventIntent> skip_event(std::string_view reason, std::string note);

}  // namespace attune::core
