#include <attune/webhook/admission_handler.hpp>

#include <attune/webhook/policy_review.hpp>

#include <attune/core/admission/create_sizing.hpp>
#include <attune/core/admission/deferred_persistence.hpp>
#include <attune/core/util/json_path.hpp>
#include <attune/core/lifecycle/lifecycle_status.hpp>
#include <attune/core/model/pod_owner.hpp>
#include <attune/core/policy/policy.hpp>
#include <attune/core/policy/policy_validation.hpp>
#include <attune/policy/policy_resolver.hpp>
#include <attune/core/recommend/recommendation_status.hpp>
#include <attune/core/util/timestamp.hpp>

#include <boost/json.hpp>

#include <spdlog/spdlog.h>

#include <chrono>
#include <unordered_map>

namespace attune::webhook {
namespace json = boost::json;
using ObjectPtr = kube::ObjectCache::ObjectPtr;

namespace {

constexpr const char* kPodOperation = "pod_create";
constexpr const char* kWorkloadOperation = "workload_update";
constexpr const char* kPolicyValidateOperation = "policy_validate";
constexpr const char* kPolicyDefaultOperation = "policy_default";
// The default buckets (docs/webhook.md).
const prometheus::Histogram::BucketBoundaries kDurationBuckets{0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10};

http::ServerReply text(unsigned status, std::string body) {
    return http::ServerReply(status, "text/plain; charset=utf-8", std::move(body) + "\n");
}

std::map<std::string, std::string, std::less<>> string_map_at(const json::value& v, core::JsonPath path) {
    std::map<std::string, std::string, std::less<>> out;
    if (const auto* o = core::object_at(v, path))
        for (const auto& [k, val] : *o)
            if (val.is_string()) out.emplace(std::string(k), std::string(val.get_string()));
    return out;
}

std::string default_now() {
    return core::format_timestamp(std::chrono::floor<std::chrono::seconds>(std::chrono::system_clock::now()));
}

}  // namespace

struct AdmissionHandler::impl {
    AdmissionCaches caches;
    AdmissionOptions opts;
    const core::Capabilities* caps;
    WebhookMetrics& metrics;

    // Which policy manages a workload and its merged, validated settings:
    // the controller's own resolution over the same decoded views.
    policy::PolicyResolver resolver;

    // The winning policies' status, by cache key, read once per decoded
    // policy view (index_policies makes a new one per change; the object
    // itself is parsed afresh on every read of a compact cache). The entry
    // holds the view, so an address cannot be reused by a newer view while
    // it is compared.
    struct PolicyEntry {
        std::shared_ptr<const policy::PolicyView> view;
        std::shared_ptr<const core::EffectivePolicy> effective;
        ObjectPtr source;  // read once per change
        std::optional<std::vector<core::StatusRecommendation>> recommendations;
        std::optional<std::vector<core::LifecycleStatusEntry>> lifecycle;
        std::string status_error;  // why recommendations/lifecycle did not decode
        std::string refusal;       // the resolution message last logged for this view
    };
    std::unordered_map<std::string, PolicyEntry> memo;

    // Attune's own objects: their validation and defaulting.
    PolicyReviewer policies;

    prometheus::Histogram& pod_duration;
    prometheus::Histogram& workload_duration;

    impl(AdmissionCaches c, AdmissionOptions o, const core::Capabilities* cp, WebhookMetrics& m)
        : caches(std::move(c)), opts(std::move(o)), caps(cp), metrics(m), resolver(opts.validation),
          policies(&caches.views, opts.validation, opts.watch_scope, policy::TimeZones(opts.zoneinfo_root)),
          pod_duration(m.duration.Add({{"operation", kPodOperation}}, kDurationBuckets)),
          workload_duration(m.duration.Add({{"operation", kWorkloadOperation}}, kDurationBuckets)) {
        if (!opts.now) opts.now = default_now;
    }

    bool synced() const { return caches.synced(); }

    ObjectPtr cached(std::string_view kind, std::string_view ns, std::string_view name) const {
        const auto* c = kind == "AttunePolicy" ? nullptr : caches.views.for_kind(kind);
        if (!c) return nullptr;
        return c->get(std::string(ns) + "/" + std::string(name));
    }

    // Why a resolution gave no settings, logged once per version of the
    // policy and of its refusal.
    void log_refusal(PolicyEntry& e, const policy::Resolved& r) {
        if (e.refusal == r.message) return;
        e.refusal = r.message;
        using F = core::ResolutionFailure;
        const char* why = r.failure == F::ValidationFailed  ? "it fails validation (the controller reports InvalidConfig)"
                          : r.failure == F::InvalidDefaults ? "its defaults do not decode"
                          : r.failure == F::InvalidPolicy   ? "it does not decode"
                                                            : "its defaults have not listed";
        spdlog::warn("policy not applied by the webhook: {} namespace={} name={} error=\"{}\"", why, e.view->ns,
                     e.view->name, r.message);
    }

    void prune() {
        for (auto it = memo.begin(); it != memo.end();) {
            if (!caches.views.policies->decoded<policy::PolicyView>(it->first)) it = memo.erase(it);
            else ++it;
        }
    }

    // The policy that manages `wl` (policy::resolve_managing_policy: the
    // controller's selection, merge and validation), or a skip reason:
    // no_policy, workload_opted_out, invalid_policy (the policy or a
    // defaults object does not decode), policy_validation_failed.
    std::pair<PolicyEntry*, std::string> managing_policy(const policy::WorkloadRef& wl) {
        if (!caches.views.policies) return {nullptr, "no_policy"};
        auto managed = policy::resolve_managing_policy(caches.views, resolver, wl);
        const auto& sel = managed.selection;
        if (sel.winner.empty()) return {nullptr, sel.opted_out_of.empty() ? "no_policy" : "workload_opted_out"};
        auto& r = managed.policy;
        if (!r.view) return {nullptr, "no_policy"};
        const std::string key = wl.ns + "/" + sel.winner;
        if (auto it = memo.find(key); it == memo.end() || it->second.view != r.view) {
            memo[key] = PolicyEntry{};
            memo[key].view = r.view;
            if (memo.size() > 2 * caches.views.policies->size() + 64) prune();
        }
        auto& e = memo[key];
        if (!r.effective) {
            log_refusal(e, r);
            using F = core::ResolutionFailure;
            return {nullptr, r.failure == F::InvalidDefaults ? "invalid_policy" : std::string(core::to_string(r.failure))};
        }
        e.refusal.clear();
        e.effective = std::move(r.effective);
        if (!e.source) e.source = caches.views.policies->get(key);
        if (!e.source) return {nullptr, "no_policy"};
        return {&e, ""};
    }

    void decode_status(PolicyEntry& e) {
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
            return policy::controller_ref(*obj);
        };
        lookup.exists = [&](std::string_view kind, std::string_view name) { return cached(kind, ns, name) != nullptr; };
        const auto workload = core::resolve_pod_workload(pod.value(), lookup);
        if (!workload) return skip(std::move(resp), kPodOperation, "no_owner");
        auto wobj = cached(workload->kind, ns, workload->name);
        if (!wobj) return skip(std::move(resp), kPodOperation, "workload_not_cached");
        const auto wref = policy::workload_ref_from(workload->kind, *wobj);
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
        const auto wref = policy::workload_ref_from(kind, req.object);
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

bool AdmissionCaches::synced() const {
    for (std::string_view what : {"Namespace", "AttunePolicy", "AttuneDefaults", "AttuneNamespaceDefaults", "Deployment",
                                  "StatefulSet", "DaemonSet", "ReplicaSet", "Job", "CronJob"})
        if (!views.has_synced(what)) return false;
    return true;
}

AdmissionHandler::AdmissionHandler(AdmissionCaches caches, AdmissionOptions opts, const core::Capabilities* caps,
                                   WebhookMetrics& metrics)
    : impl_(std::make_unique<impl>(std::move(caches), std::move(opts), caps, metrics)) {}

AdmissionHandler::~AdmissionHandler() = default;

core::AdmissionResponse AdmissionHandler::review_pod_create(const core::AdmissionRequest& req) {
    return impl_->pod_create(req);
}

core::AdmissionResponse AdmissionHandler::review_workload_update(const core::AdmissionRequest& req) {
    return impl_->workload_update(req);
}

http::ServerReply AdmissionHandler::handle(const http::ServerRequest& req) {
    const auto started = std::chrono::steady_clock::now();
    const std::string_view path = req.target.substr(0, req.target.find('?'));
    const bool pods = path == kPodCreatePath;
    const auto policy_path = policy_route(path);
    if (!pods && !policy_path && path != kWorkloadUpdatePath)
        return text(404, "no admission webhook at " + std::string(path));
    if (req.method != "POST") return text(405, "admission reviews are POSTed");
    const char* operation = pods          ? kPodOperation
                            : policy_path ? (policy_path->mutating ? kPolicyDefaultOperation : kPolicyValidateOperation)
                                          : kWorkloadOperation;
    auto review = core::decode_admission_review(req.body);
    if (!review) {
        impl_->metrics.admissions.Add({{"operation", operation}, {"result", "malformed"}}).Increment();
        spdlog::warn("malformed AdmissionReview path={} bytes={} error=\"{}\"", path, req.body.size(),
                     review.error().message);
        return text(400, "invalid AdmissionReview: " + review.error().message);
    }
    if (policy_path) {
        auto resp = impl_->policies.review(review.value(), *policy_path);
        const char* result = !resp.allowed ? "denied" : !resp.patch.empty() ? "mutated" : "unchanged";
        impl_->metrics.admissions.Add({{"operation", operation}, {"result", result}}).Increment();
        http::ServerReply out(200, "application/json", core::encode_admission_review(resp));
        if (const auto go_operation = validation_operation(*policy_path, review.value().operation)) {
            const std::string label(*go_operation);  // one of seven: the series stay bounded
            impl_->metrics.validations.Add({{"operation", label}, {"result", resp.allowed ? "allowed" : "rejected"}})
                .Increment();
            impl_->metrics.duration.Add({{"operation", label}}, kDurationBuckets)
                .Observe(std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count());
        }
        return out;
    }
    auto resp = pods ? impl_->pod_create(review.value()) : impl_->workload_update(review.value());
    http::ServerReply out(200, "application/json", core::encode_admission_review(resp));
    (pods ? impl_->pod_duration : impl_->workload_duration)
        .Observe(std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count());
    return out;
}

}  // namespace attune::webhook
