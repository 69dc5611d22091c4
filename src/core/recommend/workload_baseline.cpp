#include "attune/core/recommend/workload_baseline.hpp"

#include <boost/json/object.hpp>
#include <boost/json/value.hpp>

#include <algorithm>

#include "attune/core/util/json_path.hpp"

namespace attune::core {

Result<Pod> decode_pod_template(std::string_view kind, const boost::json::value& workload) {
    const boost::json::object* spec = nullptr;
    if (kind == "CronJob") {
        spec = object_at(workload, {"spec", "jobTemplate", "spec", "template", "spec"});
    } else if (kind == "Deployment" || kind == "StatefulSet" || kind == "DaemonSet" || kind == "ReplicaSet" ||
               kind == "Job") {
        spec = object_at(workload, {"spec", "template", "spec"});
    } else {
        return make_error("invalid_workload", "kind " + std::string(kind) + " has no pod template");
    }
    if (!spec) return make_error("invalid_workload", std::string(kind) + " has no pod template spec");
    boost::json::object pod{{"metadata", boost::json::object{{"name", "template"}}}, {"spec", *spec}};
    auto decoded = decode_pod(pod);
    if (!decoded) return make_error("invalid_workload", "pod template: " + decoded.error().message);
    return decoded;
}

bool can_hold_baseline(std::string_view phase, bool deleting) { return phase == "Running" && !deleting; }

const Pod* baseline_pod(std::span<const Pod> pods) {
    const Pod* best = nullptr;
    for (const auto& p : pods) {
        if (!can_hold_baseline(p.phase, !p.deletion_timestamp.empty())) continue;
        if (!best || p.name < best->name) best = &p;
    }
    return best;
}

FrozenBaseline workload_baseline(std::span<const Pod> pods, const Pod* template_pod,
                                 std::span<const std::string> excluded) {
    const Pod* from = baseline_pod(pods);
    if (!from) from = template_pod;
    if (!from) return {};
    auto b = freeze_baseline(*from);
    std::erase_if(b.containers, [&](const auto& e) {
        return std::binary_search(excluded.begin(), excluded.end(), e.first);
    });
    return b;
}

}  // namespace attune::core
