#pragma once
// Workload idleness (HPA scale-to-zero vs a manual zero vs active) and the
// HPA coexistence check. Reads the HPA condition string and spec.replicas
// only: no Capabilities, so a ScaledToZero=True condition counts on any
// cluster version, fakes included.
#include <cstdint>
#include <initializer_list>
#include <map>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "attune/core/result.hpp"

namespace boost::json {
class value;
class object;
}  // namespace boost::json

namespace attune::core {

enum class IdleKind {
    None,             // spec.replicas >= 1, or no replica count (DaemonSet/Job/CronJob)
    HPAScaledToZero,  // matching HPA has condition ScaledToZero=True
    ManualZero,       // spec.replicas == 0 and not HPA-held
};

struct WorkloadView {
    std::string kind;
    std::string name;
    std::optional<std::int32_t> spec_replicas;  // nullopt for DaemonSet/Job/CronJob
};

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

// autoscaling/v2 HorizontalPodAutoscaler. Error code "invalid_hpa".
result<HpaView> decode_hpa(const boost::json::value& json);

// Deployment/StatefulSet/ReplicaSet: spec.replicas (absent = the API
// default 1). DaemonSet/Job/CronJob: nullopt (never scaleable, never idle). Never status.replicas: a crash loop
// or a scale-down in progress is still an active desired set.
// Error code "invalid_workload".
result<WorkloadView> decode_workload(std::string_view kind, const boost::json::value& json);

// minReplicas: 0 alone is not idle: the condition (or a manual zero) is.
IdleKind classify_workload_idle(const WorkloadView& workload, const HpaView* matching_hpa);

// "HPAScaledToZero" / "WorkloadReplicasZero" / "" (status.idleWorkloads reason).
std::string_view idle_reason(IdleKind kind) noexcept;

const HpaView* find_matching_hpa(std::span<const HpaView> hpas, std::string_view kind, std::string_view name);

// True when a Resource or ContainerResource metric targets one of `names`.
// An HPA with no metrics counts as cpu: autoscaling/v2 defaults it to 80%
// average CPU utilisation.
bool hpa_has_resource_metric(const HpaView& hpa, std::initializer_list<std::string_view> names);

struct HpaConflict {
    std::string hpa_name;
    std::string message;
};

// Coexistence warning (Event HPAConflict) only for an HPA that scales the
// workload on CPU or memory; object/external-only HPAs never conflict.
std::optional<HpaConflict> check_hpa_conflict(std::span<const HpaView> hpas, std::string_view name,
                                              std::string_view kind);

// Informer transform for HPAs: drops metadata.managedFields and
// status.currentMetrics, KEEPS status.conditions (ScaledToZero lives there).
void strip_hpa_json(boost::json::object& hpa);

}  // namespace attune::core
