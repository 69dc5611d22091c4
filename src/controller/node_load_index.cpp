#include <attune/controller/node_load_index.hpp>

#include <attune/core/resize/envelope.hpp>

namespace attune::controller {
namespace {

void add(core::ResourceList& to, const core::ResourceList& what, bool subtract) {
    for (const auto& [r, q] : what) {
        auto it = to.find(r);
        if (it == to.end()) {
            if (!subtract) to.emplace(r, q);
            continue;
        }
        if (subtract) it->second -= q;
        else it->second += q;
        if (it->second.sign() <= 0) to.erase(it);
    }
}

}  // namespace

void NodeLoadIndex::remove(const std::string& key) {
    auto it = pods_.find(key);
    if (it == pods_.end()) return;
    if (auto n = nodes_.find(it->second.node); n != nodes_.end()) {
        add(n->second, it->second.requests, true);
        if (n->second.empty()) nodes_.erase(n);
    }
    pods_.erase(it);
}

void NodeLoadIndex::apply(const kube::ObjectCache::Delta& d) {
    remove(d.key);
    if (!d.new_object) return;
    auto pod = core::decode_pod(*d.new_object);
    if (!pod) return;
    const auto& p = pod.value();
    if (p.node_name.empty() || p.phase == "Succeeded" || p.phase == "Failed") return;
    Entry e{p.node_name, core::pod_requests(p)};
    add(nodes_[e.node], e.requests, false);
    pods_.emplace(d.key, std::move(e));
}

core::ResourceList NodeLoadIndex::others(std::string_view node, std::string_view pod_key) const {
    core::ResourceList out;
    if (auto n = nodes_.find(std::string(node)); n != nodes_.end()) out = n->second;
    if (auto p = pods_.find(std::string(pod_key)); p != pods_.end() && p->second.node == node) add(out, p->second.requests, true);
    return out;
}

}  // namespace attune::controller
