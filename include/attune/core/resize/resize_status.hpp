#pragma once
// The resize part of AttunePolicy.status, pure (docs/resize.md, "Status";
// docs/api.md#attunepolicy-status): status.workloads.{resized,pending,deferred,
// infeasible}, status.cooldown, status.resizeHistory and the conditions
// ResizeBlocked, Resizing, Degraded and ScheduleBlocked. The status
// aggregator owns the whole status; it calls this for these pieces.
#include <boost/json/object.hpp>
#include <optional>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "attune/core/policy/condition.hpp"
#include "attune/core/resize/cooldown.hpp"
#include "attune/core/resize/resize_history.hpp"
#include "attune/core/resize/resize_state.hpp"

namespace attune::core {

// One workload's pods under (or after) an Attune resize this cycle, each
// as classify_resize_state reports it against our request.
struct WorkloadResizeView {
    std::string workload;
    std::vector<ResizeState> pods;
};

struct WorkloadCounts {
    int resized = 0;     // workloads whose every requested pod is Applied
    int pending = 0;     // workloads with a pod not Applied yet (Pending, InProgress, Deferred, Infeasible)
    int deferred = 0;    // pods the kubelet reports Deferred
    int infeasible = 0;  // pods the kubelet reports Infeasible
    friend bool operator==(const WorkloadCounts&, const WorkloadCounts&) = default;
};

WorkloadCounts count_workloads(std::span<const WorkloadResizeView> workloads);

struct ResizeConditionInputs {
    Timestamp now;
    std::int64_t generation = 0;
    bool resizing_mode = true;    // Canary, OneShot or Auto; Observe/Recommend remove Resizing
    bool resized_this_cycle = false;
    bool cooldown_active = false;
    WorkloadCounts counts;
    std::span<const HistoryEntry> history;
    // Only when schedule.windows is non-empty; nullopt removes ScheduleBlocked.
    std::optional<bool> inside_schedule_window;
    // The lifecycle's block (e.g. InPlaceResizeWouldChangeQoSClass):
    // {reason, message}. It wins over the kubelet's states: the user must
    // change the template before anything can resize.
    std::optional<std::pair<std::string, std::string>> lifecycle_blocked;
};

// Sets or removes ResizeBlocked (the lifecycle's reason first, then PodsDeferred / PodsInfeasible /
// PodsDeferredAndInfeasible; removed when none), Resizing (True InProgress
// / False CooldownActive / False Idle; removed outside resizing modes),
// Degraded (True HighRevertRate when >= 3 of the last 5 history entries are
// reverts; removed otherwise) and ScheduleBlocked (True OutsideWindow /
// False InsideWindow). Other condition types are left alone. True when
// anything changed.
bool apply_resize_conditions(std::vector<Condition>& conditions, const ResizeConditionInputs& in);

// {"workloads":{"resized","pending","deferred","infeasible"},"cooldown":{...},
//  "resizeHistory":[...]} — a JSON merge patch fragment for the status
// subresource (merge patches merge "workloads" key by key, so the counts
// other parts own survive; the history array is written whole).
boost::json::object resize_status_json(const WorkloadCounts& counts, const CooldownState& cooldown,
                                       std::span<const HistoryEntry> history);

}  // namespace attune::core
