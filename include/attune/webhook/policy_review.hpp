#pragma once
// The admission of Attune's own objects (docs/webhook.md, "Policies and
// defaults"): AttunePolicy, AttuneDefaults and AttuneNamespaceDefaults
// CREATE and UPDATE, validated by core::admit_policy_object, an AttunePolicy
// defaulted by core::default_policy_object. It reads the defaults caches and
// the zone database (one small file per schedule, not kept), never the API.
//
//   POST /validate-attunepolicy              validating
//   POST /validate-attunedefaults            validating
//   POST /validate-attunenamespacedefaults   validating
//   POST /mutate-attunepolicy                mutating (spec.weight)
#include <attune/core/admission/admission_review.hpp>
#include <attune/core/admission/policy_admission.hpp>
#include <attune/core/policy/policy_validation.hpp>
#include <attune/kube/watch_scope.hpp>
#include <attune/policy/cache_views.hpp>
#include <attune/policy/time_zones.hpp>

#include <optional>
#include <string_view>

namespace attune::webhook {

inline constexpr std::string_view kValidatePolicyPath = "/validate-attunepolicy";
inline constexpr std::string_view kValidateDefaultsPath = "/validate-attunedefaults";
inline constexpr std::string_view kValidateNamespaceDefaultsPath = "/validate-attunenamespacedefaults";
inline constexpr std::string_view kMutatePolicyPath = "/mutate-attunepolicy";

struct PolicyRoute {
    core::PolicyKind kind = core::PolicyKind::AttunePolicy;
    bool mutating = false;
};
// The route of a request path; nullopt for any other path.
std::optional<PolicyRoute> policy_route(std::string_view path) noexcept;
// The operation label of attune_webhook_validation_total and of the policy
// webhooks' attune_webhook_duration_seconds series, in the Go Attune's words
// (docs/webhook.md#metrics): "defaulting" for the mutating route, else
// validate_, defaults_validate_ or namespace_defaults_validate_ and the
// operation in lower case. nullopt for an operation this webhook does not
// judge (DELETE, CONNECT, anything else).
std::optional<std::string_view> validation_operation(PolicyRoute route, std::string_view operation) noexcept;

class PolicyReviewer {
public:
    PolicyReviewer(const policy::CacheViews* views, core::PolicyValidationOptions validation,
                   kube::WatchScope scope = kube::WatchScope(), policy::TimeZones zones = policy::TimeZones())
        : views_(views), validation_(validation), scope_(std::move(scope)), zones_(std::move(zones)) {}

    // A review of another kind, or another operation than CREATE and UPDATE,
    // is allowed untouched (a warning names a misrouted kind): this webhook
    // judges only what it was written for. So is a namespaced object outside
    // --watch-namespaces: another manager, with other flags, may own it.
    core::AdmissionResponse review(const core::AdmissionRequest& req, PolicyRoute route) const;

private:
    const policy::CacheViews* views_;  // null: no defaults tiers (tests)
    core::PolicyValidationOptions validation_;
    kube::WatchScope scope_;
    policy::TimeZones zones_;
};

}  // namespace attune::webhook
