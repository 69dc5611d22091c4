#include "attune/core/resize/node_fit.hpp"

#include <boost/json.hpp>

#include "attune/core/model/readable_units.hpp"
#include "attune/core/resize/envelope.hpp"
#include "../util/json_decode.hpp"

namespace attune::core {

Result<NodeFacts> decode_node_facts(const boost::json::value& json) {
    using namespace detail;
    try {
        const auto& root = as_object(json, "node");
        NodeFacts n;
        if (const auto* md = opt_object(root, "metadata", "node")) n.name = opt_string(*md, "name", "metadata");
        if (const auto* st = opt_object(root, "status", "node")) {
            if (const auto* a = field(*st, "allocatable")) {
                auto list = decode_resource_list(*a, "status.allocatable");
                if (!list.ok()) fail("status.allocatable", list.error().message);
                n.allocatable = std::move(list).value();
            }
            if (const auto* conds = opt_array(*st, "conditions", "status")) {
                for (std::size_t i = 0; i < conds->size(); ++i) {
                    const std::string at = "status.conditions[" + std::to_string(i) + "]";
                    const auto& c = as_object((*conds)[i], at);
                    const bool on = opt_string(c, "status", at) == "True";
                    const std::string type = opt_string(c, "type", at);
                    if (type == "MemoryPressure") n.memory_pressure = on;
                    if (type == "DiskPressure") n.disk_pressure = on;
                    if (type == "PIDPressure") n.pid_pressure = on;
                }
            }
        }
        return n;
    } catch (const DecodeFailure& e) {
        return make_error("invalid_node", e.what());
    }
}

ResourceList sum_pod_requests(std::span<const Pod> pods, std::string_view except_uid) {
    ResourceList out{{std::string(kCpu), Quantity{}}, {std::string(kMemory), Quantity{}}};
    for (const auto& p : pods) {
        if (p.uid == except_uid || p.phase == "Succeeded" || p.phase == "Failed") continue;
        for (const auto& [r, q] : pod_requests(p)) out[r] += q;
    }
    return out;
}

NodeRoom check_node_room(const NodeFacts& node, const ResourceList& others, const ResourceList& planned,
                         std::string_view resource) {
    NodeRoom room;
    const Quantity* alloc = find(node.allocatable, resource);
    const Quantity* want = find(planned, resource);
    const Quantity* used = find(others, resource);
    const Quantity zero;
    const Quantity total = (used ? *used : zero) + (want ? *want : zero);
    if (alloc && total <= *alloc) return room;
    room.fits = false;
    // Read in Events and the history's reasons: numbers as people read them.
    const auto text = [&](const Quantity* q) { return readable_quantity(resource, q ? *q : zero); };
    room.message = "node " + node.name + " " + std::string(resource) + ": " + text(used) +
                   " requested by other pods + " + text(want) + " planned > " +
                   (alloc ? text(alloc) + " allocatable" : "no allocatable reported");
    return room;
}

}  // namespace attune::core
