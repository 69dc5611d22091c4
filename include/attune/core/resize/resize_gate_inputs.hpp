#pragma once
// The policy's part of ResizeGateInputs (docs/resize.md), from the merged
// EffectivePolicy: paused, the cooldown with its revert backoff
// (count_consecutive_reverts over status.resizeHistory), the schedule,
// maxConcurrentResizes and the cycle budget. The shell adds what it reads
// elsewhere: the zone it loaded, the node, the namespace's LimitRanges and
// ResourceQuotas, and the open cycle (in flight, budget used). Pure.
#include <optional>
#include <span>
#include <string>

#include "attune/core/policy/policy.hpp"
#include "attune/core/resize/resize_gates.hpp"
#include "attune/core/resize/resize_history.hpp"
#include "attune/core/resize/resize_pass.hpp"

namespace attune::core {

// updateStrategy.schedule in the gate's terms.
Schedule schedule_of(const EffectiveSchedule& schedule);

// `last_resize_time`: the policy's attune.io/last-resize-time, nullopt when
// absent. The zone is left unset for the shell to fill.
ResizeGateInputs policy_gate_inputs(const EffectivePolicy& policy, std::span<const HistoryEntry> history,
                                    std::optional<std::string> last_resize_time, Timestamp now);

// The open resize cycle's part (resize_pass.hpp): its resizes in flight and
// the budget it used. Inside an open cycle the cooldown does not hold the
// cycle's own pods back (it gates the next cycle), unless the cycle evicted
// a pod (CycleView::cooldown_applies).
void apply_cycle(ResizeGateInputs& gates, const CycleView& cycle);

}  // namespace attune::core
