#pragma once
// The policies a command reads, with the defaults objects they merge with,
// and the effective policy of each (core::merge_effective_policy, the
// manager's own merge), so the CLI shows the mode and the Prometheus source
// the manager uses, not just what a policy's spec spells out. Pure.
#include <attune/core/policy.hpp>

#include <boost/json/value.hpp>

#include <map>
#include <string>
#include <vector>

namespace attune::cli {

struct policy_context {
    std::vector<boost::json::value> policies;            // AttunePolicy objects
    std::vector<boost::json::value> cluster_defaults;    // AttuneDefaults
    std::vector<boost::json::value> namespace_defaults;  // AttuneNamespaceDefaults (every namespace read)
    std::string policies_error;  // the policies could not be listed
    std::string defaults_error;  // a defaults kind could not be listed: the merge runs without it
};

// "ns/name" -> the effective policy, for every policy that decodes. A
// policy that does not decode is left out (callers show its spec as is).
std::map<std::string, core::EffectivePolicy> effective_policies(const policy_context& ctx);

}  // namespace attune::cli
