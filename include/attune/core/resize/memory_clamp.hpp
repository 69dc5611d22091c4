#pragma once
// Memory-limit decreases: the 1.32-1.33 platform clamp and Attune's usage
// floor. Both only ever keep a memory limit higher than the target asked.
#include <optional>

#include "attune/core/model/pod_model.hpp"

namespace attune::core {

struct MemoryDecision {
    ResourceRequirements resources;
    bool clamped = false;  // platform clamp kept the live limit
    bool floored = false;  // usage floor raised the target limit
};

// 1.33 API validation rejects an in-place memory-limit decrease unless the
// container's memory resizePolicy is RestartContainer (kubernetes#130183);
// 1.34 allows it (kubernetes#133012). Without `allow_decrease`, a lower
// target limit is clamped to the live one; a Guaranteed pod then raises its
// memory request to match, or it would turn Burstable.
MemoryDecision clamp_memory_limit_decrease(const Container& live, ResourceRequirements target, bool allow_decrease,
                                           bool guaranteed);

// On a memory-limit decrease, never go below observed usage plus
// `headroom_percent`, and never above the live limit (the floor can cancel
// a decrease, not cause an increase). Requests are kept <= limits, and
// equal to them for a Guaranteed pod. Applies on every version: the
// kubelet's own check (1.35+) is best-effort and racy.
MemoryDecision apply_memory_usage_floor(const Container& live, ResourceRequirements target,
                                        const Quantity& observed_usage, unsigned headroom_percent, bool guaranteed);

}  // namespace attune::core
