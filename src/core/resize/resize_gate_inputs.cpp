#include "attune/core/resize/resize_gate_inputs.hpp"

namespace attune::core {

Schedule schedule_of(const EffectiveSchedule& s) {
    Schedule out;
    for (const auto& w : s.windows) out.windows.push_back({w.start_minute, w.end_minute});
    for (const auto d : s.days_of_week) out.days.emplace_back(static_cast<unsigned>(d));
    out.timezone = s.timezone.empty() ? "UTC" : s.timezone;
    return out;
}

ResizeGateInputs policy_gate_inputs(const EffectivePolicy& p, std::span<const HistoryEntry> history,
                                    std::optional<std::string> last_resize_time, Timestamp now) {
    const auto& u = p.update_strategy;
    ResizeGateInputs g;
    g.now = now;
    g.paused = p.paused;
    g.cooldown = cooldown_state(std::chrono::duration_cast<std::chrono::seconds>(u.cooldown),
                                count_consecutive_reverts(history));
    g.last_resize_time = std::move(last_resize_time);
    if (u.schedule) g.schedule = schedule_of(*u.schedule);
    g.max_concurrent_resizes = u.max_concurrent_resizes > 0 ? u.max_concurrent_resizes : 1;
    g.max_total_cpu_increase = u.max_total_cpu_increase;
    g.max_total_memory_increase = u.max_total_memory_increase;
    return g;
}

void apply_cycle(ResizeGateInputs& g, const CycleView& cycle) {
    if (cycle.open && !cycle.cooldown_applies) g.last_resize_time.reset();
    g.resizes_in_flight = cycle.in_flight;
    g.increase_used = cycle.increase_used;
}

}  // namespace attune::core
