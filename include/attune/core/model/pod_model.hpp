#pragma once
// Plain structs for the parts of a Pod the core decides on, decoded from the
// apiserver's JSON. Absent and empty are kept apart where Kubernetes does
// (spec.resources: {} is still "has an envelope").
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "attune/core/model/quantity.hpp"
#include "attune/core/util/result.hpp"

namespace boost::json {
class value;
class object;
}  // namespace boost::json

namespace attune::core {

inline constexpr std::string_view kCpu = "cpu";
inline constexpr std::string_view kMemory = "memory";

// Resource name -> quantity (cpu, memory, hugepages-2Mi, ...). Ordered, so
// anything serialised from it is deterministic.
using ResourceList = std::map<std::string, Quantity, std::less<>>;

struct ResourceRequirements {
    ResourceList requests;
    ResourceList limits;
    friend bool operator==(const ResourceRequirements&, const ResourceRequirements&) = default;
};

// A value that is present and non-zero: Kubernetes treats a zero quantity
// as unset for QoS.
const Quantity* find_positive(const ResourceList& list, std::string_view name);
const Quantity* find(const ResourceList& list, std::string_view name);

struct ContainerResizePolicy {
    std::string resource_name;   // cpu | memory
    std::string restart_policy;  // NotRequired | RestartContainer
    friend bool operator==(const ContainerResizePolicy&, const ContainerResizePolicy&) = default;
};

struct Container {
    std::string name;
    ResourceRequirements resources;
    std::vector<ContainerResizePolicy> resize_policy;
    // Init containers only: "Always" marks a native sidecar.
    std::optional<std::string> restart_policy;

    bool is_native_sidecar() const { return restart_policy && *restart_policy == "Always"; }
    // resizePolicy for one resource; NotRequired when unset (API default).
    std::string_view resize_restart_policy(std::string_view resource) const;
};

struct ContainerTermination {
    std::string reason;       // e.g. OOMKilled, Error, Completed
    std::string finished_at;  // RFC 3339 as the kubelet wrote it; "" when absent
    std::optional<std::int64_t> exit_code;
};

struct ContainerStatus {
    std::string name;
    std::optional<ResourceRequirements> resources;  // what the runtime applied
    std::optional<ResourceList> allocated_resources;
    bool ready = false;
    std::int64_t restart_count = 0;
    std::optional<ContainerTermination> last_terminated;  // lastState.terminated
    std::optional<ContainerTermination> terminated;       // state.terminated (not restarted yet)
};

struct PodCondition {
    std::string type;
    std::string status;
    std::string reason;
    std::string message;
    std::optional<std::int64_t> observed_generation;
};

struct OwnerReference {
    std::string api_version;
    std::string kind;
    std::string name;
    std::string uid;
    bool controller = false;
};

struct Pod {
    std::string namespace_;
    std::string name;
    std::string uid;
    std::string resource_version;
    std::int64_t generation = 0;  // 0 when the server does not report it (1.32)
    std::map<std::string, std::string, std::less<>> labels;
    std::map<std::string, std::string, std::less<>> annotations;
    std::vector<OwnerReference> owner_references;
    std::string deletion_timestamp;  // metadata.deletionTimestamp; non-empty while the pod is deleting

    std::string node_name;
    std::vector<Container> containers;
    std::vector<Container> init_containers;
    std::optional<ResourceRequirements> pod_resources;  // spec.resources (the envelope)

    std::string phase;
    std::string qos_class;  // status.qosClass, "" when not reported yet
    std::vector<ContainerStatus> container_statuses;
    std::vector<ContainerStatus> init_container_statuses;
    std::vector<PodCondition> conditions;
    std::string status_resize;  // 1.32 status.resize (Proposed/InProgress/Deferred/Infeasible)
    // 1.35+ pod-level status.resources: the envelope the kubelet applied.
    std::optional<ResourceRequirements> status_pod_resources;
    std::optional<std::int64_t> observed_generation;

    const Container* find_container(std::string_view name) const;  // app containers, then init
    Container* find_container(std::string_view name);
    const ContainerStatus* find_status(std::string_view name) const;
    const PodCondition* find_condition(std::string_view type) const;
    bool is_ready() const;  // condition Ready is True
    const OwnerReference* controller_ref() const;
};

// Error code "invalid_pod"; the message names the JSON path at fault.
Result<Pod> decode_pod(const boost::json::value& json);

// Shared by the other decoders: a ResourceList object at `path`.
Result<ResourceList> decode_resource_list(const boost::json::value& json, const std::string& path);
Result<ResourceRequirements> decode_requirements(const boost::json::value& json, const std::string& path);

// The reverse, for patch bodies: canonical quantity strings, empty maps left out.
boost::json::object resource_list_json(const ResourceList& list);
boost::json::object requirements_json(const ResourceRequirements& rr);

}  // namespace attune::core
