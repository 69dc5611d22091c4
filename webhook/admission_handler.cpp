#include <attune/webhook/admission_handler.hpp>

#include <attune/controller/reconcile.hpp>  // index_policies, policies_in
#include <attune/core/create_sizing.hpp>
#include <attune/core/deferred_persistence.hpp>
#include <attune/core/json_path.hpp>
#include <attune/core/lifecycle_status.hpp>
#include <attune/core/pod_owner.hpp>
#include <attune/core/policy.hpp>
#include <attune/core/policy_validation.hpp>
#include <attune/core/recommendation_status.hpp>
#include <attune/core/timestamp.hpp>

#include <boost/json.hpp>

#include <spdlog/spdlog.h>

#include <chrono>
#include <unordered_map>

namespace attune::webhook {
namespace json = boost::json;
using object_ptr = kube::object_cache::object_ptr;

namespace {

constexpr const char* kPodOperation = "pod_create";
constexpr const char* kWorkloadOperation = "workload_update";

http::server_reply text(unsigned status, std::string body) {
    return http::server_reply(status, "text/plain; charset=utf-8", std::move(body) + "\n");
}

std::map<std::string, std::string, std::less<>> string_map_at(const json::value& v, core::json_path path) {
    std::map<std::string, std::string, std::less<>> out;
    if (const auto* o = core::object_at(v, path))
        for (const auto& [k, val] : *o)
            if (val.is_string()) out.emplace(std::string(k), std::string(val.get_string()));
    return out;
}

// The controller reference (kind, name) of a cached object.
std::optional<core::OwnerReference> controller_of(const json::value& obj) {
    if (const auto* refs = core::array_at(obj, {"metadata", "ownerReferences"}))
        for (const auto& r : *refs)
            if (core::bool_at(r, {"controller"}) == true) {
                core::OwnerReference ref;
                ref.kind = std::string(core::string_at(r, {"kind"}));
                ref.name = std::string(core::string_at(r, {"name"}));
                ref.controller = true;
                return ref;
            }
    return std::nullopt;
}

std::string default_now() {
    return core::format_timestamp(std::chrono::floor<std::chrono::seconds>(std::chrono::system_clock::now()));
}

}  // namespace

struct admission_handler::impl {
    admission_caches caches;
    admission_options opts;
    const core::Capabilities* caps;
    webhook_metrics& metrics;

    // The winning policies' merged settings and status, by cache key, valid
    // while the cache holds the same decoded policy view (index_policies makes
    // a new one per change; the object itself is parsed afresh on every read
    // of a compact cache) and the same decoded defaults views of both tiers
    // (index_defaults, likewise). The entry holds those views, so an address
    // cannot be reused by a newer view while it is compared.
    using defaults_views = std::vector<std::shared_ptr<const controller::defaults_view>>;
    struct policy_entry {
        std::shared_ptr<const controller::policy_view> view;
        defaults_views cluster_defaults, namespace_defaults;
        object_ptr source;  // read once per change
        std::optional<core::EffectivePolicy> effective;
        std::optional<std::vector<core::StatusRecommendation>> recommendations;
        std::optional<std::vector<core::LifecycleStatusEntry>> lifecycle;
        std::string status_error;  // why recommendations/lifecycle did not decode
        // Why effective is empty: the skip reason (invalid_policy: the policy
        // or a defaults object does not decode; policy_validation_failed: the
        // merge breaks a rule of validate_effective_policy).
        std::string invalid_reason;
    };
    std::unordered_map<std::string, policy_entry> memo;

    // attune-api.md §10: the default buckets.
    prometheus::Histogram& pod_duration;
    prometheus::Histogram& workload_duration;

    impl(admission_caches c, admission_options o, const core::Capabilities* cp, webhook_metrics& m)
        : caches(std::move(c)), opts(std::move(o)), caps(cp), metrics(m),
          pod_duration(m.duration.Add({{"operation", kPodOperation}}, prometheus::Histogram::BucketBoundaries{
                                                                          0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1,
                                                                          2.5, 5, 10})),
          workload_duration(m.duration.Add({{"operation", kWorkloadOperation}}, prometheus::Histogram::BucketBoundaries{
                                                                                    0.005, 0.01, 0.025, 0.05, 0.1, 0.25,
                                                                                    0.5, 1, 2.5, 5, 10})) {
        if (!opts.now) opts.now = default_now;
    }

    bool synced() const { return !caches.synced || caches.synced(); }

    const kube::object_cache* cache_for(std::string_view kind) const {
        if (kind == "Deployment") return caches.deployments;
        if (kind == "StatefulSet") return caches.statefulsets;
        if (kind == "DaemonSet") return caches.daemonsets;
        if (kind == "ReplicaSet") return caches.replicasets;
        if (kind == "Job") return caches.jobs;
        if (kind == "CronJob") return caches.cronjobs;
        return nullptr;
    }

    object_ptr cached(std::string_view kind, std::string_view ns, std::string_view name) const {
        const auto* c = cache_for(kind);
        if (!c) return nullptr;
        return c->get(std::string(ns) + "/" + std::string(name));
    }

    // The merge of the policy with both defaults tiers, as the controller's
    // (built-in < AttuneDefaults < AttuneNamespaceDefaults < policy, of each
    // tier the object first by name). Any defaults object of a tier that does
    // not decode fails the merge: the controller reports that policy
    // InvalidConfig and does not act on it.
    policy_entry& entry_for(const std::string& key, std::shared_ptr<const controller::policy_view> view,
                            defaults_views cluster, defaults_views namespaced) {
        auto& e = memo[key];
        if (e.view == view && e.cluster_defaults == cluster && e.namespace_defaults == namespaced) return e;
        e = policy_entry{};
        e.view = std::move(view);
        e.cluster_defaults = std::move(cluster);
        e.namespace_defaults = std::move(namespaced);
        e.source = caches.policies->get(key);
        if (e.source && e.view->error.empty()) {
            auto tier = [&](const defaults_views& views, const char* kind) -> std::optional<std::vector<core::AttuneDefaults>> {
                std::vector<core::AttuneDefaults> out;
                for (const auto& d : views) {
                    if (d->defaults) {
                        out.push_back(*d->defaults);
                        continue;
                    }
                    spdlog::warn("policy not applied by the webhook: its defaults do not decode namespace={} name={} "
                                 "defaults={} {} error=\"{}\"",
                                 e.view->ns, e.view->name, kind, d->name, d->error);
                    return std::nullopt;
                }
                return out;
            };
            auto decoded = core::decode_attune_policy(*e.source);
            auto c = tier(e.cluster_defaults, "AttuneDefaults");
            auto n = c ? tier(e.namespace_defaults, "AttuneNamespaceDefaults") : std::nullopt;
            if (!decoded)
                spdlog::warn("policy not applied by the webhook: it does not decode namespace={} name={} error=\"{}\"",
                             e.view->ns, e.view->name, decoded.error().message);
            if (decoded && c && n) {
                auto merged = core::merge_effective_policy(decoded.value(), *c, *n);
                // The controller's own check (workload_snapshot.cpp), with the
                // manager's same options: a policy it reports InvalidConfig
                // (e.g. a loopback or metadata Prometheus address) never sizes
                // a pod here either.
                if (auto err = core::validate_effective_policy(merged, opts.validation)) {
                    e.invalid_reason = "policy_validation_failed";
                    spdlog::warn("policy not applied by the webhook: it fails validation (the controller reports "
                                 "InvalidConfig) namespace={} name={} error=\"{}\"",
                                 e.view->ns, e.view->name, err->message);
                } else {
                    e.effective = std::move(merged);
                }
            }
        }
        if (!e.effective && e.invalid_reason.empty()) e.invalid_reason = "invalid_policy";
        if (memo.size() > 2 * caches.policies->size() + 64) prune();
        return memo[key];
    }

    void prune() {
        for (auto it = memo.begin(); it != memo.end();) {
            if (!caches.policies->decoded<controller::policy_view>(it->first)) it = memo.erase(it);
            else ++it;
        }
    }

    // The policy that manages `wl` (the controller's target selection over
    // the cache's decoded views), or a skip reason.
    std::pair<policy_entry*, std::string> managing_policy(const controller::workload_ref& wl) {
        if (!caches.policies) return {nullptr, "no_policy"};
        const auto sel = controller::select_policy(controller::policies_in(*caches.policies, wl.ns), wl);
        if (sel.winner.empty()) return {nullptr, sel.opted_out_of.empty() ? "no_policy" : "workload_opted_out"};
        const std::string key = wl.ns + "/" + sel.winner;
        auto view = caches.policies->decoded<controller::policy_view>(key);
        if (!view) return {nullptr, "no_policy"};
        auto& e = entry_for(key, std::move(view), controller::defaults_in(caches.cluster_defaults, ""),
                            controller::defaults_in(caches.namespace_defaults, wl.ns));
        if (!e.effective) return {nullptr, e.invalid_reason};
        return {&e, ""};
    }

    void decode_status(policy_entry& e) {
        if (e.recommendations) return;
        e.recommendations.emplace();
        e.lifecycle.emplace();
        if (auto r = core::decode_status_recommendations(*e.source); r) *e.recommendations = std::move(r).value();
        else e.status_error = r.error().message;
        if (const auto* l = core::json_at(*e.source, {"status", "lifecycle"})) {
            if (auto r = core::decode_lifecycle_status(*l); r) *e.lifecycle = std::move(r).value();
            else e.status_error += (e.status_error.empty() ? "" : "; ") + r.error().message;
        }
        if (!e.status_error.empty())
            spdlog::warn("policy status unreadable for the webhook namespace={} name={} error=\"{}\"", e.view->ns,
                         e.view->name, e.status_error);
    }

    std::optional<core::NamespaceInfo> namespace_info(std::string_view ns) const {
        if (!synced()) return std::nullopt;
        auto obj = caches.namespaces->get(ns);
        if (!obj) return std::nullopt;
        core::NamespaceInfo info;
        info.labels = string_map_at(*obj, {"metadata", "labels"});
        info.annotations = string_map_at(*obj, {"metadata", "annotations"});
        return info;
    }

    core::AdmissionResponse skip(core::AdmissionResponse resp, const char* operation, const std::string& reason) {
        metrics.skips.Add({{"operation", operation}, {"reason", reason}}).Increment();
        metrics.admissions.Add({{"operation", operation}, {"result", "skipped"}}).Increment();
        return resp;
    }

    core::AdmissionResponse pod_create(const core::AdmissionRequest& req) {
        core::AdmissionResponse resp;
        resp.uid = req.uid;
        if (req.operation != "CREATE" || req.kind.kind != "Pod" || !req.object.is_object())
            return skip(std::move(resp), kPodOperation, "not_a_pod_create");
        const std::string ns = !req.namespace_.empty() ? req.namespace_
                                                       : std::string(core::string_at(req.object, {"metadata", "namespace"}));
        if (!opts.watch_scope.contains(ns)) return skip(std::move(resp), kPodOperation, "namespace_not_watched");
        if (auto gate = core::create_sizing_gate(ns, namespace_info(ns), opts.operator_namespace,
                                                 string_map_at(req.object, {"metadata", "annotations"})))
            return skip(std::move(resp), kPodOperation, *gate);
        auto pod = core::decode_pod(req.object);
        if (!pod) {
            resp.warnings.push_back("attune: pod not sized: " + pod.error().message);
            return skip(std::move(resp), kPodOperation, "invalid_pod");
        }
        core::OwnerLookup lookup;
        lookup.controller_of = [&](std::string_view kind, std::string_view name)
            -> std::optional<std::optional<core::OwnerReference>> {
            auto obj = cached(kind, ns, name);
            if (!obj) return std::nullopt;
            return controller_of(*obj);
        };
        lookup.exists = [&](std::string_view kind, std::string_view name) { return cached(kind, ns, name) != nullptr; };
        const auto workload = core::resolve_pod_workload(pod.value(), lookup);
        if (!workload) return skip(std::move(resp), kPodOperation, "no_owner");
        auto wobj = cached(workload->kind, ns, workload->name);
        if (!wobj) return skip(std::move(resp), kPodOperation, "workload_not_cached");
        const auto wref = controller::workload_ref_from(workload->kind, *wobj);
        auto [policy, why] = managing_policy(wref);
        if (!policy) return skip(std::move(resp), kPodOperation, why);
        decode_status(*policy);
        core::CreateSizingInput in;
        in.pod = &req.object;
        in.policy = &*policy->effective;
        in.recommendation = core::find_status_recommendation(*policy->recommendations, workload->kind, workload->name);
        in.pod_level_resources_field = caps && caps->pod_level_resources_field;
        in.now = opts.now();
        auto sizing = core::size_pod_on_create(in);
        resp.warnings = std::move(sizing.warnings);
        if (!sizing.sized()) return skip(std::move(resp), kPodOperation, sizing.skip_reason);
        resp.patch = std::move(sizing.patch);
        metrics.admissions.Add({{"operation", kPodOperation}, {"result", resp.patch.empty() ? "unchanged" : "mutated"}})
            .Increment();
        if (sizing.boosted && !resp.patch.empty())
            // By policy, not by workload: the series stay bounded by the
            // policies; which pod was boosted is in the pod's
            // attune.io/startup-boost-at annotation.
            metrics.startup_boosts.Add({{"namespace", ns}, {"policy", policy->view->name}, {"action", "applied"}})
                .Increment();
        if (spdlog::should_log(spdlog::level::debug)) {
            std::string sized;
            for (const auto& c : sizing.containers) sized += (sized.empty() ? "" : ",") + c.name + "=" + c.outcome;
            spdlog::debug("pod sized at CREATE namespace={} name={} workload={}/{} policy={} containers={} boosted={} "
                          "envelope_raised={} dry_run={}",
                          ns, pod.value().name.empty() ? core::string_at(req.object, {"metadata", "generateName"}) : pod.value().name,
                          workload->kind, workload->name, policy->view->name, sized, sizing.boosted,
                          sizing.envelope_raised, req.dry_run);
        }
        return resp;
    }

    core::AdmissionResponse workload_update(const core::AdmissionRequest& req) {
        core::AdmissionResponse resp;
        resp.uid = req.uid;
        const std::string& kind = req.kind.kind;
        if (req.operation != "UPDATE" || (kind != "Deployment" && kind != "StatefulSet") || !req.object.is_object() ||
            !req.old_object.is_object())
            return skip(std::move(resp), kWorkloadOperation, "not_a_workload_update");
        // Cheap first: most updates (scale, labels, status writers) leave the template alone.
        const auto* tmpl = core::json_at(req.object, {"spec", "template"});
        const auto* old_tmpl = core::json_at(req.old_object, {"spec", "template"});
        if (tmpl && old_tmpl && *tmpl == *old_tmpl) return skip(std::move(resp), kWorkloadOperation, "template_unchanged");
        const std::string& ns = req.namespace_;
        if (!opts.watch_scope.contains(ns)) return skip(std::move(resp), kWorkloadOperation, "namespace_not_watched");
        if (ns == "kube-system" || (!opts.operator_namespace.empty() && ns == opts.operator_namespace))
            return skip(std::move(resp), kWorkloadOperation, "system_namespace");
        const auto info = namespace_info(ns);
        if (!info) return skip(std::move(resp), kWorkloadOperation, "namespace_unknown");
        if (auto it = info->annotations.find(core::kFreezeAnnotation); it != info->annotations.end() && it->second == "true")
            return skip(std::move(resp), kWorkloadOperation, "namespace_frozen");
        const auto wref = controller::workload_ref_from(kind, req.object);
        auto [policy, why] = managing_policy(wref);
        if (!policy) return skip(std::move(resp), kWorkloadOperation, why);
        decode_status(*policy);
        std::optional<core::PersistenceCandidate> candidate;
        if (const auto* entry = core::find_lifecycle_entry(*policy->lifecycle, kind, wref.name))
            candidate = core::persistence_candidate(*entry, policy->view->name);
        core::TemplateUpdateInput in;
        in.object = &req.object;
        in.old_object = &req.old_object;
        in.candidate = candidate ? &*candidate : nullptr;
        in.pod_level_resources_field = caps && caps->pod_level_resources_field;
        auto persisted = core::persist_on_template_change(in);
        resp.warnings = std::move(persisted.warnings);
        if (!persisted.injected()) return skip(std::move(resp), kWorkloadOperation, persisted.skip_reason);
        resp.patch = std::move(persisted.patch);
        metrics.admissions.Add({{"operation", kWorkloadOperation}, {"result", "mutated"}}).Increment();
        std::string containers;
        for (const auto& c : persisted.injected_containers) containers += (containers.empty() ? "" : ",") + c;
        spdlog::info("validated resources persisted into the pod template namespace={} name={} kind={} policy={} "
                     "revision={} containers={} envelope_raised={} dry_run={}",
                     ns, wref.name, kind, policy->view->name, candidate->validated_revision, containers,
                     persisted.envelope_raised, req.dry_run);
        return resp;
    }
};

admission_handler::admission_handler(admission_caches caches, admission_options opts, const core::Capabilities* caps,
                                     webhook_metrics& metrics)
    : impl_(std::make_unique<impl>(std::move(caches), std::move(opts), caps, metrics)) {}

admission_handler::~admission_handler() = default;

core::AdmissionResponse admission_handler::review_pod_create(const core::AdmissionRequest& req) {
    return impl_->pod_create(req);
}

core::AdmissionResponse admission_handler::review_workload_update(const core::AdmissionRequest& req) {
    return impl_->workload_update(req);
}

http::server_reply admission_handler::handle(const http::server_request& req) {
    const auto started = std::chrono::steady_clock::now();
    const std::string_view path = req.target.substr(0, req.target.find('?'));
    const bool pods = path == kPodCreatePath;
    if (!pods && path != kWorkloadUpdatePath) return text(404, "no admission webhook at " + std::string(path));
    if (req.method != "POST") return text(405, "admission reviews are POSTed");
    const char* operation = pods ? kPodOperation : kWorkloadOperation;
    auto review = core::decode_admission_review(req.body);
    if (!review) {
        impl_->metrics.admissions.Add({{"operation", operation}, {"result", "malformed"}}).Increment();
        spdlog::warn("malformed AdmissionReview path={} bytes={} error=\"{}\"", path, req.body.size(),
                     review.error().message);
        return text(400, "invalid AdmissionReview: " + review.error().message);
    }
    auto resp = pods ? impl_->pod_create(review.value()) : impl_->workload_update(review.value());
    http::server_reply out(200, "application/json", core::encode_admission_review(resp));
    (pods ? impl_->pod_duration : impl_->workload_duration)
        .Observe(std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count());
    return out;
}

}  // namespace attune::webhook
