#include "attune/core/resize/resize_status.hpp"

#include <algorithm>
#include <boost/json.hpp>

namespace attune::core {

WorkloadCounts count_workloads(std::span<const WorkloadResizeView> workloads) {
    WorkloadCounts c;
    for (const auto& w : workloads) {
        if (w.pods.empty()) continue;
        bool all_applied = true;
        for (ResizeState s : w.pods) {
            all_applied = all_applied && s == ResizeState::Applied;
            c.deferred += s == ResizeState::Deferred;
            c.infeasible += s == ResizeState::Infeasible;
        }
        (all_applied ? c.resized : c.pending) += 1;
    }
    return c;
}

bool apply_resize_conditions(std::vector<Condition>& conditions, const ResizeConditionInputs& in) {
    bool changed = false;
    auto set = [&](const char* type, const char* status, const char* reason, std::string message) {
        changed |= set_condition(conditions, Condition{type, status, reason, std::move(message), in.now, in.generation});
    };
    const auto& c = in.counts;
    if (in.lifecycle_blocked) {
        changed |= set_condition(conditions, Condition{"ResizeBlocked", "True", in.lifecycle_blocked->first,
                                                       in.lifecycle_blocked->second, in.now, in.generation});
    } else if (c.deferred > 0 && c.infeasible > 0) {
        set("ResizeBlocked", "True", "PodsDeferredAndInfeasible",
            std::to_string(c.deferred) + " pod(s) Deferred and " + std::to_string(c.infeasible) +
                " pod(s) Infeasible by the kubelet");
    } else if (c.deferred > 0) {
        set("ResizeBlocked", "True", "PodsDeferred", std::to_string(c.deferred) + " pod(s) Deferred by the kubelet");
    } else if (c.infeasible > 0) {
        set("ResizeBlocked", "True", "PodsInfeasible", std::to_string(c.infeasible) + " pod(s) Infeasible by the kubelet");
    } else {
        changed |= remove_condition(conditions, "ResizeBlocked");
    }
    if (!in.resizing_mode) {
        changed |= remove_condition(conditions, "Resizing");
    } else if (in.resized_this_cycle) {
        set("Resizing", "True", "InProgress", "pods were resized this cycle");
    } else if (in.cooldown_active) {
        set("Resizing", "False", "CooldownActive", "waiting for the cooldown to end");
    } else {
        set("Resizing", "False", "Idle", "nothing to resize");
    }
    if (high_revert_rate(in.history)) {
        set("Degraded", "True", "HighRevertRate", "at least 3 of the last 5 resizes were reverted");
    } else {
        changed |= remove_condition(conditions, "Degraded");
    }
    if (!in.inside_schedule_window) {
        changed |= remove_condition(conditions, "ScheduleBlocked");
    } else if (*in.inside_schedule_window) {
        set("ScheduleBlocked", "False", "InsideWindow", "inside a schedule window");
    } else {
        set("ScheduleBlocked", "True", "OutsideWindow", "outside every schedule window; resizes wait");
    }
    return changed;
}

boost::json::object resize_status_json(const WorkloadCounts& counts, const CooldownState& cooldown,
                                       std::span<const HistoryEntry> history) {
    return boost::json::object{{"workloads", boost::json::object{{"resized", counts.resized},
                                                                 {"pending", counts.pending},
                                                                 {"deferred", counts.deferred},
                                                                 {"infeasible", counts.infeasible}}},
                               {"cooldown", cooldown_status_json(cooldown)},
                               {"resizeHistory", history_json(history)}};
}

}  // namespace attune::core
