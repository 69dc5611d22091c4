#include "cluster_reads.hpp"

#include <attune/core/util/json_path.hpp>

#include <boost/json.hpp>

#include <spdlog/spdlog.h>

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
kube::ResourceType attune_defaults() {
    return kube::ResourceType("attune.io", "v1alpha1", "attunedefaults", "AttuneDefaults", false);
}
kube::ResourceType attune_namespace_defaults() {
    return kube::ResourceType("attune.io", "v1alpha1", "attunenamespacedefaults", "AttuneNamespaceDefaults", true);
}
kube::ResourceType custom_resource_definitions() {
    return kube::ResourceType("apiextensions.k8s.io", "v1", "customresourcedefinitions", "CustomResourceDefinition",
                              false);
}
kube::ResourceType mutating_webhook_configurations() {
    return kube::ResourceType("admissionregistration.k8s.io", "v1", "mutatingwebhookconfigurations",
                              "MutatingWebhookConfiguration", false);
}
kube::ResourceType validating_webhook_configurations() {
    return kube::ResourceType("admissionregistration.k8s.io", "v1", "validatingwebhookconfigurations",
                              "ValidatingWebhookConfiguration", false);
}
kube::ResourceType services() { return kube::ResourceType("", "v1", "services", "Service", true); }
kube::ResourceType endpoint_slices() {
    return kube::ResourceType("discovery.k8s.io", "v1", "endpointslices", "EndpointSlice", true);
}
kube::ResourceType self_subject_access_reviews() {
    return kube::ResourceType("authorization.k8s.io", "v1", "selfsubjectaccessreviews", "SelfSubjectAccessReview",
                              false);
}
}  // namespace cli_resources

asio::awaitable<ObjectLookup> lookup_object(kube::Client& c, kube::ResourceType rt, std::string ns, std::string name) {
    auto r = co_await c.get(rt, ns, name);
    if (r) co_return ObjectLookup::of(std::move(r).value());
    const auto& e = r.error();
    co_return ObjectLookup::failed(e.kind == kube::ErrorKind::ApiStatus ? e.code : 0, one_line(e.describe()));
}

asio::awaitable<PolicyContext> read_policy_context(kube::Client& c, std::string ns) {
    PolicyContext ctx;
    kube::ListOptions lo;
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

asio::awaitable<core::Result<PolicyContext>> read_report_policies(kube::Client& c, std::string ns, std::string policy) {
    auto ctx = co_await read_policy_context(c, ns);
    if (!ctx.policies_error.empty()) {
        std::string msg = "cannot list AttunePolicies: " + ctx.policies_error;
        if (ctx.policies_error.find("404") != std::string::npos ||
            ctx.policies_error.find("NotFound") != std::string::npos)
            msg += " (is the AttunePolicy CRD installed? kubectl attune doctor)";
        co_return core::make_error("list_failed", std::move(msg));
    }
    if (!ctx.defaults_error.empty())
        spdlog::info("defaults objects not read; settings shown without them error=\"{}\"", ctx.defaults_error);
    if (!policy.empty()) {
        std::erase_if(ctx.policies, [&](const boost::json::value& p) {
            return core::string_at(p, {"metadata", "name"}) != policy;
        });
        if (ctx.policies.empty())
            co_return core::make_error("not_found", not_found_text(kube::resources::attune_policies(), policy));
    }
    co_return ctx;
}

std::string match_labels_selector(const boost::json::value& workload) {
    std::string out;
    if (const auto* ml = core::object_at(workload, {"spec", "selector", "matchLabels"}))
        for (const auto& kv : *ml)
            if (kv.value().is_string())
                out += (out.empty() ? "" : ",") + std::string(kv.key()) + "=" + std::string(kv.value().get_string());
    return out;
}

std::string one_line_error(const kube::ApiError& e) { return one_line(e.describe()); }

std::string not_found_text(const kube::ResourceType& rt, const std::string& name) {
    return rt.label() + " \"" + name + "\" not found";
}

}  // namespace attune::cli
