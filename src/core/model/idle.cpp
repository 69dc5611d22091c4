#include "attune/core/model/idle.hpp"

namespace attune::core {

IdleKind classify_workload_idle(const WorkloadView& workload, const HpaView* matching_hpa) {
    if (matching_hpa) {
        for (const auto& c : matching_hpa->conditions) {
            if (c.type == "ScaledToZero" && c.status == "True") return IdleKind::HPAScaledToZero;
        }
    }
    if (workload.spec_replicas && *workload.spec_replicas == 0) return IdleKind::ManualZero;
    return IdleKind::None;
}

std::string_view idle_reason(IdleKind kind) noexcept {
    switch (kind) {
        case IdleKind::HPAScaledToZero: return "HPAScaledToZero";
        case IdleKind::ManualZero: return "WorkloadReplicasZero";
        case IdleKind::None: return "";
    }
    return "";
}

}  // namespace attune::core
