#pragma once
// The HPA coexistence check (Event HPAConflict): only an HPA that scales the
// workload on CPU or memory conflicts with vertical resizes.
#include <optional>
#include <span>
#include <string>
#include <string_view>

#include "attune/core/model/hpa.hpp"

namespace attune::core {

struct HpaConflict {
    std::string hpa_name;
    std::string message;
};

// Object/External/Pods-only HPAs never conflict.
std::optional<HpaConflict> check_hpa_conflict(std::span<const HpaView> hpas, std::string_view name,
                                              std::string_view kind);

}  // namespace attune::core
