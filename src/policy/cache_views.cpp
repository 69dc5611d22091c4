#include <attune/policy/cache_views.hpp>

#include <spdlog/spdlog.h>

#include <algorithm>

namespace attune::policy {

const kube::ObjectCache* CacheViews::for_kind(std::string_view kind) const noexcept {
    if (kind == "Deployment") return deployments;
    if (kind == "StatefulSet") return statefulsets;
    if (kind == "ReplicaSet") return replicasets;
    if (kind == "DaemonSet") return daemonsets;
    if (kind == "Job") return jobs;
    if (kind == "CronJob") return cronjobs;
    if (kind == "AttunePolicy") return policies;
    return nullptr;
}

void index_policies(kube::ObjectCache& policies) {
    policies.decode_as<PolicyView>(kube::decoded_view<PolicyView>([](const boost::json::value& obj) {
        auto p = decode_policy(obj);
        if (!p)
            spdlog::debug("AttunePolicy does not decode; ignored namespace={} name={} error=\"{}\"",
                          kube::meta_string(obj, "namespace"), kube::meta_string(obj, "name"), p.error().message);
        return p;
    }));
}

std::vector<PolicyView> policies_in(const kube::ObjectCache& policies, std::string_view ns) {
    std::vector<PolicyView> out;
    for (const auto& p : policies.decoded_in_namespace<PolicyView>(ns)) out.push_back(*p);
    return out;
}

std::vector<PolicyView> policies_in(const CacheViews& caches, const std::string& ns) {
    if (!caches.policies) return {};
    return policies_in(*caches.policies, ns);
}

void index_defaults(kube::ObjectCache& defaults) {
    // Every named object gets a view, an undecodable one with its error: the
    // resolution must fail on it, not skip it.
    defaults.decode_as<DefaultsView>([](const boost::json::value& obj) -> std::shared_ptr<const void> {
        auto v = std::make_shared<DefaultsView>();
        v->name = std::string(kube::meta_string(obj, "name"));
        if (auto d = core::decode_attune_defaults(obj)) v->defaults = std::move(d).value();
        else v->error = d.error().message;
        return v;
    });
}

std::vector<std::shared_ptr<const DefaultsView>> defaults_in(const kube::ObjectCache* defaults, std::string_view ns) {
    if (!defaults) return {};
    auto out = defaults->decoded_in_namespace<DefaultsView>(ns);
    std::sort(out.begin(), out.end(), [](const auto& a, const auto& b) { return a->name < b->name; });
    return out;
}

std::vector<core::DefaultsInput> defaults_inputs(const std::vector<std::shared_ptr<const DefaultsView>>& views) {
    std::vector<core::DefaultsInput> out;
    out.reserve(views.size());
    for (const auto& v : views) out.push_back({v->name, v->defaults ? &*v->defaults : nullptr, v->error});
    return out;
}

}  // namespace attune::policy
