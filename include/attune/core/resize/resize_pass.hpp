#pragma once
// One executor pass over a workload's pods, and the per-policy resize cycle
// the increase gates read (docs/resize.md). Pure.
//
// Which pods: the eligible pods that are not in flight, by name. Auto may
// submit a resize for each of them; OneShot one replica at a time: nothing
// while one of the workload's pods is still in flight, else one submission
// (the first pod, by name, that needs a change). Canary is the lifecycle's
// (docs/lifecycle.md) and selects nothing here; Observe and Recommend never resize.
//
// The cycle: updateStrategy.cooldown is the "minimum gap between resize
// cycles" (docs/api.md#attunepolicy-spec). A policy's cycle opens with the first
// resize it submits and closes once nothing of it is in flight and no
// workload that took part still has pods waiting for a slot. Inside an open
// cycle the cooldown does not hold the cycle's own pods back (Auto with
// maxConcurrentResizes 1 resizes its replicas one after the other, all in
// one cycle). When a cycle that applied something closes, the shell writes
// attune.io/last-resize-time, which gates the next cycle's increases.
// maxConcurrentResizes and the maxTotal{Cpu,Memory}Increase budget count
// the open cycle's resizes. A resize is counted before its PATCH is sent,
// so a concurrent pass of another workload sees the slot taken.
#include <map>
#include <optional>
#include <set>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "attune/core/model/pod_model.hpp"
#include "attune/core/policy/policy.hpp"  // UpdateMode

namespace attune::core {

struct PassCandidate {
    std::string name;
    bool eligible = false;   // check_pod_eligibility
    bool in_flight = false;  // a resize of ours not settled yet
};

struct PassSelection {
    std::vector<std::size_t> pods;  // indexes into the candidates, in pod-name order
    int max_submissions = 0;        // resizes this pass may submit; -1: no limit
    bool waiting = false;           // OneShot: a replica is still in flight
};

PassSelection select_pass_pods(UpdateMode mode, std::span<const PassCandidate> candidates);

struct CycleView {
    bool open = false;
    // The open cycle evicted a pod: its recreated replica must not be
    // resized (and perhaps evicted) again at once, so from here on the
    // cooldown holds this cycle's increases too.
    bool cooldown_applies = false;
    int in_flight = 0;           // ResizeGateInputs::resizes_in_flight
    ResourceList increase_used;  // ResizeGateInputs::increase_used
};

struct CycleClose {
    bool applied_any = false;  // write attune.io/last-resize-time
};

class ResizeCycleBook {
public:
    CycleView view(std::string_view policy) const;

    // A /resize of `pod_uid` is about to be sent: it takes a slot and its
    // request increase from the budget, and opens the cycle if none is open.
    void submit(const std::string& policy, const std::string& workload, const std::string& pod_uid,
                const ResourceList& increase);
    // The cycle evicted a pod: it counts as applied for the cooldown anchor
    // (the shell writes it at once), and the cooldown now holds this cycle's
    // increases too, so a recreated pod that needs the same impossible resize
    // waits a cooldown instead of being resized and evicted in a loop.
    void acted(const std::string& policy);
    // Its PATCH was not accepted: the slot and the budget come back.
    void withdraw(const std::string& policy, const std::string& pod_uid);
    // It settled: Applied, or given up (Infeasible, superseded, pod gone);
    // a resize given up returns its budget.
    void settle(const std::string& policy, const std::string& pod_uid, bool applied);

    // A pass of `workload` ended; `work_left`: pods of it wait for a slot;
    // `holds_open`: its lifecycle attempt still validates (docs/lifecycle.md), so the
    // cycle stays open between its steps (the cooldown paces attempts, not
    // the steps of one) without the workload counting as waiting for a slot
    // (waiting_workloads would pass it again at once). Returns the close when
    // the cycle ends with it.
    std::optional<CycleClose> pass_done(const std::string& policy, const std::string& workload, bool work_left,
                                        bool holds_open = false);
    // Workloads of the open cycle with pods waiting for a slot (to pass again
    // once one frees).
    std::vector<std::string> waiting_workloads(std::string_view policy) const;
    void forget(std::string_view policy);

private:
    struct Cycle {
        std::map<std::string, ResourceList> in_flight;  // pod uid -> its request increase
        ResourceList increase_used;
        std::set<std::string> waiting;  // workloads with pods waiting for a slot
        std::set<std::string> holding;  // workloads whose validating attempt holds the cycle open
        bool applied_any = false;
        bool evicted = false;
    };
    std::map<std::string, Cycle, std::less<>> cycles_;
};

}  // namespace attune::core
