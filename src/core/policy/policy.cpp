// The Attune API's names, and the lookups on an EffectivePolicy.
#include <algorithm>

#include "attune/core/policy/policy.hpp"

namespace attune::core {

std::string_view to_string(TargetKind v) noexcept {
    switch (v) {
        case TargetKind::Deployment: return "Deployment";
        case TargetKind::StatefulSet: return "StatefulSet";
        case TargetKind::DaemonSet: return "DaemonSet";
        case TargetKind::ReplicaSet: return "ReplicaSet";
        case TargetKind::Job: return "Job";
        case TargetKind::CronJob: return "CronJob";
    }
    return "";
}

std::string_view to_string(UpdateMode v) noexcept {
    switch (v) {
        case UpdateMode::Observe: return "Observe";
        case UpdateMode::Recommend: return "Recommend";
        case UpdateMode::OneShot: return "OneShot";
        case UpdateMode::Canary: return "Canary";
        case UpdateMode::Auto: return "Auto";
    }
    return "";
}

std::string_view to_string(ResizeMethod v) noexcept {
    return v == ResizeMethod::InPlaceOnly ? "InPlaceOnly" : "InPlaceOrRecreate";
}

std::string_view to_string(PodAggregation v) noexcept {
    switch (v) {
        case PodAggregation::Max: return "Max";
        case PodAggregation::Avg: return "Avg";
        case PodAggregation::None: return "None";
    }
    return "";
}

std::string_view to_string(VpaSelection v) noexcept {
    switch (v) {
        case VpaSelection::Target: return "Target";
        case VpaSelection::LowerBound: return "LowerBound";
        case VpaSelection::UpperBound: return "UpperBound";
    }
    return "";
}

std::string_view to_string(RuntimeProfile v) noexcept {
    switch (v) {
        case RuntimeProfile::Generic: return "generic";
        case RuntimeProfile::Java: return "java";
        case RuntimeProfile::Python: return "python";
        case RuntimeProfile::Golang: return "golang";
        case RuntimeProfile::Nodejs: return "nodejs";
    }
    return "";
}

std::string_view to_string(SloComparison v) noexcept { return v == SloComparison::Above ? "above" : "below"; }

std::string_view to_string(TemplatePersistenceWhen v) noexcept {
    return v == TemplatePersistenceWhen::AfterSuccessfulResize ? "AfterSuccessfulResize" : "OnRecommendation";
}

std::string_view to_string(Weekday v) noexcept {
    static constexpr std::string_view kNames[] = {"Sunday",   "Monday", "Tuesday", "Wednesday",
                                                  "Thursday", "Friday", "Saturday"};
    const auto i = static_cast<std::size_t>(v);
    return i < std::size(kNames) ? kNames[i] : "";
}

std::string_view to_string(ControlledValues v) noexcept {
    return v == ControlledValues::RequestsOnly ? "RequestsOnly" : "RequestsAndLimits";
}

std::optional<TargetKind> parse_target_kind(std::string_view s) noexcept {
    for (auto k : {TargetKind::Deployment, TargetKind::StatefulSet, TargetKind::DaemonSet, TargetKind::ReplicaSet,
                   TargetKind::Job, TargetKind::CronJob})
        if (to_string(k) == s) return k;
    return std::nullopt;
}

bool mode_resizes(UpdateMode m) noexcept {
    return m == UpdateMode::OneShot || m == UpdateMode::Canary || m == UpdateMode::Auto;
}

bool EffectivePolicy::excludes(std::string_view container) const {
    return std::binary_search(excluded_containers.begin(), excluded_containers.end(), container, std::less<>{});
}

const ResourceTuning& EffectivePolicy::tuning_for(std::string_view container, ResourceKind kind) const {
    const ContainerTuning* star = nullptr;
    for (const auto& t : container_tunings) {
        if (t.container_name == container) return kind == ResourceKind::Cpu ? t.cpu : t.memory;
        if (t.container_name == "*") star = &t;
    }
    if (star) return kind == ResourceKind::Cpu ? star->cpu : star->memory;
    return kind == ResourceKind::Cpu ? cpu : memory;
}

}  // namespace attune::core
