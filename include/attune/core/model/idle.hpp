#pragma once
// Workload idleness: HPA scale-to-zero vs a manual zero vs active. Reads the
// HPA condition string and spec.replicas only: no Capabilities, so a
// ScaledToZero=True condition counts on any cluster version, fakes included.
#include <string_view>

#include "attune/core/model/hpa.hpp"
#include "attune/core/model/workload_view.hpp"

namespace attune::core {

enum class IdleKind {
    None,             // spec.replicas >= 1, or no replica count (DaemonSet/Job/CronJob)
    HPAScaledToZero,  // matching HPA has condition ScaledToZero=True
    ManualZero,       // spec.replicas == 0 and not HPA-held
};

// minReplicas: 0 alone is not idle: the condition (or a manual zero) is.
IdleKind classify_workload_idle(const WorkloadView& workload, const HpaView* matching_hpa);

// "HPAScaledToZero" / "WorkloadReplicasZero" / "" (status.idleWorkloads reason).
std::string_view idle_reason(IdleKind kind) noexcept;

}  // namespace attune::core
