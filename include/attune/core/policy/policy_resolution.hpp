#pragma once
// A policy's effective settings, as the controller, the admission webhook
// and kubectl-attune all take them: the decoded policy merged with both
// defaults tiers (merge_effective_policy), then validated
// (validate_effective_policy). Pure: the callers hand in what their caches
// or lists decoded. It fails closed: defaults that have not been listed yet,
// a policy or a defaults object that does not decode, or a merge that breaks
// a validation rule gives no settings, only the message the controller
// reports as Ready=False InvalidConfig.
#include <optional>
#include <span>
#include <string>
#include <string_view>

#include "attune/core/policy/policy.hpp"
#include "attune/core/policy/policy_validation.hpp"

namespace attune::core {

// One defaults object of a tier, as decoded once per version.
struct DefaultsInput {
    std::string name;
    const AttuneDefaults* defaults = nullptr;  // null: it does not decode
    std::string error;                         // why not
};

enum class ResolutionFailure {
    None,
    DefaultsNotSynced,  // a defaults tier has not been listed: its absence proves nothing
    InvalidPolicy,      // the policy does not decode
    InvalidDefaults,    // a defaults object of either tier does not decode
    ValidationFailed,   // the merge breaks a rule of validate_effective_policy
};

// "defaults_not_synced", "invalid_policy", "invalid_defaults",
// "policy_validation_failed"; "" for None.
std::string_view to_string(ResolutionFailure f) noexcept;

struct PolicyResolutionInput {
    const AttunePolicy* policy = nullptr;  // null: it does not decode
    std::string policy_error;              // why not
    bool defaults_synced = true;           // both defaults tiers have listed
    std::span<const DefaultsInput> cluster_defaults;    // AttuneDefaults, ordered by name
    std::span<const DefaultsInput> namespace_defaults;  // the policy's namespace's, ordered by name
    PolicyValidationOptions validation;
};

struct PolicyResolution {
    std::optional<EffectivePolicy> effective;  // set exactly when failure is None
    ResolutionFailure failure = ResolutionFailure::None;
    std::string message;  // the InvalidConfig message; "" when effective is set

    bool ok() const noexcept { return failure == ResolutionFailure::None; }
};

// In this order: defaults not listed, the policy, the cluster tier, the
// namespace tier (the first object of a tier that does not decode), the
// validation of the merge.
PolicyResolution resolve_effective_policy(const PolicyResolutionInput& in);

}  // namespace attune::core
