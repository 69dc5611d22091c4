#pragma once
// Pod CREATE sizing (docs/webhook.md): a new pod of
// a workload whose policy opted into initial sizing is born at the
// recommended size. Pure: the caller has already looked the namespace, the
// owner, the policy and the recommendation up in its informer caches.
//
// The pod's owner replica count is never read: a scale-up from zero admits
// its first pod while the owner may still read 0, and that pod is the one
// that matters most.
#include <boost/json/array.hpp>
#include <boost/json/value.hpp>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "attune/core/policy/annotations.hpp"
#include "attune/core/model/pod_model.hpp"
#include "attune/core/policy/policy.hpp"
#include "attune/core/recommend/recommendation_status.hpp"

namespace attune::core {

inline constexpr double kMinimumCreateConfidence = 0.5;

struct NamespaceInfo {
    std::map<std::string, std::string, std::less<>> labels;
    std::map<std::string, std::string, std::less<>> annotations;
};

// Why a pod is not looked at any further, before any policy lookup; nullopt
// when it may be sized. Reasons: "kube_system", "operator_namespace",
// "opted_out" (attune.io/skip=true on the pod), "namespace_unknown" (the
// namespace cache cannot tell: fail closed), "namespace_frozen"
// (attune.io/freeze=true), "namespace_not_enabled" (no
// attune.io/initial-sizing=enabled label).
std::optional<std::string> create_sizing_gate(std::string_view pod_namespace, const std::optional<NamespaceInfo>& ns,
                                              std::string_view operator_namespace,
                                              const std::map<std::string, std::string, std::less<>>& pod_annotations);

struct CreateSizingInput {
    const boost::json::value* pod = nullptr;  // request.object
    // The merged policy that selects the pod's workload; nullptr: none. Read:
    // updateStrategy.initialSizing, paused, updateStrategy.type (Canary: new
    // pods keep the template's size until the lifecycle validated the
    // recommendation), excludedContainers (with the known sidecars), and per
    // container (containerPolicies count) controlledValues and cpu.startupBoost.
    const EffectivePolicy* policy = nullptr;
    const StatusRecommendation* recommendation = nullptr;  // nullptr: none for the workload
    bool pod_level_resources_field = false;  // Capabilities::pod_level_resources_field
    std::string now;                         // RFC 3339 UTC, for attune.io/startup-boost-at
};

struct ContainerSizing {
    std::string name;
    // "sized", "excluded", "no_recommendation", "low_confidence",
    // "envelope_constraint" (RequestsOnly cannot lift a Burstable pod's
    // envelope limit: left as the template has it), "unchanged".
    std::string outcome;
    ResourceRequirements before;
    ResourceRequirements after;
    bool boosted = false;
};

struct CreateSizing {
    // Empty when at least one container was sized. Otherwise "invalid_pod",
    // "no_policy", "initial_sizing_disabled", "policy_paused",
    // "canary_policy", "no_recommendation", "stale_recommendation",
    // "no_container_sized".
    std::string skip_reason;
    boost::json::array patch;  // RFC 6902 against request.object; empty when skipped
    std::vector<ContainerSizing> containers;
    bool boosted = false;
    bool envelope_raised = false;
    std::vector<std::string> warnings;  // for the AdmissionReview response

    bool sized() const { return skip_reason.empty(); }
};

// Per app container and native sidecar named in the recommendation with
// confidence >= 0.5 and not excluded:
//  1. requests := recommended cpu/memory requests; limits := recommended
//     limits only where that resource is RequestsAndLimits (a zero
//     recommended limit means none, so nothing is written); then every
//     request is clamped to its limit.
//  2. startup boost: cpu request x multiplier (rounded up to the milli),
//     kept at or below a cpu limit, since the limit caps the container
//     anyway; attune.io/startup-boost-at := now (kept when already set, so
//     a reinvocation does not move it). The executor restores the unboosted
//     request in place once the duration has passed.
//  3. envelope, only when the pod has spec.resources and the field exists
//     (pod_level_resources_field): raise_envelope over the boosted targets.
//     Never invented. A container whose target would lift a limit of a
//     non-Guaranteed envelope for a RequestsOnly resource is not sized (fail
//     closed), rather than creating an illegal or re-capped pod.
//  4. annotations attune.io/initial-sizing=applied and
//     attune.io/initial-sizing-policy=<ns>/<policy>.
// Deterministic and idempotent, so reinvocation (IfNeeded) is harmless.
CreateSizing size_pod_on_create(const CreateSizingInput& in);

// request x multiplier, rounded up to the milli, in the request's format.
Quantity boost_cpu(const Quantity& request, double multiplier);

}  // namespace attune::core
