#pragma once
// The cluster's version-best feature set, decided once at process start from
// plain probe results (the runtime layer does the I/O and fills the probes).
// Probe first; the git version is only for behaviour the API cannot answer
// and as the fallback when a probe fails or is inconclusive.
#include <boost/json/object.hpp>
#include <boost/json/value.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "attune/core/util/result.hpp"

namespace attune::core {

struct Capabilities {
    std::string git_version;
    unsigned major = 0;
    unsigned minor = 0;

    // Probes (answered by the API).
    bool pods_resize = false;                   // discovery lists pods/resize on v1
    bool pod_level_resources_field = false;     // OpenAPI PodSpec.resources (CREATE/persist only)
    bool in_place_pod_level_resources = false;  // declaredFeatures three-way probe (empty != off)
    // Some Ready node reports a non-empty status.declaredFeatures: the
    // apiserver keeps the field, and (1.36) it checks the pod's own node
    // before changing spec.resources in place; see node_allows_pod_level_resize.
    bool declared_features_reported = false;
    bool hpa_scale_to_zero = false;             // doctor/e2e gating only; the idle classifier ignores it

    // Version-locked (not discoverable): 1.33 rejects it in validation while
    // still advertising /resize.
    bool allow_in_place_memory_limit_decrease = false;  // git version >= 1.34
    // Native sidecars (restartPolicy: Always init containers) resizable in
    // place: git version >= 1.33. The 1.32 apiserver accepts such a /resize
    // but silently drops the initContainers part (seen on v1.32.9).
    bool in_place_sidecar_resize = false;

    // Hooks for alpha features; always false until Beta plus e2e.
    bool scheduler_resize_preemption = false;  // KEP-5836
    bool memory_backed_volume_resize = false;  // KEP-6030
    bool exclusive_cpu_in_place = false;

    bool at_least(unsigned maj, unsigned min) const { return major > maj || (major == maj && minor >= min); }
};

// Every field by the names of the manager's `capabilities ...` log line
// (git_version, pods_resize, ...), so doctor -o json and that line compare
// key by key.
boost::json::object capabilities_json(const Capabilities& c);

// Only for an unusable server version: everything off, memory clamp kept.
// Never for an OpenAPI or node-list failure.
Capabilities safe_defaults();

// "v1.36.4+k3s1", "v1.33.5-gke.1234", "v1.32.9-eks-113cf36", "v1.35.0".
std::optional<std::pair<unsigned, unsigned>> parse_git_version(std::string_view git_version);

// A major and a minor number, then the end, '.', '+' or '-': the shape of a
// git version without its 'v' and of a kernel release ("5.4.0-150-generic",
// "6.8.0-1012-aws", "4.19.112+"), for doctor's cgroup row.
std::optional<std::pair<unsigned, unsigned>> parse_major_minor(std::string_view text);

// Each probe holds its answer, or a non-empty error when the call failed.
struct ServerVersionProbe {
    std::string git_version;
    std::string error;
};

struct ApiResourcesProbe {
    std::vector<std::string> core_v1_resources;  // names from /api/v1, e.g. "pods", "pods/resize"
    std::string error;
};

struct OpenApiProbe {
    bool pod_spec_has_resources = false;          // io.k8s.api.core.v1.PodSpec has "resources"
    bool hpa_conditions_have_scaled_to_zero = false;  // HorizontalPodAutoscalerConditionType lists ScaledToZero
    std::string error;
};

struct NodeProbe {
    bool ready = false;
    // nullopt: the field is absent (gate off, or kubelet too old).
    std::optional<std::vector<std::string>> declared_features;
    // For doctor's cgroup row, read from the same list (one discovery,
    // reused): no Node field reports the runtime cgroup version.
    std::string name;
    std::string kernel_version;  // status.nodeInfo.kernelVersion, e.g. "6.8.0-1012-aws"
    // NFD's feature.node.kubernetes.io/kernel.config.CGROUP_V2=true: the
    // kernel was compiled with cgroup v2, which is not proof it booted with it.
    bool kernel_config_cgroup_v2 = false;
};

struct NodeListProbe {
    std::vector<NodeProbe> nodes;
    std::string error;
    int error_status = 0;  // HTTP status when the apiserver refused the list (403: Forbidden); 0 otherwise
};

inline constexpr std::string_view kNfdKernelConfigCgroupV2Label = "feature.node.kubernetes.io/kernel.config.CGROUP_V2";

inline constexpr std::string_view kInPlacePodLevelResourcesFeature = "InPlacePodLevelResourcesVerticalScaling";

// A Node object as the probes need it: Ready, and status.declaredFeatures
// (absent stays nullopt, an empty list stays an empty list), its name,
// kernel version and the NFD compile-time cgroup v2 label.
NodeProbe decode_node_probe(const boost::json::value& node);

// May spec.resources of a pod on `node` change in place? The apiserver
// checks the pod's own node, not the cluster ("pod update requires features
// InPlacePodLevelResourcesVerticalScaling which are not available on node",
// seen on 1.36; container-only resizes inside the envelope still pass):
//  - off cluster-wide                       => false;
//  - the node lists features                => it must list this one;
//  - no list, but other nodes report lists  => false (refused, e2e/tests/40);
//  - nobody reports lists                   => the cluster-wide decision.
// The GA caveat on decide_in_place_pod_level_resources applies here too.
bool node_allows_pod_level_resize(const Capabilities& caps, const NodeProbe& node);

// Error ("server_version_unusable") only when the server version failed or
// does not parse; OpenAPI and node-list failures fall back to the version.
Result<Capabilities> decide_capabilities(const ServerVersionProbe& server_version,
                                         const ApiResourcesProbe& api_resources, const OpenApiProbe& openapi,
                                         const NodeListProbe& node_list);

// The three-way declaredFeatures rule on its own (exposed for doctor).
bool decide_in_place_pod_level_resources(const NodeListProbe& node_list, unsigned major, unsigned minor);

}  // namespace attune::core
