#pragma once
// The resize part of each policy's status as the executor keeps it between
// status writes (docs/resize.md): status.resizeHistory, seeded once
// from the policy's own status so a restart continues it; each workload's
// pods under an Attune resize with their state (status.workloads.
// {resized,pending,deferred,infeasible}); whether the open cycle resized
// something (Resizing). The status aggregator turns it into fields and
// conditions with core::resize_status_json and core::apply_resize_conditions.
// Pure: no I/O, no clock.
#include <attune/core/lifecycle/lifecycle_status.hpp>
#include <attune/core/resize/resize_history.hpp>
#include <attune/core/resize/resize_status.hpp>

#include <boost/json/value.hpp>

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace attune::controller {

class ResizeLedger {
public:
    struct Book {
        std::vector<core::HistoryEntry> history;
        // By workload name: the pods of ours it has, by uid.
        std::map<std::string, std::map<std::string, core::ResizeState>> workloads;
        bool resized_this_cycle = false;  // a resize of this policy was Applied in the open cycle
        bool cooldown_active = false;     // the last pass found increases held by the cooldown
        std::optional<bool> inside_schedule_window;  // only while schedule.windows is non-empty (ScheduleBlocked)
        // status.lifecycle.workloads (docs/lifecycle.md) by "Kind/name", seeded once
        // from the policy's own status so a restart resumes every attempt.
        std::map<std::string, core::LifecycleStatusEntry> lifecycle;
        // Workloads (by "Kind/name") the lifecycle blocks: ResizeBlocked {reason, message}.
        std::map<std::string, std::pair<std::string, std::string>> lifecycle_blocked;
        bool lifecycle_owned = false;  // status.lifecycle is written (it was there, or an entry was set)
        std::uint64_t version = 0;        // moves on every change: the aggregator writes when it moved
    };

    // The policy's book; the first time, history comes from `policy_object`'s
    // status.resizeHistory (an entry that does not decode is dropped, not fatal).
    Book& get(const std::string& ns, const std::string& policy, const boost::json::value* policy_object);
    const Book* find(const std::string& ns, const std::string& policy) const;

    void append(Book& b, std::vector<core::HistoryEntry> entries);
    // Replaces one workload's pod states (an empty map drops the workload).
    void set_pods(Book& b, const std::string& workload, std::map<std::string, core::ResizeState> pods);
    void set_cycle(Book& b, bool resized_this_cycle, bool cooldown_active, std::optional<bool> inside_schedule_window);
    void forget(const std::string& ns, const std::string& policy);

    // One workload's lifecycle entry (nullptr: none yet).
    static const core::LifecycleStatusEntry* lifecycle_entry(const Book& b, const std::string& kind,
                                                             const std::string& name);
    // Replaces the entry and the workload's block (nullopt: not blocked).
    void set_lifecycle(Book& b, core::LifecycleStatusEntry entry,
                       std::optional<std::pair<std::string, std::string>> blocked);
    // The workload left the lifecycle (its policy is no longer Canary): its
    // entry and block go from the status.
    void drop_lifecycle(Book& b, const std::string& kind, const std::string& name);
    // The entries as status.lifecycle.workloads holds them (sorted, bounded).
    static std::vector<core::LifecycleStatusEntry> lifecycle_entries(const Book& b);
    // The first lifecycle block of the policy, if any (ResizeBlocked).
    static std::optional<std::pair<std::string, std::string>> lifecycle_block(const Book& b);

    static core::WorkloadCounts counts(const Book& b);

private:
    std::map<std::pair<std::string, std::string>, Book> books_;
};

}  // namespace attune::controller
