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
//
// A body that is not an AdmissionReview v1 gets HTTP 400 with the reason;
// anything Attune cannot or need not change is allowed unchanged. Attune
// never denies a request.
#include <attune/core/admission_review.hpp>
#include <attune/core/capabilities.hpp>
#include <attune/core/policy_validation.hpp>
#include <attune/http/https_server.hpp>
#include <attune/kube/object_cache.hpp>
#include <attune/kube/watch_scope.hpp>
#include <attune/webhook/metrics.hpp>

#include <functional>
#include <memory>
#include <string>

namespace attune::webhook {

inline constexpr std::string_view kPodCreatePath = "/mutate-v1-pod";
inline constexpr std::string_view kWorkloadUpdatePath = "/mutate-apps-v1-workloads";

struct admission_caches {
    admission_caches() = default;
    const kube::object_cache* namespaces = nullptr;
    // Set up with controller::index_policies (the manager's attunepolicies
    // informer is): selection reads the decoded views.
    const kube::object_cache* policies = nullptr;
    // AttuneDefaults / AttuneNamespaceDefaults for the defaults merge, set
    // up with controller::index_defaults (the manager's informers are): the
    // merge reads the decoded views. Null: no tier (the policy and the
    // built-ins decide alone; tests).
    const kube::object_cache* cluster_defaults = nullptr;
    const kube::object_cache* namespace_defaults = nullptr;
    const kube::object_cache* deployments = nullptr;
    const kube::object_cache* statefulsets = nullptr;
    const kube::object_cache* daemonsets = nullptr;
    const kube::object_cache* replicasets = nullptr;
    const kube::object_cache* jobs = nullptr;
    const kube::object_cache* cronjobs = nullptr;
    // True once every cache above holds its first list: before that, "not
    // in the cache" proves nothing and sizing fails closed.
    std::function<bool()> synced;
};

struct admission_options {
    admission_options() = default;
    std::string operator_namespace;  // its pods are never sized
    // --watch-namespaces: requests from any other namespace are allowed
    // unchanged (skip reason namespace_not_watched), whatever the caches hold.
    kube::watch_scope watch_scope;
    // RFC 3339 "now" for attune.io/startup-boost-at; the system clock when empty.
    std::function<std::string()> now;
    // The controller's validation options (--allow-local-metrics-addresses,
    // --allow-secret-reads): a merged policy that fails
    // core::validate_effective_policy with them sizes no pod.
    core::PolicyValidationOptions validation;
};

class admission_handler {
public:
    admission_handler(admission_caches caches, admission_options opts, const core::Capabilities* caps,
                      webhook_metrics& metrics);
    ~admission_handler();

    http::server_reply handle(const http::server_request& req);

    // The two reviews, past HTTP and AdmissionReview decoding (for tests and the bench).
    core::AdmissionResponse review_pod_create(const core::AdmissionRequest& req);
    core::AdmissionResponse review_workload_update(const core::AdmissionRequest& req);

private:
    struct impl;
    std::unique_ptr<impl> impl_;
};

}  // namespace attune::webhook
