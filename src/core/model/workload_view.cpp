#include "attune/core/model/workload_view.hpp"

#include <boost/json.hpp>

#include "../util/json_decode.hpp"

namespace attune::core {

Result<WorkloadView> decode_workload(std::string_view kind, const boost::json::value& json) {
    using namespace detail;
    return guarded("invalid_workload", [&]() -> Result<WorkloadView> {
        const auto& root = as_object(json, std::string(kind));
        WorkloadView w;
        w.kind = std::string(kind);
        if (const auto* meta = opt_object(root, "metadata", w.kind)) w.name = opt_string(*meta, "name", "metadata");
        if (kind == "Deployment" || kind == "StatefulSet" || kind == "ReplicaSet") {
            const auto* spec = opt_object(root, "spec", w.kind);
            w.spec_replicas = spec ? opt_count(*spec, "replicas", "spec").value_or(1) : 1;
        } else if (kind != "DaemonSet" && kind != "Job" && kind != "CronJob") {
            return make_error("invalid_workload", "unsupported workload kind \"" + w.kind + "\"");
        }
        return w;
    });
}

}  // namespace attune::core
