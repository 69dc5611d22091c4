#pragma once
// updateStrategy.export.configMap (docs/api.md, "The export ConfigMap"): one
// ConfigMap per workload, "<policy>-<workload>-recommendations" in the
// policy's namespace, owned by the policy (so it goes with the policy), and
// written as a JSON merge patch so that keys other tools put on it (Argo CD
// or Flux annotations, say) survive. Pure: the body, never the write.
#include <boost/json/object.hpp>

#include <string>
#include <string_view>

#include "attune/core/recommend/recommender.hpp"
#include "attune/core/util/result.hpp"
#include "attune/core/util/timestamp.hpp"

namespace attune::core {

inline constexpr std::string_view kExportSchemaVersion = "v1";

struct ExportTarget {
    std::string policy, policy_uid;  // the owner
    std::string ns;                  // the policy's and the workload's namespace
    std::string workload, kind;
};

// "<policy>-<workload>-recommendations".
std::string export_config_map_name(std::string_view policy, std::string_view workload);

// The whole ConfigMap (apiVersion, kind, metadata with labels and the owner
// reference, data), which serves both as the create body and as the merge
// patch. Data: schema-version, policy, namespace, workload, kind,
// generated-at (when the recommendation was computed), last-updated (`now`,
// the write), and per container `<c>.cpu-request`, `<c>.memory-request`,
// `<c>.cpu-limit` and `<c>.memory-limit` (limits only when non-zero), and
// `<c>.confidence` ("%.2f" of 0..1). Error "export_name_invalid" when the
// name would pass 253 characters or a label value 63: the apiserver would
// refuse the object, and the caller says so in an ExportFailed Event.
Result<boost::json::object> export_config_map(const ExportTarget& target, const WorkloadRecommendation& rec,
                                              Timestamp generated_at, Timestamp now);

}  // namespace attune::core
