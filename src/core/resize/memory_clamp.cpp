#include "attune/core/resize/memory_clamp.hpp"

#include <cstdint>

namespace attune::core {
namespace {

// Sets the memory limit and keeps the request consistent with it.
void set_memory_limit(ResourceRequirements& rr, const Quantity& limit, bool guaranteed) {
    rr.limits.insert_or_assign(std::string(kMemory), limit);
    auto req = rr.requests.find(kMemory);
    if (req == rr.requests.end()) return;
    if (guaranteed || req->second > limit) req->second = limit;
}

}  // namespace

MemoryDecision clamp_memory_limit_decrease(const Container& live, ResourceRequirements target, bool allow_decrease,
                                           bool guaranteed) {
    MemoryDecision d{std::move(target), false, false};
    const Quantity* live_limit = find(live.resources.limits, kMemory);
    const Quantity* want = find(d.resources.limits, kMemory);
    if (allow_decrease || !live_limit || !want || !(*want < *live_limit)) return d;
    if (live.resize_restart_policy(kMemory) == "RestartContainer") return d;  // 1.33 accepts this one
    const Quantity keep = *live_limit;
    set_memory_limit(d.resources, keep, guaranteed);
    d.clamped = true;
    return d;
}

MemoryDecision apply_memory_usage_floor(const Container& live, ResourceRequirements target,
                                        const Quantity& observed_usage, unsigned headroom_percent, bool guaranteed) {
    MemoryDecision d{std::move(target), false, false};
    const Quantity* live_limit = find(live.resources.limits, kMemory);
    const Quantity* want = find(d.resources.limits, kMemory);
    if (!live_limit || !want || !(*want < *live_limit)) return d;
    // usage * (100 + headroom) / 100, rounded up to the byte.
    const std::int64_t usage = observed_usage.value();
    const __int128 scaled = static_cast<__int128>(usage) * (100 + headroom_percent);
    const __int128 rounded = (scaled + 99) / 100;
    const auto floor_bytes = rounded > INT64_MAX ? INT64_MAX : static_cast<std::int64_t>(rounded);
    const Quantity floor = Quantity::from_value(floor_bytes, Quantity::Format::BinarySI);
    if (!(*want < floor)) return d;
    const Quantity limit = floor < *live_limit ? floor : *live_limit;
    set_memory_limit(d.resources, limit, guaranteed);
    d.floored = true;
    return d;
}

}  // namespace attune::core
