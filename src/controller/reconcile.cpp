#include <attune/controller/reconcile.hpp>

#include <attune/core/idle.hpp>
#include <attune/core/json_path.hpp>

#include <spdlog/spdlog.h>

#include <algorithm>

namespace attune::controller {

const kube::object_cache* cache_views::for_kind(std::string_view kind) const noexcept {
    if (kind == "Deployment") return deployments;
    if (kind == "StatefulSet") return statefulsets;
    if (kind == "ReplicaSet") return replicasets;
    if (kind == "DaemonSet") return daemonsets;
    if (kind == "Job") return jobs;
    if (kind == "CronJob") return cronjobs;
    if (kind == kPolicyKind) return policies;
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
    // merge must fail on it (as the controller's does), not skip it.
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

std::string hpa_scale_target_key(std::string_view ns, std::string_view kind, std::string_view name) {
    std::string k;
    k.reserve(ns.size() + kind.size() + name.size() + 2);
    k.append(ns).append("/").append(kind).append("/").append(name);
    return k;
}

void index_hpas(kube::object_cache& hpas) {
    hpas.decode_as<core::HpaView>(kube::decoded_view<core::HpaView>([](const boost::json::value& obj) {
        auto h = core::decode_hpa(obj);
        if (!h)
            spdlog::debug("HPA does not decode; ignored namespace={} name={} error=\"{}\"", kube::meta_string(obj, "namespace"),
                          kube::meta_string(obj, "name"), h.error().message);
        return h;
    }));
    hpas.index_by_view<core::HpaView>([](const core::HpaView& h) {
        return hpa_scale_target_key(h.namespace_, h.target_kind, h.target_name);
    });
}

std::vector<core::HpaView> hpas_targeting(const cache_views& caches, const object_key& key) {
    std::vector<core::HpaView> out;
    if (!caches.hpas) return out;
    for (const auto& h : caches.hpas->decoded_by_index<core::HpaView>(hpa_scale_target_key(key.ns, key.kind, key.name)))
        out.push_back(*h);
    return out;
}

workload_report classify_workload(const cache_views& caches, const object_key& key) {
    workload_report r;
    r.ns = key.ns;
    r.kind = key.kind;
    r.name = key.name;
    const auto* cache = caches.for_kind(key.kind);
    auto obj = cache ? cache->get(key.cache_key()) : nullptr;
    if (!obj) return r;  // deleted: selected by nobody
    r.uid = std::string(kube::meta_string(*obj, "uid"));
    r.api_version = std::string(core::string_at(*obj, {"apiVersion"}));
    if (r.api_version.empty()) r.api_version = key.kind == "Job" || key.kind == "CronJob" ? "batch/v1" : "apps/v1";

    const auto ref = workload_ref_from(key.kind, *obj);
    auto selection = select_policy(policies_in(caches, key.ns), ref);
    r.conflicting_policies = std::move(selection.losers);
    r.opted_out_of = std::move(selection.opted_out_of);
    if (selection.winner.empty()) return r;  // nobody manages it: skip the classification
    r.selected_by = {std::move(selection.winner)};

    auto view = core::decode_workload(key.kind, *obj);
    if (!view) {
        spdlog::warn("workload does not decode; treated as active namespace={} kind={} name={} uid={} error=\"{}\"",
                     key.ns, key.kind, key.name, r.uid, view.error().message);
        return r;
    }
    const auto hpas = hpas_targeting(caches, key);
    const auto* hpa = core::find_matching_hpa(hpas, key.kind, key.name);
    r.idle = core::classify_workload_idle(view.value(), hpa);
    if (hpa) r.hpa_name = hpa->name;
    return r;
}

policy_pass_plan plan_policy_pass(const cache_views& caches, const object_key& key) {
    policy_pass_plan plan;
    const auto view = caches.policies ? caches.policies->decoded<policy_view>(key.cache_key()) : nullptr;
    auto obj = view ? caches.policies->get(key.cache_key()) : nullptr;
    if (!obj) {
        plan.deleted = true;
        plan.policy.ns = key.ns;
        plan.policy.name = key.name;
        return plan;
    }
    plan.policy = *view;
    plan.written = policy_status_from(*obj);
    plan.context.uid = plan.policy.uid;
    plan.context.generation = plan.policy.generation;
    if (!plan.policy.error.empty()) return plan;  // targets nothing
    const std::string kind(core::to_string(plan.policy.target.kind));
    const auto* cache = caches.for_kind(kind);
    if (!cache || !caches.has_synced(kind)) {
        plan.context.discovery_error = "the " + kind + " cache has not finished its first list";
        return plan;
    }
    std::vector<workload_ref> refs;
    if (plan.policy.target.name) {
        if (auto w = cache->get(key.ns + "/" + *plan.policy.target.name)) refs.push_back(workload_ref_from(kind, *w));
    } else {
        for (const auto& w : cache->in_namespace(key.ns)) refs.push_back(workload_ref_from(kind, *w));
    }
    plan.targets = select_targets(plan.policy, refs);
    return plan;
}

}  // namespace attune::controller
