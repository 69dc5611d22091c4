#include <attune/controller/reconcile.hpp>

#include <attune/core/model/idle.hpp>
#include <attune/core/util/json_path.hpp>

#include <spdlog/spdlog.h>

#include <algorithm>

namespace attune::controller {

std::string hpa_scale_target_key(std::string_view ns, std::string_view kind, std::string_view name) {
    std::string k;
    k.reserve(ns.size() + kind.size() + name.size() + 2);
    k.append(ns).append("/").append(kind).append("/").append(name);
    return k;
}

void index_hpas(kube::ObjectCache& hpas) {
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

std::vector<core::HpaView> hpas_targeting(const policy::CacheViews& caches, const ObjectKey& key) {
    std::vector<core::HpaView> out;
    if (!caches.hpas) return out;
    for (const auto& h : caches.hpas->decoded_by_index<core::HpaView>(hpa_scale_target_key(key.ns, key.kind, key.name)))
        out.push_back(*h);
    return out;
}

WorkloadReport classify_workload(const policy::CacheViews& caches, const ObjectKey& key) {
    WorkloadReport r;
    r.ns = key.ns;
    r.kind = key.kind;
    r.name = key.name;
    const auto* cache = caches.for_kind(key.kind);
    auto obj = cache ? cache->get(key.cache_key()) : nullptr;
    if (!obj) return r;  // deleted: selected by nobody
    r.uid = std::string(kube::meta_string(*obj, "uid"));
    r.api_version = std::string(core::string_at(*obj, {"apiVersion"}));
    if (r.api_version.empty()) r.api_version = key.kind == "Job" || key.kind == "CronJob" ? "batch/v1" : "apps/v1";

    const auto ref = policy::workload_ref_from(key.kind, *obj);
    auto selection = policy::select_policy(policy::policies_in(caches, key.ns), ref);
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

PolicyPassPlan plan_policy_pass(const policy::CacheViews& caches, const ObjectKey& key) {
    PolicyPassPlan plan;
    const auto view = caches.policies ? caches.policies->decoded<policy::PolicyView>(key.cache_key()) : nullptr;
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
    std::vector<policy::WorkloadRef> refs;
    if (plan.policy.target.name) {
        if (auto w = cache->get(key.ns + "/" + *plan.policy.target.name)) refs.push_back(policy::workload_ref_from(kind, *w));
    } else {
        for (const auto& w : cache->in_namespace(key.ns)) refs.push_back(policy::workload_ref_from(kind, *w));
    }
    plan.targets = policy::select_targets(plan.policy, refs);
    return plan;
}

}  // namespace attune::controller
