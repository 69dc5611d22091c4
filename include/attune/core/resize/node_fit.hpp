#pragma once
// Node facts for the increase gates: pressure conditions and room
// (allocatable minus the other pods' requests, each pod counted as
// max(sum of containers, envelope) like the scheduler does).
#include <boost/json/value.hpp>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "attune/core/model/pod_model.hpp"
#include "attune/core/util/result.hpp"

namespace attune::core {

struct NodeFacts {
    std::string name;
    ResourceList allocatable;
    bool memory_pressure = false;
    bool disk_pressure = false;
    bool pid_pressure = false;
};

// A Node object (status.allocatable, status.conditions). Error "invalid_node".
Result<NodeFacts> decode_node_facts(const boost::json::value& node);

// The requests of the pods in `pods` that hold node room (not Succeeded or
// Failed), except the one with `except_uid`, each as pod_requests counts it.
ResourceList sum_pod_requests(std::span<const Pod> pods, std::string_view except_uid);

struct NodeRoom {
    bool fits = true;
    std::string message;  // "node n1 cpu: 3500m requested by others + 1 planned > 4 allocatable"
};

// Does `planned` (this pod's requests after the resize, pod_requests) fit
// next to `others` on `node` for `resource`? A node that does not report
// allocatable for it does not fit (fail closed).
NodeRoom check_node_room(const NodeFacts& node, const ResourceList& others, const ResourceList& planned,
                         std::string_view resource);

}  // namespace attune::core
