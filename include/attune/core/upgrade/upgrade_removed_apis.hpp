#pragma once
// Removed-API checks of the upgrade gate, always ACTIONABLE:
//  - requests the apiserver itself counted against APIs it will remove, from
//    apiserver_requested_deprecated_apis{removed_release} on /metrics, at or
//    before the target;
//  - group-version-resources that discovery serves and that the matrix's
//    api_removals table says the target (or an earlier release) removes.
// Pure: the shell fetches /metrics and discovery and passes the text/JSON in.
#include "attune/core/util/result.hpp"
#include "attune/core/upgrade/upgrade_matrix.hpp"
#include "attune/core/upgrade/upgrade_reason.hpp"

#include <boost/json/value.hpp>

#include <string>
#include <string_view>
#include <vector>

namespace attune::core {

struct DeprecatedApiRequest {
    std::string group, version, resource, subresource, removed_release;
};

// The series of apiserver_requested_deprecated_apis whose value is 1, from
// Prometheus text exposition. Error code "invalid_metrics" for a malformed
// series line of that metric (other metrics are not looked at).
Result<std::vector<DeprecatedApiRequest>> parse_deprecated_api_requests(std::string_view metrics_text);

// What discovery serves of one group-version: the resource names of its
// APIResourceList (subresources such as "pods/status" dropped).
struct ServedGroupVersion {
    std::string group_version;
    std::vector<std::string> resources;
};
Result<ServedGroupVersion> served_from_resource_list(const boost::json::value& api_resource_list);
// The group-versions an APIGroupList (GET /apis) serves, "apps/v1", ...
Result<std::vector<std::string>> group_versions_from_group_list(const boost::json::value& api_group_list);

// The group-versions the shell should look at: those with a removal at or
// before the target.
std::vector<std::string> removal_group_versions(const UpgradeMatrix& m, KubeMinor target);

std::vector<GateReason> removed_api_reasons(const UpgradeMatrix& m, KubeMinor target,
                                            const std::vector<DeprecatedApiRequest>& requested,
                                            const std::vector<ServedGroupVersion>& served);

}  // namespace attune::core
