#pragma once
// The cluster's version-best feature set, decided once at process start from
// plain probe results (the runtime layer does the I/O and fills the probes).
// Probe first; the git version is only for behaviour the API cannot answer
// and as the fallback when a probe fails or is inconclusive.
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "attune/core/result.hpp"

namespace attune::core {

struct Capabilities {
    std::string git_version;
    unsigned major = 0;
    unsigned minor = 0;

    // Probes (answered by the API).
    bool pods_resize = false;                   // discovery lists pods/resize on v1
    bool pod_level_resources_field = false;     // OpenAPI PodSpec.resources (CREATE/persist only)
    bool in_place_pod_level_resources = false;  // declaredFeatures three-way probe (empty != off)
    bool hpa_scale_to_zero = false;             // doctor/e2e gating only; the idle classifier ignores it

    // Version-locked (not discoverable): 1.33 rejects it in validation while
    // still advertising /resize.
    bool allow_in_place_memory_limit_decrease = false;  // git version >= 1.34

    // Hooks for alpha features; always false until Beta plus e2e.
    bool scheduler_resize_preemption = false;  // KEP-5836
    bool memory_backed_volume_resize = false;  // KEP-6030
    bool exclusive_cpu_in_place = false;

    bool at_least(unsigned maj, unsigned min) const { return major > maj || (major == maj && minor >= min); }
};

// Only for an unusable server version: everything off, memory clamp kept.
// Never for an OpenAPI or node-list failure.
Capabilities safe_defaults();

// "v1.36.4+k3s1", "v1.33.5-gke.1234", "v1.32.9-eks-113cf36", "v1.35.0".
std::optional<std::pair<unsigned, unsigned>> parse_git_version(std::string_view git_version);

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
};

struct NodeListProbe {
    std::vector<NodeProbe> nodes;
    std::string error;
};

inline constexpr std::string_view kInPlacePodLevelResourcesFeature = "InPlacePodLevelResourcesVerticalScaling";

// Error ("server_version_unusable") only when the server version failed or
// does not parse; OpenAPI and node-list failures fall back to the version.
result<Capabilities> decide_capabilities(const ServerVersionProbe& server_version,
                                         const ApiResourcesProbe& api_resources,
                                         const OpenApiProbe& openapi,
                                         const NodeListProbe& node_list);

// The three-way declaredFeatures rule on its own (exposed for doctor).
bool decide_in_place_pod_level_resources(const NodeListProbe& node_list, unsigned major, unsigned minor);

}  // namespace attune::core
