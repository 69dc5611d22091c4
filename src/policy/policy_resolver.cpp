#include <attune/policy/policy_resolver.hpp>

namespace attune::policy {

Resolved PolicyResolver::resolve(const CacheViews& caches, const std::string& ns, const std::string& name) {
    Resolved out;
    const std::string key = ns + "/" + name;
    if (caches.policies) out.view = caches.policies->decoded<PolicyView>(key);
    if (!out.view) {
        out.failure = core::ResolutionFailure::InvalidPolicy;
        out.message = "the policy is not in the cache";
        return out;
    }
    core::PolicyResolutionInput in;
    in.policy = out.view->spec.get();
    in.policy_error = out.view->error;
    in.validation = validation_;
    in.defaults_synced = caches.defaults_synced();
    auto take = [&out](core::PolicyResolution r) {
        out.failure = r.failure;
        out.message = std::move(r.message);
        if (r.effective) out.effective = std::make_shared<const core::EffectivePolicy>(std::move(*r.effective));
    };
    if (!in.defaults_synced) {
        take(core::resolve_effective_policy(in));  // fails closed; not remembered
        return out;
    }
    auto cluster = defaults_in(caches.cluster_defaults, "");
    auto namespaced = defaults_in(caches.namespace_defaults, ns);
    if (auto it = memo_.find(key); it != memo_.end() && it->second.view == out.view &&
                                   it->second.cluster == cluster && it->second.namespaced == namespaced)
        return it->second.result;
    const auto c = defaults_inputs(cluster);
    const auto n = defaults_inputs(namespaced);
    in.cluster_defaults = c;
    in.namespace_defaults = n;
    take(core::resolve_effective_policy(in));
    memo_[key] = Entry{out.view, std::move(cluster), std::move(namespaced), out};
    if (memo_.size() > 2 * caches.policies->size() + 64) prune(caches);
    return out;
}

void PolicyResolver::forget(const std::string& ns, const std::string& name) { memo_.erase(ns + "/" + name); }

void PolicyResolver::prune(const CacheViews& caches) {
    for (auto it = memo_.begin(); it != memo_.end();) {
        if (!caches.policies->decoded<PolicyView>(it->first)) it = memo_.erase(it);
        else ++it;
    }
}

ManagingPolicy resolve_managing_policy(const CacheViews& caches, PolicyResolver& resolver,
                                       const WorkloadRef& workload) {
    ManagingPolicy out;
    out.selection = select_policy(policies_in(caches, workload.ns), workload);
    if (!out.selection.winner.empty()) out.policy = resolver.resolve(caches, workload.ns, out.selection.winner);
    return out;
}

}  // namespace attune::policy
