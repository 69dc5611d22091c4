#include "policy_context.hpp"

#include <attune/kube/object_cache.hpp>

#include <boost/json/array.hpp>

namespace attune::cli {

namespace {

boost::json::array items(const std::vector<boost::json::value>& objs) {
    return boost::json::array(objs.begin(), objs.end());
}

}  // namespace

core::PolicyValidationOptions cli_validation() {
    core::PolicyValidationOptions o;
    o.allow_local_metrics_addresses = true;
    o.allow_secret_reads = true;
    o.allow_insecure_tls = true;
    o.allow_plaintext_credentials = true;
    return o;
}

std::map<std::string, policy::Resolved> resolve_policies(const PolicyContext& ctx) {
    // Caches as the manager's informers keep them, filled from the lists.
    kube::ObjectCache policies, cluster, namespaced;
    policy::index_policies(policies);
    policy::index_defaults(cluster);
    policy::index_defaults(namespaced);
    policies.replace(items(ctx.policies));
    cluster.replace(items(ctx.cluster_defaults));
    namespaced.replace(items(ctx.namespace_defaults));
    policy::CacheViews views;
    views.policies = &policies;
    views.cluster_defaults = &cluster;
    views.namespace_defaults = &namespaced;
    const bool listed = ctx.defaults_error.empty();
    views.synced = [listed](std::string_view what) {
        return listed || (what != "AttuneDefaults" && what != "AttuneNamespaceDefaults");
    };
    policy::PolicyResolver resolver(cli_validation());
    std::map<std::string, policy::Resolved> out;
    for (const auto& obj : ctx.policies) {
        const std::string key = kube::ObjectCache::key_of(obj);
        const auto view = policies.decoded<policy::PolicyView>(key);
        if (!view) continue;
        auto r = resolver.resolve(views, view->ns, view->name);
        if (r.failure == core::ResolutionFailure::DefaultsNotSynced)
            r.message = "Failed to fetch defaults: " + ctx.defaults_error;
        out[key] = std::move(r);
    }
    return out;
}

std::map<std::string, core::EffectivePolicy> effective_policies(const PolicyContext& ctx) {
    std::map<std::string, core::EffectivePolicy> out;
    for (auto& [key, r] : resolve_policies(ctx))
        if (r.effective) out.emplace(key, *r.effective);
    return out;
}

}  // namespace attune::cli
