#include <attune/controller/workload_snapshot.hpp>

#include <attune/controller/listed_pod.hpp>

#include <attune/core/policy/annotations.hpp>
#include <attune/core/util/json_path.hpp>
#include <attune/core/model/pod_model.hpp>
#include <attune/core/recommend/workload_baseline.hpp>

#include <spdlog/spdlog.h>

#include <algorithm>

namespace attune::controller {

namespace {

// An idle workload is not queried: its last recommendation stays for the
// scale-up. A Manual source is declared, not queried, so it is computed for
// an idle workload too, and its first pod after zero is born sized.
bool recommends_while_idle(const core::EffectivePolicy& e) {
    return std::holds_alternative<core::ManualSource>(e.metrics.provider);
}
using ObjectPtr = kube::ObjectCache::ObjectPtr;

std::string annotation(const ObjectPtr& obj, std::string_view key) {
    if (!obj) return {};
    if (const auto* ann = core::object_at(*obj, {"metadata", "annotations"}))
        return std::string(core::string_at(*ann, {key}));
    return {};
}

std::vector<OtherPolicy> resolve_others(const policy::CacheViews& caches, const std::string& ns,
                                        const std::vector<std::string>& names) {
    std::vector<OtherPolicy> out;
    if (!caches.policies) return out;
    for (const auto& n : names) {
        auto obj = caches.policies->get(ns + "/" + n);
        if (!obj) continue;
        out.push_back({policy_reference(obj), annotation(obj, core::kSuppressWarningsAnnotation)});
    }
    return out;
}
}  // namespace

ResolvedPolicy EffectivePolicies::resolve(const policy::CacheViews& caches, const ObjectPtr& policy) {
    ResolvedPolicy out;
    out.object = policy;
    if (!policy) {
        out.config_error = "the policy is not in the cache";
        return out;
    }
    auto r = resolver_.resolve(caches, std::string(kube::meta_string(*policy, "namespace")),
                               std::string(kube::meta_string(*policy, "name")));
    if (!r.effective) {
        out.config_error = std::move(r.message);
        return out;
    }
    const std::string key =
        std::string(kube::meta_string(*policy, "namespace")) + "/" + std::string(kube::meta_string(*policy, "name"));
    if (std::holds_alternative<core::NoMetricsSource>(r.effective->metrics.provider) && discovered_) {
        auto& memo = with_discovered_[key];
        if (memo.merged != r.effective || memo.discovery_generation != discovery_generation_ || !memo.effective) {
            auto copy = std::make_shared<core::EffectivePolicy>(*r.effective);
            core::PrometheusSource src;
            src.origin = "auto-discovered " + discovered_->found_by;
            src.address = discovered_->address;
            copy->metrics.provider = src;
            if (!copy->metrics.prometheus) copy->metrics.prometheus = src;
            memo = {r.effective, discovery_generation_, std::move(copy)};
        }
        out.effective = memo.effective;
        out.discovered_source =
            "Prometheus auto-discovered at " + discovered_->address + " (" + discovered_->found_by + ")";
        return out;
    }
    with_discovered_.erase(key);
    out.source_error = unusable_source(*r.effective);
    out.effective = std::move(r.effective);
    return out;
}

bool EffectivePolicies::set_discovered_prometheus(std::optional<core::DiscoveredPrometheus> found) {
    if (found == discovered_) return false;
    discovered_ = std::move(found);
    ++discovery_generation_;
    return true;
}

std::string unusable_source(const core::EffectivePolicy& policy) {
    const auto& provider = policy.metrics.provider;
    if (std::holds_alternative<core::NoMetricsSource>(provider))
        return "no metrics source: set spec.metricsSource.prometheus.address (or datadog, cloudwatch, vpa, or manual) in the policy, or "
               "prometheus.address in an AttuneNamespaceDefaults or the AttuneDefaults; " +
               core::no_prometheus_discovered_text();
    return {};
}

void fill_context(PolicyContext& context, const ResolvedPolicy& resolved) {
    if (!resolved.effective) {
        context.config_error = resolved.config_error;
        return;
    }
    const auto& e = *resolved.effective;
    context.paused = e.paused;
    context.source_error = resolved.source_error;
    context.discovered_source = resolved.discovered_source;
    context.observe = e.update_strategy.type == core::UpdateMode::Observe;
    context.max_status_recommendations = e.update_strategy.max_status_recommendations;
    context.include_explanations = e.update_strategy.include_explanations_in_status;
    context.minimum_data_points = e.metrics.minimum_data_points;
    context.query_step_seconds = std::chrono::duration<double>(e.metrics.query_step).count();
    context.resizing_mode = core::mode_resizes(e.update_strategy.type);
    context.cooldown = std::chrono::duration_cast<std::chrono::seconds>(e.update_strategy.cooldown);
}

kube::ObjectReference policy_reference(const ObjectPtr& policy) {
    if (!policy) return {};
    return {"attune.io/v1alpha1", std::string(kPolicyKind), std::string(kube::meta_string(*policy, "namespace")),
            std::string(kube::meta_string(*policy, "name")), std::string(kube::meta_string(*policy, "uid"))};
}

long long WorkloadSnapshot::policy_generation() const {
    return policy.object ? core::int_at(*policy.object, {"metadata", "generation"}).value_or(0) : 0;
}

std::string WorkloadSnapshot::suppress_warnings() const {
    return annotation(policy.object, core::kSuppressWarningsAnnotation);
}

namespace {

// The uids a workload's pods name as owner: its own, or (Deployment,
// CronJob) those of the ReplicaSets / Jobs it owns.
std::vector<std::string> pod_owner_uids(const policy::CacheViews& caches, std::string_view kind, std::string_view uid) {
    std::vector<std::string> out;
    if (!caches.pods || uid.empty()) return out;
    if (kind != "Deployment" && kind != "CronJob") {
        out.emplace_back(uid);
        return out;
    }
    const kube::ObjectCache* middle = kind == "Deployment" ? caches.replicasets : caches.jobs;
    if (!middle) return out;
    for (const auto& owned : middle->owned_by(uid)) out.emplace_back(kube::meta_string(*owned, "uid"));
    return out;
}

}  // namespace

std::vector<ObjectPtr> pods_of(const policy::CacheViews& caches, std::string_view kind, std::string_view uid) {
    std::vector<ObjectPtr> out;
    for (const auto& owner : pod_owner_uids(caches, kind, uid)) {
        auto pods = caches.pods->owned_by(owner);
        out.insert(out.end(), pods.begin(), pods.end());
    }
    return out;
}

std::vector<kube::ObjectCache::KeyedView<ListedPod>> listed_pods_of(const policy::CacheViews& caches,
                                                                    std::string_view kind, std::string_view uid) {
    std::vector<kube::ObjectCache::KeyedView<ListedPod>> out;
    for (const auto& owner : pod_owner_uids(caches, kind, uid)) {
        auto pods = caches.pods->decoded_owned_by<ListedPod>(owner);
        out.insert(out.end(), pods.begin(), pods.end());
    }
    return out;
}

WorkloadSnapshot take_snapshot(const policy::CacheViews& caches, EffectivePolicies& policies, const ObjectKey& key) {
    WorkloadSnapshot s;
    s.key = key;
    s.report = classify_workload(caches, key);
    s.outranked = resolve_others(caches, key.ns, s.report.conflicting_policies);
    s.opted_out = resolve_others(caches, key.ns, s.report.opted_out_of);
    if (s.report.selected_by.empty() || !caches.policies) return s;
    s.policy = policies.resolve(caches, caches.policies->get(key.ns + "/" + s.report.selected_by.front()));
    if (!s.policy.effective || (s.report.idle != core::IdleKind::None && !recommends_while_idle(*s.policy.effective)))
        return s;
    const auto& effective = *s.policy.effective;

    const auto* cache = caches.for_kind(key.kind);
    const auto workload = cache ? cache->get(key.cache_key()) : nullptr;
    if (!workload) return s;
    s.hpa_conflict = core::check_hpa_conflict(hpas_targeting(caches, key), key.name, key.kind);
    // Only a workload whose source is queried needs its pods and baseline:
    // without a baseline, next_step answers NothingToSize exactly when the
    // baseline would decide; Paused, Observe and an unusable source do not
    // read a pod (docs/manager.md, "What a pass reads").
    if (next_step(s) != WorkloadStep::NothingToSize) return s;
    // Every pod's name (its key is "ns/name"), and the baseline from the
    // first candidate by name that decodes: one pod decoded, not all of them.
    auto listed = listed_pods_of(caches, key.kind, s.report.uid);
    std::sort(listed.begin(), listed.end(), [](const auto& a, const auto& b) { return a.key < b.key; });
    std::vector<core::Pod> pods;  // the baseline pod, when one runs
    for (const auto& p : listed) {
        const auto name = p.key.substr(p.key.find('/') + 1);
        s.pod_names.emplace_back(name);
        if (!pods.empty() || !p.view->can_hold_baseline) continue;
        const auto obj = caches.pods->get(p.key);
        if (!obj) continue;
        auto pod = core::decode_pod(*obj);
        if (pod) pods.push_back(std::move(pod).value());
        else
            spdlog::debug("skipping undecodable pod namespace={} name={} error=\"{}\"", key.ns, name,
                          pod.error().message);
    }
    auto tmpl = core::decode_pod_template(key.kind, *workload);
    s.baseline = core::workload_baseline(pods, tmpl ? &tmpl.value() : nullptr, effective.excluded_containers);
    if (!tmpl && !core::baseline_pod(pods)) s.baseline_error = tmpl.error().message;

    if (const auto* vpa = std::get_if<core::VpaSource>(&effective.metrics.provider)) {
        const auto vns = vpa->namespace_.empty() ? key.ns : vpa->namespace_;
        if (!caches.vpas) {
            s.vpa_problem = "the VerticalPodAutoscaler API (autoscaling.k8s.io/v1) is not served by this cluster; "
                            "install the VPA CRD";
        } else if (!caches.has_synced("VerticalPodAutoscaler")) {
            s.vpa_not_synced = true;
        } else if (!(s.vpa = caches.vpas->get(vns + "/" + vpa->name))) {
            s.vpa_problem = "VerticalPodAutoscaler " + vns + "/" + vpa->name + " not found";
        }
    }
    return s;
}

WorkloadStep next_step(const WorkloadSnapshot& s) {
    if (s.report.selected_by.empty()) return WorkloadStep::Unmanaged;
    if (s.report.idle != core::IdleKind::None && !(s.policy.effective && recommends_while_idle(*s.policy.effective)))
        return WorkloadStep::Idle;
    if (!s.policy.effective) return WorkloadStep::ConfigFailed;
    const auto& e = *s.policy.effective;
    if (e.paused) return WorkloadStep::Paused;
    if (e.update_strategy.type == core::UpdateMode::Observe) return WorkloadStep::Observe;
    if (!s.policy.source_error.empty()) return WorkloadStep::SourceFailed;
    if (s.baseline.containers.empty()) return WorkloadStep::NothingToSize;
    return WorkloadStep::QuerySource;
}

}  // namespace attune::controller
