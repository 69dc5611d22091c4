#pragma once
// Admission of AttunePolicy, AttuneDefaults and AttuneNamespaceDefaults
// (docs/webhook.md, "Policies and defaults"): what the CRD's CEL rules cannot
// say. Pure: the shell hands in the object, the decoded defaults tiers from
// its caches and a zone lookup.
//
// Refused: an object that does not decode (the decoder's message, which
// names the JSON path), one that breaks a rule of validate_effective_policy
// on its own (the Prometheus host rule, Secret reads, containerPolicies
// bounds, ...: the controller would report it InvalidConfig), and a
// schedule.timezone the zone database does not hold. Allowed with a
// warning: a policy that is valid on its own but that the cached defaults
// tiers make invalid (the fix is in the defaults object, and the cache may
// lag), and the settings Go v0.1.23 warns about.
//
// Defaulted (mutating): spec.weight, when absent or 0, becomes 100, as the Go
// operator's defaulting webhook does; the CRD's own default covers only an
// absent field, and its schema refuses 0.
#include <boost/json/array.hpp>
#include <boost/json/value.hpp>
#include <functional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "attune/core/policy/policy.hpp"
#include "attune/core/policy/policy_resolution.hpp"
#include "attune/core/policy/policy_validation.hpp"

namespace attune::core {

enum class PolicyKind { AttunePolicy, AttuneDefaults, AttuneNamespaceDefaults };
std::optional<PolicyKind> parse_policy_kind(std::string_view kind) noexcept;
std::string_view to_string(PolicyKind k) noexcept;

inline constexpr int kDefaultPolicyWeight = 100;

struct PolicyAdmissionInput {
    PolicyKind kind = PolicyKind::AttunePolicy;
    const boost::json::value* object = nullptr;      // request.object
    const boost::json::value* old_object = nullptr;  // request.oldObject on UPDATE, else null
    std::string namespace_;                          // request.namespace ("" for AttuneDefaults)
    // The cached tiers the policy would merge with (an AttunePolicy only).
    // Not synced: no cross-object warning, since an empty cache proves nothing.
    bool defaults_synced = false;
    std::span<const DefaultsInput> cluster_defaults;
    std::span<const DefaultsInput> namespace_defaults;
    PolicyValidationOptions validation;  // the manager's, as the controller validates
    // "" when the zone database holds `zone`, else why not. Null: every zone is known.
    std::function<std::string(std::string_view zone)> check_time_zone;
};

struct PolicyAdmission {
    bool allowed = true;
    std::string message;  // why not, when refused
    std::vector<std::string> warnings;
};

// An object being deleted (metadata.deletionTimestamp: a finalizer is
// coming off) is not judged. An UPDATE of an object that the same rule
// already refuses in oldObject (stored before the webhook, or under other
// manager flags) is let through with the refusal as a warning, so that
// labels, finalizers and the fix itself can still be written.
PolicyAdmission admit_policy_object(const PolicyAdmissionInput& in);

// The RFC 6902 patch that defaults `object` (empty when nothing is
// missing, or `object` is not an AttunePolicy with a spec object).
boost::json::array default_policy_object(PolicyKind kind, const boost::json::value& object);

// The warnings Go v0.1.23 gives for a policy that is otherwise valid, in its
// order and words (tools may match them). `mode`: the effective
// updateStrategy.type (the policy's, else a defaults tier's, else Recommend).
std::vector<std::string> policy_warnings(const AttunePolicySpec& spec, UpdateMode mode);
std::vector<std::string> defaults_warnings(const DefaultsSpec& spec);

}  // namespace attune::core
