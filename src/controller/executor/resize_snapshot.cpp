#include <attune/controller/executor/resize_snapshot.hpp>

#include <attune/controller/workload_snapshot.hpp>  // pods_of
#include <attune/core/model/label_selector.hpp>

#include <spdlog/spdlog.h>

#include <algorithm>

namespace attune::controller {

std::optional<ExecutorSnapshot> take_executor_snapshot(const ExecutorCaches& caches, const ObjectKey& key) {
    const auto* cache = caches.views.for_kind(key.kind);
    auto obj = cache ? cache->get(key.cache_key()) : nullptr;
    if (!obj) return std::nullopt;
    ExecutorSnapshot s;
    s.key = key;
    s.workload = obj;
    s.uid = std::string(kube::meta_string(*obj, "uid"));
    s.annotations = core::annotations_of(*obj);
    s.report = classify_workload(caches.views, key);
    if (!s.report.selected_by.empty() && caches.views.policies)
        s.policy = caches.views.policies->get(key.ns + "/" + s.report.selected_by.front());
    {
        for (const auto& p : pods_of(caches.views, key.kind, s.uid)) {
            auto pod = core::decode_pod(*p);
            if (pod) s.pods.push_back(std::move(pod).value());
            else s.undecodable.push_back(std::string(kube::meta_string(*p, "name")) + ": " + pod.error().message);
        }
        std::sort(s.pods.begin(), s.pods.end(), [](const core::Pod& a, const core::Pod& b) { return a.name < b.name; });
    }
    if (caches.namespaces)
        if (auto ns = caches.namespaces->get(key.ns)) s.namespace_annotations = core::annotations_of(*ns);
    if (caches.limit_ranges) {
        for (const auto& lr : caches.limit_ranges->in_namespace(key.ns)) {
            auto items = core::decode_limit_range(*lr);
            if (items) s.limit_ranges.insert(s.limit_ranges.end(), items.value().begin(), items.value().end());
            else spdlog::warn("LimitRange does not decode; ignored namespace={} name={} error=\"{}\"", key.ns,
                              kube::meta_string(*lr, "name"), items.error().message);
        }
    }
    if (caches.resource_quotas) {
        for (const auto& q : caches.resource_quotas->in_namespace(key.ns)) {
            auto quota = core::decode_resource_quota(*q);
            if (quota) s.quotas.push_back(std::move(quota).value());
            else spdlog::warn("ResourceQuota does not decode; ignored namespace={} name={} error=\"{}\"", key.ns,
                              kube::meta_string(*q, "name"), quota.error().message);
        }
    }
    return s;
}

namespace {
NodeView decode_node_view(const boost::json::value& node) {
    NodeView v;
    v.probe = core::decode_node_probe(node);
    auto facts = core::decode_node_facts(node);
    if (facts) v.facts = std::move(facts).value();
    else
        spdlog::warn("node does not decode; its pods' increases wait name={} error=\"{}\"",
                     kube::meta_string(node, "name"), facts.error().message);
    return v;
}
}  // namespace

void decode_nodes(kube::ObjectCache& nodes) {
    nodes.decode_as<NodeView>([](const boost::json::value& node) -> std::shared_ptr<const void> {
        return std::make_shared<const NodeView>(decode_node_view(node));
    });
}

NodeView node_of(const ExecutorCaches& caches, std::string_view node_name) {
    if (!caches.nodes || node_name.empty()) return {};
    const auto v = caches.nodes->decoded<NodeView>(node_name);
    return v ? *v : NodeView{};
}

}  // namespace attune::controller
