#include <attune/controller/prometheus_discoverer.hpp>

#include <attune/core/util/json_path.hpp>
#include <attune/kube/resource.hpp>

#include <boost/json.hpp>

#include <spdlog/spdlog.h>

#include <vector>

namespace attune::controller {
namespace json = boost::json;

namespace {
// Not there, or not ours to see: nothing found at that place.
bool absent(const kube::ApiError& e) {
    return e.is_not_found() || e.is_forbidden() || e.kind == kube::ErrorKind::OutOfScope;
}

std::optional<std::int64_t> positive(std::optional<std::int64_t> v) { return v && *v > 0 ? v : std::nullopt; }
}  // namespace

boost::asio::awaitable<core::Result<std::optional<core::DiscoveredPrometheus>>> look_for_prometheus(
    kube::Client& client, std::vector<std::string> namespaces) {
    std::vector<core::PrometheusOperatorObject> objects;
    if (namespaces.empty()) namespaces.emplace_back();  // "": one list over every namespace
    for (const auto& ns : namespaces) {
        kube::ListOptions lo;
        auto list = co_await client.list_all(kube::resources::prometheuses(), ns, lo);
        if (list.ok()) {
            for (const auto& item : list.value().items)
                objects.push_back({std::string(core::string_at(item, {"metadata", "namespace"})),
                                   std::string(core::string_at(item, {"metadata", "name"})),
                                   positive(core::int_at(item, {"spec", "port"}))});
        } else if (absent(list.error())) {
            spdlog::debug("prometheus discovery: no Prometheus Operator objects readable namespace={} error=\"{}\"", ns,
                          list.error().describe());
        } else {
            co_return core::make_error("discovery_failed",
                                       "listing Prometheus Operator objects: " + list.error().describe());
        }
    }
    std::vector<core::FoundService> services;
    if (objects.empty()) {
        for (const auto& want : core::well_known_prometheus_services()) {
            auto got = co_await client.get(kube::resources::services(), want.namespace_, want.name);
            if (got.ok()) {
                std::optional<std::int64_t> port;
                if (const auto* ports = core::array_at(got.value(), {"spec", "ports"}); ports && !ports->empty())
                    port = positive(core::int_at(ports->front(), {"port"}));
                services.push_back({want.namespace_, want.name, port});
                break;  // the first in the well-known order wins
            }
            if (!absent(got.error()))
                co_return core::make_error("discovery_failed", "reading Service " + want.namespace_ + "/" + want.name +
                                                                   ": " + got.error().describe());
        }
    }
    co_return core::discover_prometheus(objects, services);
}

}  // namespace attune::controller
