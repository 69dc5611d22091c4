#pragma once
// `kubectl attune export --from-configmaps`: the ConfigMaps that
// updateStrategy.export.configMap writes ("<policy>-<workload>-recommendations",
// docs/api.md, "The export ConfigMap"), one record each, for the table and
// -o json|yaml. Pure.
#include "output.hpp"

#include <boost/json/object.hpp>
#include <boost/json/value.hpp>

#include <vector>

namespace attune::cli {

// {namespace, name, policy, workload, kind, schemaVersion, generatedAt,
//  lastUpdated, containers[{name, cpuRequest, memoryRequest, cpuLimit,
//  memoryLimit, confidence}]}: the labels first (attune.io/policy,
//  attune.io/workload), else the data's policy and workload; absent text is
// null, absent limits "0" as the status spells them.
boost::json::object export_config_map_record(const boost::json::value& config_map);

// NAMESPACE (with -A), POLICY, WORKLOAD, KIND, CONTAINERS, LAST UPDATED;
// -o wide adds CONFIGMAP and GENERATED.
std::vector<Column> export_config_map_columns(bool all_namespaces);

}  // namespace attune::cli
