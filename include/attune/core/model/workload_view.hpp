#pragma once
// A workload as the idle classifier reads it: kind, name and spec.replicas.
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "attune/core/util/result.hpp"

namespace boost::json {
class value;
}  // namespace boost::json

namespace attune::core {

struct WorkloadView {
    std::string kind;
    std::string name;
    std::optional<std::int32_t> spec_replicas;  // nullopt for DaemonSet/Job/CronJob
};

// Deployment/StatefulSet/ReplicaSet: spec.replicas (absent = the API
// default 1). DaemonSet/Job/CronJob: nullopt (never scaleable, never idle).
// Never status.replicas: a crash loop or a scale-down in progress is still
// an active desired set. Error code "invalid_workload".
Result<WorkloadView> decode_workload(std::string_view kind, const boost::json::value& json);

}  // namespace attune::core
