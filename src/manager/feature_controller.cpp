#include "feature_controller.hpp"

#include <boost/asio/as_tuple.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/use_awaitable.hpp>

namespace attune::manager {
namespace asio = boost::asio;
using namespace std::chrono_literals;

namespace {
// How often auto-discovery looks again (the Go Attune caches its answer as long).
constexpr std::chrono::seconds kPrometheusDiscoveryPeriod = 5min;
}  // namespace

ControllerFeature::ControllerFeature(ManagerContext& ctx, const policy::CacheViews& views) : ctx_(ctx) {
    const auto& opts = ctx_.opts;
    controller::ControllerOptions co;
    co.workers = opts.workers;
    co.validation = policy_validation_options(opts);
    co.prometheus.query_timeout = std::chrono::milliseconds(opts.prometheus_query_timeout_ms);
    co.prometheus.bearer_token_file = opts.prometheus_bearer_token_file;
    co.prometheus.token_origins = opts.prometheus_token_origins;
    co.datadog.query_timeout = co.prometheus.query_timeout;
    co.datadog.url = opts.datadog_url;
    co.datadog.ca_file = opts.datadog_ca_file;
    co.datadog.qps = opts.datadog_qps;
    co.datadog.burst = opts.datadog_burst;
    co.cloudwatch.query_timeout = co.prometheus.query_timeout;
    co.cloudwatch.url = opts.cloudwatch_url;
    co.cloudwatch.sts_url = opts.sts_url;
    co.cloudwatch.ca_file = opts.cloudwatch_ca_file;
    co.cloudwatch.qps = opts.cloudwatch_qps;
    co.cloudwatch.burst = opts.cloudwatch_burst;
    co.pull_requests.request_timeout = co.prometheus.query_timeout;
    co.pull_requests.ca_file = opts.gitops_ca_file;
    co.watch_namespaces = opts.watch_namespaces;
    controller_ = std::make_unique<controller::Controller>(ctx_.io.get_executor(), ctx_.client, &ctx_.events,
                                                           ctx_.metrics.controller, views, co);
    auto& reg = ctx_.informers;
    reg.need("deployments").add_handler(controller_->on_workload_change("Deployment"));
    reg.need("statefulsets").add_handler(controller_->on_workload_change("StatefulSet"));
    reg.need("replicasets").add_handler(controller_->on_workload_change("ReplicaSet"));
    reg.need("daemonsets").add_handler(controller_->on_workload_change("DaemonSet"));
    reg.need("jobs").add_handler(controller_->on_workload_change("Job"));
    reg.need("cronjobs").add_handler(controller_->on_workload_change("CronJob"));
    reg.need("horizontalpodautoscalers").add_handler(controller_->on_hpa_change());
    reg.need("attunepolicies").add_handler(controller_->on_policy_change());
    reg.need("attunedefaults").add_handler(controller_->on_defaults_change(true));
    reg.need("attunenamespacedefaults").add_handler(controller_->on_defaults_change(false));
    reg.need("pods").add_handler(controller_->on_pod_change());
}

void ControllerFeature::start_workers() {
    controller_->enqueue_all_policies();
    ctx_.spawn("status-aggregator", [this] { return controller_->aggregator().run(); });
    ctx_.spawn("status-writer", [this] { return controller_->aggregator().run_writer(); });
    ctx_.spawn("event-queue", [this] { return controller_->events().run(); });
    ctx_.spawn("recommendation-exporter", [this] { return controller_->exporter().run(); });
    ctx_.spawn("pull-request-exporter", [this] { return controller_->pull_requests().run(); });
    // The workers wait for the first look for a Prometheus, so that a policy
    // with no source is not reported PrometheusUnavailable for the moment
    // before discovery answers (a few GETs).
    ctx_.spawn("prometheus-discovery", [this]() -> asio::awaitable<void> {
        if (!workers_started_) {
            co_await controller_->refresh_prometheus_discovery();
            workers_started_ = true;
            for (int i = 0; i < ctx_.opts.workers; ++i)
                ctx_.spawn("worker", [this] { return controller_->run_worker(); });
        }
        co_await controller_->run_prometheus_discovery(kPrometheusDiscoveryPeriod);
    });
}

void ControllerFeature::start_event_flush() {
    ctx_.spawn("event-flush", [this]() -> asio::awaitable<void> {
        asio::steady_timer t(ctx_.io);
        while (!ctx_.stopping) {
            t.expires_after(30s);
            co_await t.async_wait(asio::as_tuple(asio::use_awaitable));
            if (!ctx_.stopping) co_await ctx_.events.flush();
        }
    });
}

}  // namespace attune::manager
