#pragma once
// The reads kubectl-attune's reports make, over kube::client: one object as
// an object_lookup (404/403 are answers, not failures), the policies with
// their defaults objects, and the resource types the runtime does not name.
#include "object_lookup.hpp"
#include "policy_context.hpp"

#include <attune/kube/client.hpp>

#include <boost/asio/awaitable.hpp>

#include <string>

namespace attune::cli {

namespace cli_resources {
kube::resource_type attune_defaults();            // cluster-scoped
kube::resource_type attune_namespace_defaults();
kube::resource_type custom_resource_definitions();  // apiextensions.k8s.io/v1
kube::resource_type mutating_webhook_configurations();
kube::resource_type services();
kube::resource_type endpoint_slices();  // discovery.k8s.io/v1
kube::resource_type self_subject_access_reviews();
}  // namespace cli_resources

boost::asio::awaitable<object_lookup> lookup_object(kube::client& c, kube::resource_type rt, std::string ns,
                                                    std::string name);

// `ns` "" for every namespace. AttuneDefaults are cluster-scoped and read
// whole; a defaults kind that cannot be listed is noted, not fatal.
boost::asio::awaitable<policy_context> read_policy_context(kube::client& c, std::string ns);

// "deployments.apps \"web\" not found", kubectl's wording for a 404.
std::string not_found_text(const kube::resource_type& rt, const std::string& name);

}  // namespace attune::cli
