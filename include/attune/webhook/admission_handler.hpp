#pragma once
// The admission webhook's request handler: routes an HTTPS request to the
// core's decision and answers an AdmissionReview. It reads informer caches
// only (namespaces, policies, the owner chain), never the API, so its
// latency is the core's. Synchronous: it runs inside the server's
// connection coroutine and never waits.
//
//   POST /mutate-v1-pod             pods CREATE: size_pod_on_create
//   POST /mutate-apps-v1-workloads  deployments, statefulsets UPDATE:
//                                   persist_on_template_change
//   POST /validate-attune..., /mutate-attunepolicy
//                                   Attune's own objects (PolicyReviewer)
//
// A body that is not an AdmissionReview v1 gets HTTP 400 with the reason;
// anything Attune cannot or need not change is allowed unchanged. Attune
// never denies a pod or a workload; it denies only a policy or defaults
// object that breaks its rules (policy_review.hpp).
#include <attune/core/admission/admission_review.hpp>
#include <attune/core/model/capabilities.hpp>
#include <attune/core/policy/policy_validation.hpp>
#include <attune/http/https_server.hpp>
#include <attune/kube/object_cache.hpp>
#include <attune/kube/watch_scope.hpp>
#include <attune/policy/cache_views.hpp>
#include <attune/webhook/metrics.hpp>

#include <functional>
#include <memory>
#include <string>

namespace attune::webhook {

inline constexpr std::string_view kPodCreatePath = "/mutate-v1-pod";
inline constexpr std::string_view kWorkloadUpdatePath = "/mutate-apps-v1-workloads";

struct AdmissionCaches {
    AdmissionCaches() = default;
    const kube::ObjectCache* namespaces = nullptr;
    // Policies, both defaults tiers and the six owner kinds, set up as the
    // manager's informers are (policy::index_policies, index_defaults):
    // selection and the merge read their decoded views. A null defaults
    // cache is no tier (the policy and the built-ins decide alone; tests).
    // The pods, HPA and VPA caches are not read.
    policy::CacheViews views;

    // Every cache above holds its first list (views.has_synced of
    // "Namespace", "AttunePolicy", both defaults kinds and the owner kinds):
    // before that, "not in the cache" proves nothing and sizing fails closed.
    bool synced() const;
};

struct AdmissionOptions {
    AdmissionOptions() = default;
    std::string operator_namespace;  // its pods are never sized
    // --watch-namespaces: requests from any other namespace are allowed
    // unchanged (skip reason namespace_not_watched), whatever the caches hold.
    kube::WatchScope watch_scope;
    // RFC 3339 "now" for attune.io/startup-boost-at; the system clock when empty.
    std::function<std::string()> now;
    // The controller's validation options (--allow-local-metrics-addresses,
    // --allow-secret-reads): a merged policy that fails
    // core::validate_effective_policy with them sizes no pod
    // (policy::PolicyResolver, the controller's own resolution).
    core::PolicyValidationOptions validation;
    // Where the policy webhooks look schedule time zones up (tests point it elsewhere).
    std::string zoneinfo_root = "/usr/share/zoneinfo";
};

class AdmissionHandler {
public:
    AdmissionHandler(AdmissionCaches caches, AdmissionOptions opts, const core::Capabilities* caps,
                     WebhookMetrics& metrics);
    ~AdmissionHandler();

    http::ServerReply handle(const http::ServerRequest& req);

    // The two reviews, past HTTP and AdmissionReview decoding (for tests and the bench).
    core::AdmissionResponse review_pod_create(const core::AdmissionRequest& req);
    core::AdmissionResponse review_workload_update(const core::AdmissionRequest& req);

private:
    struct impl;
    std::unique_ptr<impl> impl_;
};

}  // namespace attune::webhook
