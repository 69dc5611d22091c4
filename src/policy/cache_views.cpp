#include <attune/policy/cache_views.hpp>

#include <spdlog/spdlog.h>

#include <algorithm>

namespace attune::policy {

const kube::object_cache* cache_views::for_kind(std::string_view kind) const noexcept {
    if (kind == "Deployment") return deployments;
    if (kind == "StatefulSet") return statefulsets;
    if (kind == "ReplicaSet") return replicasets;
    if (kind == "DaemonSet") return daemonsets;
    if (kind == "Job") return jobs;
    if (kind == "CronJob") return cronjobs;
    if (kind == "AttunePolicy") return policies;
    return nullptr;
}

void index_policies(kube::object_cache& policies) {
    policies.decode_as<policy_view>(kube::decoded_view<policy_view>([](const boost::json::value& obj) {
        auto p = decode_policy(obj);
        if (!p)
            spdlog::debug("AttunePolicy does not decode; ignored namespace={} name={} error=\"{}\"",
                          kube::meta_string(obj, "namespace"), kube::meta_string(obj, "name"), p.error().message);
        return p;
    }));
}

std::vector<policy_view> policies_in(const kube::object_cache& policies, std::string_view ns) {
    std::vector<policy_view> out;
    for (const auto& p : policies.decoded_in_namespace<policy_view>(ns)) out.push_back(*p);
    return out;
}

std::vector<policy_view> policies_in(const cache_views& caches, const std::string& ns) {
    if (!caches.policies) return {};
    return policies_in(*caches.policies, ns);
}

void index_defaults(kube::object_cache& defaults) {
    // Every named object gets a view, an undecodable one with its error: the
    // resolution must fail on it, not skip it.
    defaults.decode_as<defaults_view>([](const boost::json::value& obj) -> std::shared_ptr<const void> {
        auto v = std::make_shared<defaults_view>();
        v->name = std::string(kube::meta_string(obj, "name"));
        if (auto d = core::decode_attune_defaults(obj)) v->defaults = std::move(d).value();
        else v->error = d.error().message;
        return v;
    });
}

std::vector<std::shared_ptr<const defaults_view>> defaults_in(const kube::object_cache* defaults, std::string_view ns) {
    if (!defaults) return {};
    auto out = defaults->decoded_in_namespace<defaults_view>(ns);
    std::sort(out.begin(), out.end(), [](const auto& a, const auto& b) { return a->name < b->name; });
    return out;
}

}  // namespace attune::policy
