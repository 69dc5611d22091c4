#include <attune/controller/reconcile.hpp>

#include <attune/core/idle.hpp>
#include <attune/core/json_path.hpp>

#include <spdlog/spdlog.h>

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

std::vector<policy_view> policies_in(const cache_views& caches, const std::string& ns) {
    std::vector<policy_view> out;
    if (!caches.policies) return out;
    for (const auto& obj : caches.policies->in_namespace(ns)) {
        auto p = decode_policy(*obj);
        if (p) out.push_back(std::move(p).value());
    }
    return out;
}

std::vector<core::HpaView> hpas_in(const cache_views& caches, const std::string& ns) {
    std::vector<core::HpaView> out;
    if (!caches.hpas) return out;
    for (const auto& obj : caches.hpas->in_namespace(ns)) {
        auto h = core::decode_hpa(*obj);
        if (h) {
            out.push_back(std::move(h).value());
        } else {
            spdlog::debug("skipping undecodable HPA namespace={} name={} error=\"{}\"", ns,
                          kube::meta_string(*obj, "name"), h.error().message);
        }
    }
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
    const auto hpas = hpas_in(caches, key.ns);
    const auto* hpa = core::find_matching_hpa(hpas, key.kind, key.name);
    r.idle = core::classify_workload_idle(view.value(), hpa);
    if (hpa) r.hpa_name = hpa->name;
    return r;
}

policy_pass_plan plan_policy_pass(const cache_views& caches, const object_key& key) {
    policy_pass_plan plan;
    auto obj = caches.policies ? caches.policies->get(key.cache_key()) : nullptr;
    auto decoded = obj ? decode_policy(*obj) : core::result<policy_view>(core::make_error("not_found", ""));
    if (!decoded) {
        plan.deleted = true;
        plan.policy.ns = key.ns;
        plan.policy.name = key.name;
        return plan;
    }
    plan.policy = std::move(decoded).value();
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
