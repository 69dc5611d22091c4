#pragma once
// The policies a command reads, with the defaults objects they merge with,
// and the effective policy of each: policy::PolicyResolver, the manager's
// own resolution (merge with both defaults tiers, then validation), run over
// caches filled from what the command listed. So the CLI shows the mode and
// the Prometheus source the manager uses, not just what a policy's spec
// spells out, and says why a policy has no settings. Pure.
#include <attune/core/policy/policy.hpp>
#include <attune/core/policy/policy_validation.hpp>
#include <attune/policy/policy_resolver.hpp>

#include <boost/json/value.hpp>

#include <map>
#include <string>
#include <vector>

namespace attune::cli {

struct PolicyContext {
    std::vector<boost::json::value> policies;            // AttunePolicy objects
    std::vector<boost::json::value> cluster_defaults;    // AttuneDefaults
    std::vector<boost::json::value> namespace_defaults;  // AttuneNamespaceDefaults (every namespace read)
    std::string policies_error;  // the policies could not be listed
    // A defaults kind could not be listed: as the manager before its
    // defaults caches have listed, no policy has settings.
    std::string defaults_error;
};

// The validation the CLI runs: the manager's rules, less those its flags
// relax (--allow-local-metrics-addresses, --allow-secret-reads,
// --allow-prometheus-insecure-tls, --allow-plaintext-prometheus-credentials),
// which the CLI cannot see; the manager's verdict on those is the policy's
// Ready condition.
core::PolicyValidationOptions cli_validation();

// "ns/name" -> the resolution of every policy with a name and namespace:
// its effective settings, or why it has none (a policy or defaults object
// that does not decode, a merge that fails validation, defaults that could
// not be listed: "Failed to fetch defaults: " and the list error).
std::map<std::string, policy::Resolved> resolve_policies(const PolicyContext& ctx);

// "ns/name" -> the effective policy, for every policy that resolves. The
// others are left out (callers show their spec as is).
std::map<std::string, core::EffectivePolicy> effective_policies(const PolicyContext& ctx);

}  // namespace attune::cli
