#pragma once
// The live baseline a workload's recommendation is measured against (its
// "current" values): the resources of one of its running pods, so values
// already resized in place count, else its pod template. Pure.
#include <boost/json/fwd.hpp>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "attune/core/policy/overlay.hpp"  // FrozenBaseline
#include "attune/core/model/pod_model.hpp"
#include "attune/core/util/result.hpp"

namespace attune::core {

// The workload's pod template as a Pod (containers, init containers,
// spec.resources): spec.template for Deployment, StatefulSet, DaemonSet,
// ReplicaSet and Job, spec.jobTemplate.spec.template for CronJob. Error
// "invalid_workload" when the kind has no template or it does not decode.
Result<Pod> decode_pod_template(std::string_view kind, const boost::json::value& workload);

// Whether a pod may hold the baseline: Running and not being deleted.
bool can_hold_baseline(std::string_view phase, bool deleting);

// The pod the baseline is read from: one that can_hold_baseline(), the
// smallest name (the same pod from one refresh to the next); nullptr when
// none runs.
const Pod* baseline_pod(std::span<const Pod> pods);

// App containers and native sidecars (freeze_baseline) of baseline_pod(),
// else of `template_pod` (may be null: empty), without the `excluded` names
// (sorted, as EffectivePolicy::excluded_containers).
FrozenBaseline workload_baseline(std::span<const Pod> pods, const Pod* template_pod,
                                 std::span<const std::string> excluded);

}  // namespace attune::core
