#pragma once
// What one resize changed, per container, in the words the history and the
// Events use (status.resizeHistory; the Resized and Reverted Events). Pure.
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "attune/core/resize/plan_resize.hpp"
#include "attune/core/model/pod_model.hpp"
#include "attune/core/resize/resize_history.hpp"

namespace attune::core {

struct ContainerChange {
    std::string container;
    ResourceRequirements from, to;  // cpu/memory only
    HistoryResource resource = HistoryResource::CpuAndMemory;
};

// The app containers and native sidecars whose cpu/memory requests or
// limits differ between `live` and `planned`, in spec order.
std::vector<ContainerChange> container_changes(const Pod& live, const Pod& planned);

// What `targets` ask of `live` (apply_target per container), before any
// clamp or gate: what a held resize would have changed.
std::vector<ContainerChange> target_changes(const Pod& live, std::span<const ContainerTarget> targets,
                                            ControlledValues controlled_values);

// One history entry per changed container.
std::vector<HistoryEntry> history_entries(std::span<const ContainerChange> changes, std::string_view workload,
                                          HistoryMethod method, HistoryResult result, std::string_view reason,
                                          Timestamp now);

// "app cpu 500m -> 200m, memory 256Mi/512Mi -> 128Mi/512Mi; sidecar cpu 100m -> 50m",
// the quantities in `style` (describe_resources): Readable for Events, Exact for logs.
std::string describe_changes(std::span<const ContainerChange> changes, NumberStyle style);

}  // namespace attune::core
