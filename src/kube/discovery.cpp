#include <attune/kube/discovery.hpp>

#include <attune/core/util/json_path.hpp>

#include <boost/json.hpp>

#include <spdlog/spdlog.h>

namespace attune::kube {
namespace json = boost::json;
namespace asio = boost::asio;

core::ServerVersionProbe server_version_from(const json::value& doc) {
    core::ServerVersionProbe p;
    if (const auto* gv = core::json_at(doc, {"gitVersion"}); gv && gv->is_string()) {
        p.git_version = gv->get_string();
    } else {
        p.error = "/version has no gitVersion";
    }
    return p;
}

core::ApiResourcesProbe api_resources_from(const json::value& list) {
    core::ApiResourcesProbe p;
    const auto* res = core::array_at(list, {"resources"});
    if (!res) {
        p.error = "/api/v1 has no resources list";
        return p;
    }
    for (const auto& r : *res) {
        if (const auto* n = core::json_at(r, {"name"}); n && n->is_string()) p.core_v1_resources.emplace_back(n->get_string());
    }
    return p;
}

std::string openapi_path_for(const json::value& root, std::string_view gv) {
    return std::string(core::string_at(root, {"paths", gv, "serverRelativeURL"}));
}

bool pod_spec_has_resources(const json::value& doc) {
    const auto* props = core::object_at(doc, {"components", "schemas", "io.k8s.api.core.v1.PodSpec", "properties"});
    return props && props->contains("resources");
}

bool hpa_conditions_list_scaled_to_zero(const json::value& doc) {
    const auto* type = core::json_at(
        doc, {"components", "schemas", "io.k8s.api.autoscaling.v2.HorizontalPodAutoscalerCondition", "properties", "type"});
    if (!type) return false;
    if (const auto* e = core::array_at(*type, {"enum"})) {
        for (const auto& v : *e)
            if (v.is_string() && v.get_string() == "ScaledToZero") return true;
    }
    return core::string_at(*type, {"description"}).find("\"ScaledToZero\"") != std::string_view::npos;
}

asio::awaitable<core::ServerVersionProbe> probe_server_version(Client& c) {
    auto r = co_await c.get_path("/version");
    if (!r) co_return core::ServerVersionProbe{"", r.error().describe()};
    co_return server_version_from(r.value());
}

asio::awaitable<core::ApiResourcesProbe> probe_core_v1_resources(Client& c) {
    auto r = co_await c.get_path("/api/v1");
    if (!r) {
        core::ApiResourcesProbe p;
        p.error = r.error().describe();
        co_return p;
    }
    co_return api_resources_from(r.value());
}

asio::awaitable<core::OpenApiProbe> probe_openapi(Client& c) {
    core::OpenApiProbe p;
    auto root = co_await c.get_path("/openapi/v3");
    if (!root) {
        p.error = root.error().describe();
        co_return p;
    }
    const auto core_url = openapi_path_for(root.value(), "api/v1");
    if (core_url.empty()) {
        p.error = "/openapi/v3 does not list api/v1";
        co_return p;
    }
    auto core_doc = co_await c.get_path(core_url);
    if (!core_doc) {
        p.error = core_doc.error().describe();
        co_return p;
    }
    p.pod_spec_has_resources = pod_spec_has_resources(core_doc.value());
    if (const auto hpa_url = openapi_path_for(root.value(), "apis/autoscaling/v2"); !hpa_url.empty()) {
        if (auto hpa_doc = co_await c.get_path(hpa_url)) {
            p.hpa_conditions_have_scaled_to_zero = hpa_conditions_list_scaled_to_zero(hpa_doc.value());
        }
    }
    co_return p;
}

asio::awaitable<core::NodeListProbe> probe_nodes(Client& c) {
    core::NodeListProbe p;
    ListOptions lo;
    lo.limit = 500;
    auto r = co_await c.list_all(resources::nodes(), "", lo);
    if (!r) {
        p.error = r.error().describe();
        if (r.error().kind == ErrorKind::ApiStatus) p.error_status = r.error().code;
        co_return p;
    }
    for (const auto& n : r->items) p.nodes.push_back(core::decode_node_probe(n));
    co_return p;
}

asio::awaitable<DiscoveryProbes> probe_all(Client& c) {
    DiscoveryProbes out;
    out.version = co_await probe_server_version(c);
    out.resources = co_await probe_core_v1_resources(c);
    out.openapi = co_await probe_openapi(c);
    out.nodes = co_await probe_nodes(c);
    spdlog::info("discovery gitVersion={} resources={} podSpecResources={} nodes={} errors=\"{}{}{}{}\"",
                 out.version.git_version, out.resources.core_v1_resources.size(), out.openapi.pod_spec_has_resources,
                 out.nodes.nodes.size(), out.version.error, out.resources.error, out.openapi.error, out.nodes.error);
    co_return out;
}

}  // namespace attune::kube
