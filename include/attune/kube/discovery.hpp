#pragma once
// Discovery I/O: fills the core's probe structs from /version, /api/v1, the
// OpenAPI v3 documents and the node list. No decisions here: the core's
// decide_capabilities() reads the probes. A failed call becomes the probe's
// error string, never an exception.
#include <attune/core/model/capabilities.hpp>
#include <attune/kube/client.hpp>

#include <boost/asio/awaitable.hpp>
#include <boost/json/value.hpp>

namespace attune::kube {

boost::asio::awaitable<core::ServerVersionProbe> probe_server_version(Client& c);
boost::asio::awaitable<core::ApiResourcesProbe> probe_core_v1_resources(Client& c);
boost::asio::awaitable<core::OpenApiProbe> probe_openapi(Client& c);
boost::asio::awaitable<core::NodeListProbe> probe_nodes(Client& c);

struct DiscoveryProbes {
    core::ServerVersionProbe version;
    core::ApiResourcesProbe resources;
    core::OpenApiProbe openapi;
    core::NodeListProbe nodes;
};
boost::asio::awaitable<DiscoveryProbes> probe_all(Client& c);

// Pure extraction, exposed for tests.
core::ServerVersionProbe server_version_from(const boost::json::value& version_doc);
core::ApiResourcesProbe api_resources_from(const boost::json::value& resource_list);
// `openapi_root` is GET /openapi/v3: returns the server-relative URL of a
// group-version document ("api/v1", "apis/autoscaling/v2"), or "".
std::string openapi_path_for(const boost::json::value& openapi_root, std::string_view group_version);
bool pod_spec_has_resources(const boost::json::value& core_v1_doc);
bool hpa_conditions_list_scaled_to_zero(const boost::json::value& autoscaling_v2_doc);

}  // namespace attune::kube
