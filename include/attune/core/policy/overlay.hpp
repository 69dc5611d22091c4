#pragma once
// Manual recommendations are overlays on a frozen live baseline (docs/lifecycle.md):
// explicit request or limit keys replace the baseline's, omitted keys are
// inherited. The baseline is captured once per validation cycle so Attune's
// own progressive rollout cannot move the candidate between steps.
#include <map>
#include <string>

#include "attune/core/model/pod_model.hpp"
#include "attune/core/util/result.hpp"

namespace attune::core {

using ContainerResourceMap = std::map<std::string, ResourceRequirements, std::less<>>;

// `overlay`'s keys win, every other key of `base` is kept.
ResourceRequirements overlay_requirements(const ResourceRequirements& base, const ResourceRequirements& overlay);

struct FrozenBaseline {
    ContainerResourceMap containers;  // app containers and native sidecars
};

// A copy of the live resizable containers' resources, taken at the start of
// the validation cycle.
FrozenBaseline freeze_baseline(const Pod& live);

// Error "unknown_container" when the overlay names a container the baseline
// does not have; "invalid_overlay" when a request ends above its limit (an
// explicit key against an inherited one, say), which no /resize may carry.
Result<ContainerResourceMap> apply_manual_overlay(const FrozenBaseline& baseline, const ContainerResourceMap& overlay);

}  // namespace attune::core
