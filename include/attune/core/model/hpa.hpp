#pragma once
// autoscaling/v2 HorizontalPodAutoscaler as the core reads it: its target,
// replica bounds, metric types and conditions (ScaledToZero lives there).
#include <cstdint>
#include <functional>
#include <initializer_list>
#include <map>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "attune/core/util/result.hpp"

namespace boost::json {
class value;
}  // namespace boost::json

namespace attune::core {

struct HpaMetric {
    std::string type;           // Resource | ContainerResource | Pods | Object | External
    std::string resource_name;  // for Resource/ContainerResource: cpu, memory, ...
};

struct HpaCondition {
    std::string type;
    std::string status;
    std::string reason;
    std::string message;
};

struct HpaView {
    std::string namespace_;
    std::string name;
    std::string target_api_version;
    std::string target_kind;
    std::string target_name;
    std::optional<std::int32_t> min_replicas;
    std::int32_t max_replicas = 0;
    std::vector<HpaMetric> metrics;
    std::vector<HpaCondition> conditions;
    std::map<std::string, std::string, std::less<>> annotations;
};

// Error code "invalid_hpa".
Result<HpaView> decode_hpa(const boost::json::value& json);

const HpaView* find_matching_hpa(std::span<const HpaView> hpas, std::string_view kind, std::string_view name);

// True when a Resource or ContainerResource metric targets one of `names`.
// An HPA with no metrics counts as cpu: autoscaling/v2 defaults it to 80%
// average CPU utilisation.
bool hpa_has_resource_metric(const HpaView& hpa, std::initializer_list<std::string_view> names);

}  // namespace attune::core
