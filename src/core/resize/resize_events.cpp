#include "attune/core/resize/resize_events.hpp"

#include <array>
#include <utility>

namespace attune::core {
namespace {

constexpr std::string_view kCapacity = "attune_capacity_skip_total";

constexpr std::array<std::pair<std::string_view, SkipReport>, 16> kReports{{
    {"paused", {"", "", false, ""}},
    {"cooldown", {kEventCooldownActive, "Normal", true, ""}},
    {"outside_schedule", {kEventScheduleSkipped, "Normal", false, "attune_schedule_skipped_total"}},
    {"max_concurrent_resizes", {kEventResizeSkipped, "Warning", true, kCapacity}},
    {"budget_exhausted", {kEventBudgetExhausted, "Warning", false, "attune_budget_exhausted_total"}},
    {"node_memory_pressure", {kEventResizeSkipped, "Warning", true, kCapacity}},
    {"node_disk_pressure", {kEventResizeSkipped, "Warning", true, kCapacity}},
    {"node_pid_pressure", {kEventResizeSkipped, "Warning", true, kCapacity}},
    {"node_capacity", {kEventResizeSkipped, "Warning", true, kCapacity}},
    {"limit_range", {kEventResizeSkipped, "Warning", true, kCapacity}},
    {"resource_quota", {kEventResizeSkipped, "Warning", true, kCapacity}},
    {"envelope_constraint", {kEventResizeSkipped, "Warning", true, "attune_envelope_blocked_total"}},
    // The QoS case of ResizeSkipped is not de-duplicated (docs/resize.md).
    {"InPlaceResizeWouldChangeQoSClass", {kEventResizeSkipped, "Warning", false, kCapacity}},
    {"not_resizable", {kEventResizeSkipped, "Warning", true, kCapacity}},
    {"container_not_found", {kEventResizeSkipped, "Warning", true, kCapacity}},
    {"no_change", {kEventResizeUnchanged, "Normal", true, ""}},
}};

}  // namespace

SkipReport skip_report(std::string_view reason) noexcept {
    for (const auto& [r, report] : kReports)
        if (r == reason) return report;
    return {kEventResizeSkipped, "Warning", true, kCapacity};
}

std::optional<EventIntent> skip_event(std::string_view reason, std::string note) {
    const SkipReport r = skip_report(reason);
    if (r.event_reason.empty()) return std::nullopt;
    return EventIntent{std::string(r.event_type), std::string(r.event_reason), "resize", std::move(note), r.dedupe};
}

}  // namespace attune::core
