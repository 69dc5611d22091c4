#pragma once
// The reads kubectl-attune's reports make, over kube::Client: one object as
// an ObjectLookup (404/403 are answers, not failures), the policies with
// their defaults objects, and the resource types the runtime does not name.
#include "object_lookup.hpp"
#include "policy_context.hpp"

#include <attune/core/util/result.hpp>
#include <attune/kube/client.hpp>

#include <boost/asio/awaitable.hpp>

#include <string>

namespace attune::cli {

namespace cli_resources {
kube::ResourceType attune_defaults();  // cluster-scoped
kube::ResourceType attune_namespace_defaults();
kube::ResourceType custom_resource_definitions();  // apiextensions.k8s.io/v1
kube::ResourceType mutating_webhook_configurations();
kube::ResourceType validating_webhook_configurations();
kube::ResourceType services();
kube::ResourceType endpoint_slices();  // discovery.k8s.io/v1
kube::ResourceType self_subject_access_reviews();
}  // namespace cli_resources

boost::asio::awaitable<ObjectLookup> lookup_object(kube::Client& c, kube::ResourceType rt, std::string ns,
                                                   std::string name);

// `ns` "" for every namespace. AttuneDefaults are cluster-scoped and read
// whole; a defaults kind that cannot be listed is noted, not fatal.
boost::asio::awaitable<PolicyContext> read_policy_context(kube::Client& c, std::string ns);

// read_policy_context for a report over `ns`, narrowed to the policy named
// `policy` when it is not empty. Errors, as the "error:" line says them:
// "list_failed" (the policies cannot be listed; a missing CRD is named) and
// "not_found" (kubectl's wording).
boost::asio::awaitable<core::Result<PolicyContext>> read_report_policies(kube::Client& c, std::string ns,
                                                                         std::string policy);

// A workload's spec.selector.matchLabels as a label selector string, so the
// apiserver filters its pods; callers apply the whole selector
// (matchExpressions too) to what comes back. "" when it has none.
std::string match_labels_selector(const boost::json::value& workload);

// A request's error on one line, as the reports quote it.
std::string one_line_error(const kube::ApiError& e);

// "deployments.apps \"web\" not found", kubectl's wording for a 404.
std::string not_found_text(const kube::ResourceType& rt, const std::string& name);

}  // namespace attune::cli
