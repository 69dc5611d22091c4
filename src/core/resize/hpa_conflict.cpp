#include "attune/core/resize/hpa_conflict.hpp"

namespace attune::core {

std::optional<HpaConflict> check_hpa_conflict(std::span<const HpaView> hpas, std::string_view name,
                                              std::string_view kind) {
    for (const auto& h : hpas) {
        if (h.target_kind != kind || h.target_name != name) continue;
        if (!hpa_has_resource_metric(h, {"cpu", "memory"})) continue;
        return HpaConflict{h.name, "HorizontalPodAutoscaler " + h.name + " scales " + std::string(kind) + "/" +
                                       std::string(name) +
                                       " on CPU or memory; vertical resizes change its utilisation signal"};
    }
    return std::nullopt;
}

}  // namespace attune::core
