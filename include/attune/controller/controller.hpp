#pragma once
// The controller: informer handlers enqueue keys; N worker coroutines take
// them. A policy key starts a pass (StatusAggregation) and enqueues its
// targets. A workload key is one coroutine: a snapshot of the caches
// (WorkloadSnapshot), then, unless the workload is unmanaged, idle, paused,
// Observe or misconfigured, its source is asked (WorkloadRecommender), and
// the result is applied in one step: the recommendation store, Events, the
// report to the status aggregator, the next refresh. Pods are never patched
// here: the store is what the apply path reads.
#include <attune/controller/event_queue.hpp>
#include <attune/controller/metrics.hpp>
#include <attune/controller/cloudwatch_clients.hpp>
#include <attune/controller/datadog_clients.hpp>
#include <attune/controller/prometheus_clients.hpp>
#include <attune/controller/pull_request_exporter.hpp>
#include <attune/controller/recommendation_exporter.hpp>
#include <attune/controller/recommendation_store.hpp>
#include <attune/controller/reconcile.hpp>
#include <attune/controller/secret_reader.hpp>
#include <attune/controller/status_aggregator.hpp>
#include <attune/controller/workload_recommender.hpp>
#include <attune/controller/workload_snapshot.hpp>
#include <attune/controller/workqueue.hpp>
#include <attune/core/model/capabilities.hpp>
#include <attune/core/policy/policy_validation.hpp>
#include <attune/kube/client.hpp>
#include <attune/kube/event_recorder.hpp>
#include <attune/kube/informer.hpp>

#include <boost/asio/any_io_executor.hpp>
#include <boost/asio/awaitable.hpp>
#include <boost/asio/steady_timer.hpp>

#include <chrono>
#include <functional>
#include <memory>
#include <string>
#include <vector>

namespace attune::controller {

struct ControllerOptions {
    ControllerOptions() = default;
    int workers = 2;
    RateLimitOptions rate;
    // --allow-local-metrics-addresses, --allow-secret-reads.
    core::PolicyValidationOptions validation;
    PrometheusClientsOptions prometheus;
    DatadogClientsOptions datadog;
    CloudWatchClientsOptions cloudwatch;
    // updateStrategy.export.pullRequest's forge calls (its loopback rule
    // follows --allow-local-metrics-addresses).
    PullRequestOptions pull_requests;
    std::size_t event_queue_capacity = 1024;
    // A pod added or deleted looks at its workload again after this (the
    // workqueue keeps the earliest due time, so a rollout's burst of pod
    // events becomes one pass).
    std::chrono::milliseconds pod_change_delay{10'000};
    // --watch-namespaces (empty: every namespace): where Prometheus
    // auto-discovery lists Prometheus Operator objects.
    std::vector<std::string> watch_namespaces;
};

class Controller {
public:
    using WallClock = std::function<std::chrono::system_clock::time_point()>;

    // `now` null: the system clock.
    Controller(boost::asio::any_io_executor ex, kube::Client& client, kube::EventRecorder* events,
               ControllerMetrics& metrics, policy::CacheViews caches, ControllerOptions opts, WallClock now = nullptr);

    kube::Informer::Handler on_workload_change(std::string kind);
    kube::Informer::Handler on_hpa_change();
    kube::Informer::Handler on_policy_change();
    // AttuneDefaults (cluster: every policy) / AttuneNamespaceDefaults (its namespace's).
    kube::Informer::Handler on_defaults_change(bool cluster_scoped);
    // A pod added or deleted: its workload, after pod_change_delay unless a
    // worker takes it before then (the pod is in what it reads).
    kube::Informer::Handler on_pod_change();
    kube::Informer::Handler on_vpa_change();

    // Takes keys until the queue shuts down. Rethrows infrastructure
    // failures after giving the key back (with backoff) to the queue.
    boost::asio::awaitable<void> run_worker();
    // Processes one key (exposed for tests).
    boost::asio::awaitable<void> process(std::string key);

    // Every policy in the caches gets a pass (start of leadership, a
    // defaults change, the VPA cache coming up).
    void enqueue_all_policies();
    // The VPA informer was started (the VPA API is served).
    void set_vpa_cache(const kube::ObjectCache* vpas);
    // The cluster's capabilities, probed once at start; the apply path reads them.
    void set_capabilities(core::Capabilities caps);
    const core::Capabilities& capabilities() const noexcept { return capabilities_; }
    bool capabilities_probed() const noexcept { return capabilities_probed_; }

    // Prometheus auto-discovery for policies with no source: one look now
    // (true when the answer changed; a failed look keeps the last one).
    boost::asio::awaitable<bool> refresh_prometheus_discovery();
    // A look every `period`; a changed answer gives every policy a pass.
    boost::asio::awaitable<void> run_prometheus_discovery(std::chrono::seconds period);

    // Stop accepting work: the queue hands out nothing more, the aggregator,
    // the event queue and the Prometheus clients stop.
    void shut_down();

    Workqueue& queue() noexcept { return queue_; }
    StatusAggregator& aggregator() noexcept { return aggregator_; }
    EventQueue& events() noexcept { return events_; }
    RecommendationStore& store() noexcept { return store_; }
    RecommendationExporter& exporter() noexcept { return exporter_; }
    PullRequestExporter& pull_requests() noexcept { return pull_requests_; }
    // The recommendation path's Prometheus access, which the executor's
    // safety monitor shares (guardrails and the throttling ratio).
    WorkloadRecommender& recommender() noexcept { return recommender_; }
    const RecommendationStore& store() const noexcept { return store_; }
    const ControllerOptions& options() const noexcept { return opts_; }

private:
    void process_policy(const ObjectKey& k);
    boost::asio::awaitable<void> process_workload(ObjectKey k);
    // Applies what the snapshot and the source said, in one synchronous step.
    void apply(const WorkloadSnapshot& s, WorkloadStep step, const SourceResult* got);
    void emit_selection_events(const WorkloadSnapshot& s);
    void publish_gauges(const ObjectKey& k);
    core::Timestamp now_seconds() const;

    kube::Client& client_;
    ControllerMetrics& metrics_;
    policy::CacheViews caches_;
    ControllerOptions opts_;
    WallClock now_;
    Workqueue queue_;
    RecommendationStore store_;
    EventQueue events_;
    RecommendationExporter exporter_;
    StatusAggregator aggregator_;
    EffectivePolicies policies_;
    std::unique_ptr<SecretReader> secrets_;
    PrometheusClients prometheus_;
    DatadogClients datadog_;
    CloudWatchClients cloudwatch_;
    WorkloadRecommender recommender_;
    PullRequestExporter pull_requests_;
    core::Capabilities capabilities_ = core::safe_defaults();
    bool capabilities_probed_ = false;
    bool stopped_ = false;
    boost::asio::steady_timer* discovery_timer_ = nullptr;  // run_prometheus_discovery's, while it sleeps
};

}  // namespace attune::controller
