#pragma once
// The idle controller: informer handlers enqueue keys, N worker coroutines
// process them against the caches and feed the status aggregator.
#include <attune/controller/metrics.hpp>
#include <attune/controller/reconcile.hpp>
#include <attune/controller/status_aggregator.hpp>
#include <attune/controller/workqueue.hpp>
#include <attune/kube/client.hpp>
#include <attune/kube/event_recorder.hpp>
#include <attune/kube/informer.hpp>

#include <boost/asio/any_io_executor.hpp>
#include <boost/asio/awaitable.hpp>

#include <string>

namespace attune::controller {

struct controller_options {
    int workers = 2;
    rate_limit_options rate;
};

class controller {
public:
    controller(boost::asio::any_io_executor ex, kube::client& client, kube::event_recorder* events,
               controller_metrics& metrics, cache_views caches, controller_options opts);

    kube::informer::handler on_workload_change(std::string kind);
    kube::informer::handler on_hpa_change();
    kube::informer::handler on_policy_change();

    // Takes keys until the queue shuts down. Rethrows infrastructure
    // failures after giving the key back (with backoff) to the queue.
    boost::asio::awaitable<void> run_worker();
    // Processes one key synchronously (exposed for tests).
    void process(const std::string& key);

    // Every policy in the caches gets a pass (start of leadership).
    void enqueue_all_policies();
    // Stop accepting work: the queue hands out nothing more, the aggregator stops.
    void shut_down();

    workqueue& queue() noexcept { return queue_; }
    status_aggregator& aggregator() noexcept { return aggregator_; }
    const controller_options& options() const noexcept { return opts_; }

private:
    controller_metrics& metrics_;
    cache_views caches_;
    controller_options opts_;
    workqueue queue_;
    status_aggregator aggregator_;
};

}  // namespace attune::controller
