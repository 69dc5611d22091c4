#pragma once
// The controller: informer handlers enqueue keys; N worker coroutines take
// them. A policy key starts a pass (status_aggregation) and enqueues its
// targets. A workload key is one coroutine: a snapshot of the caches
// (workload_snapshot), then, unless the workload is unmanaged, idle, paused,
// Observe or misconfigured, its source is asked (workload_recommender), and
// the result is applied in one step: the recommendation store, Events, the
// report to the status aggregator, the next refresh. Pods are never patched
// here: the store is what the apply path reads.
#include <attune/controller/event_queue.hpp>
#include <attune/controller/metrics.hpp>
#include <attune/controller/prometheus_clients.hpp>
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

#include <chrono>
#include <functional>
#include <memory>
#include <string>

namespace attune::controller {

struct controller_options {
    controller_options() = default;
    int workers = 2;
    rate_limit_options rate;
    // --allow-local-metrics-addresses, --allow-secret-reads.
    core::PolicyValidationOptions validation;
    prometheus_clients_options prometheus;
    std::size_t event_queue_capacity = 1024;
    // A pod added or deleted looks at its workload again after this (the
    // workqueue keeps the earliest due time, so a rollout's burst of pod
    // events becomes one pass).
    std::chrono::milliseconds pod_change_delay{10'000};
};

class controller {
public:
    using wall_clock = std::function<std::chrono::system_clock::time_point()>;

    // `now` null: the system clock.
    controller(boost::asio::any_io_executor ex, kube::client& client, kube::event_recorder* events,
               controller_metrics& metrics, policy::cache_views caches, controller_options opts, wall_clock now = nullptr);

    kube::informer::handler on_workload_change(std::string kind);
    kube::informer::handler on_hpa_change();
    kube::informer::handler on_policy_change();
    // AttuneDefaults (cluster: every policy) / AttuneNamespaceDefaults (its namespace's).
    kube::informer::handler on_defaults_change(bool cluster_scoped);
    // A pod added or deleted: its workload, after pod_change_delay.
    kube::informer::handler on_pod_change();
    kube::informer::handler on_vpa_change();

    // Takes keys until the queue shuts down. Rethrows infrastructure
    // failures after giving the key back (with backoff) to the queue.
    boost::asio::awaitable<void> run_worker();
    // Processes one key (exposed for tests).
    boost::asio::awaitable<void> process(std::string key);

    // Every policy in the caches gets a pass (start of leadership, a
    // defaults change, the VPA cache coming up).
    void enqueue_all_policies();
    // The VPA informer was started (the VPA API is served).
    void set_vpa_cache(const kube::object_cache* vpas);
    // The cluster's capabilities, probed once at start; the apply path reads them.
    void set_capabilities(core::Capabilities caps);
    const core::Capabilities& capabilities() const noexcept { return capabilities_; }
    bool capabilities_probed() const noexcept { return capabilities_probed_; }

    // Stop accepting work: the queue hands out nothing more, the aggregator,
    // the event queue and the Prometheus clients stop.
    void shut_down();

    workqueue& queue() noexcept { return queue_; }
    status_aggregator& aggregator() noexcept { return aggregator_; }
    event_queue& events() noexcept { return events_; }
    recommendation_store& store() noexcept { return store_; }
    recommendation_exporter& exporter() noexcept { return exporter_; }
    // The recommendation path's Prometheus access, which the executor's
    // safety monitor shares (guardrails and the throttling ratio).
    workload_recommender& recommender() noexcept { return recommender_; }
    const recommendation_store& store() const noexcept { return store_; }
    const controller_options& options() const noexcept { return opts_; }

private:
    void process_policy(const object_key& k);
    boost::asio::awaitable<void> process_workload(object_key k);
    // Applies what the snapshot and the source said, in one synchronous step.
    void apply(const workload_snapshot& s, workload_step step, const source_result* got);
    void emit_selection_events(const workload_snapshot& s);
    void publish_gauges(const object_key& k);
    core::Timestamp now_seconds() const;

    controller_metrics& metrics_;
    policy::cache_views caches_;
    controller_options opts_;
    wall_clock now_;
    workqueue queue_;
    recommendation_store store_;
    event_queue events_;
    recommendation_exporter exporter_;
    status_aggregator aggregator_;
    effective_policies policies_;
    std::unique_ptr<secret_reader> secrets_;
    prometheus_clients prometheus_;
    workload_recommender recommender_;
    core::Capabilities capabilities_ = core::safe_defaults();
    bool capabilities_probed_ = false;
};

}  // namespace attune::controller
