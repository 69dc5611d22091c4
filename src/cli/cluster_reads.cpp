#include "cluster_reads.hpp"

namespace attune::cli {
namespace asio = boost::asio;

namespace {
// An apiserver's plain-text body ("404 page not found\n") on one line.
std::string one_line(std::string s) {
    for (auto& c : s)
        if (c == '\n' || c == '\r') c = ' ';
    while (!s.empty() && s.back() == ' ') s.pop_back();
    return s;
}
}  // namespace

namespace cli_resources {
kube::resource_type attune_defaults() {
    return kube::resource_type("attune.io", "v1alpha1", "attunedefaults", "AttuneDefaults", false);
}
kube::resource_type attune_namespace_defaults() {
    return kube::resource_type("attune.io", "v1alpha1", "attunenamespacedefaults", "AttuneNamespaceDefaults", true);
}
kube::resource_type custom_resource_definitions() {
    return kube::resource_type("apiextensions.k8s.io", "v1", "customresourcedefinitions", "CustomResourceDefinition", false);
}
kube::resource_type mutating_webhook_configurations() {
    return kube::resource_type("admissionregistration.k8s.io", "v1", "mutatingwebhookconfigurations",
                               "MutatingWebhookConfiguration", false);
}
kube::resource_type services() { return kube::resource_type("", "v1", "services", "Service", true); }
kube::resource_type endpoint_slices() {
    return kube::resource_type("discovery.k8s.io", "v1", "endpointslices", "EndpointSlice", true);
}
kube::resource_type self_subject_access_reviews() {
    return kube::resource_type("authorization.k8s.io", "v1", "selfsubjectaccessreviews", "SelfSubjectAccessReview", false);
}
}  // namespace cli_resources

asio::awaitable<object_lookup> lookup_object(kube::client& c, kube::resource_type rt, std::string ns, std::string name) {
    auto r = co_await c.get(rt, ns, name);
    if (r) co_return object_lookup::of(std::move(r).value());
    const auto& e = r.error();
    co_return object_lookup::failed(e.kind == kube::error_kind::api_status ? e.code : 0, one_line(e.describe()));
}

asio::awaitable<policy_context> read_policy_context(kube::client& c, std::string ns) {
    policy_context ctx;
    kube::list_options lo;
    lo.limit = 500;
    auto pols = co_await c.list_all(kube::resources::attune_policies(), ns, lo);
    if (!pols) {
        ctx.policies_error = one_line(pols.error().describe());
        co_return ctx;
    }
    for (auto& p : pols.value().items) ctx.policies.push_back(std::move(p));
    auto cluster = co_await c.list_all(cli_resources::attune_defaults(), "", lo);
    if (cluster)
        for (auto& d : cluster.value().items) ctx.cluster_defaults.push_back(std::move(d));
    else
        ctx.defaults_error = "AttuneDefaults: " + one_line(cluster.error().describe());
    auto nsd = co_await c.list_all(cli_resources::attune_namespace_defaults(), ns, lo);
    if (nsd)
        for (auto& d : nsd.value().items) ctx.namespace_defaults.push_back(std::move(d));
    else
        ctx.defaults_error += (ctx.defaults_error.empty() ? "" : "; ") + std::string("AttuneNamespaceDefaults: ") +
                              one_line(nsd.error().describe());
    co_return ctx;
}

std::string not_found_text(const kube::resource_type& rt, const std::string& name) {
    return rt.label() + " \"" + name + "\" not found";
}

}  // namespace attune::cli
