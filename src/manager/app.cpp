#include "app.hpp"

#include "feature_capabilities.hpp"
#include "feature_controller.hpp"
#include "feature_executor.hpp"
#include "feature_informers.hpp"
#include "feature_leader_election.hpp"
#include "feature_shutdown.hpp"
#include "feature_probes.hpp"
#include "feature_vpa.hpp"
#include "feature_webhook.hpp"
#include "manager_context.hpp"

#include <boost/asio/co_spawn.hpp>
#include <boost/asio/detached.hpp>
#include <boost/asio/io_context.hpp>

#include <spdlog/fmt/ranges.h>
#include <spdlog/spdlog.h>

#include <optional>

namespace attune::manager {
namespace asio = boost::asio;

namespace {

// The process composed of its features (docs/manager.md, "The manager's
// wiring"). Each feature builds its own informers' needs, workers and
// routes; this class only orders them: build, bind, start, the sync gate in
// front of leader election and the workers, and the shutdown.
class Manager {
public:
    Manager(asio::io_context& io, const ManagerOptions& opts, kube::RestConfig cfg)
        : ctx_(io, opts, std::move(cfg)), informers_(ctx_), vpa_(ctx_),
          probes_(ctx_, [this] { return not_ready_reason(); }),
          shutdown_(
              ctx_, [this] { stop_work(); }, [this] { return release(); }) {
        informers_.fence_namespaces({opts.leader_elect ? lease_namespace(opts) : std::string(),
                                     opts.webhook.enabled ? webhook_namespace(opts) : std::string()});
        const auto views = informers_.need_feature_caches([this] { return vpa_.synced(); });
        controller_.emplace(ctx_, views);
        executor_.emplace(ctx_, controller_->get(), views);
        if (opts.webhook.enabled) webhook_.emplace(ctx_, &controller_->get().capabilities());
        if (opts.leader_elect)
            election_.emplace(ctx_, [this] { start_workers(); }, [this] { shutdown_.begin_shutdown(1); });
    }

    // Throws std::system_error when an address cannot be bound.
    void listen() {
        if (webhook_) webhook_->listen();
        probes_.listen();
    }

    void start() {
        shutdown_.watch_signals();
        probes_.start_metrics();
        if (webhook_) webhook_->start();
        probes_.start_health();
        informers_.start();
        asio::co_spawn(ctx_.io, probe_capabilities(ctx_, controller_->get(), executor_->get()), asio::detached);
        asio::co_spawn(ctx_.io, become_ready(), asio::detached);
        ctx_.spawn("vpa-api-watch", [this] { return vpa_.run(controller_->get()); });
    }

    int exit_code() const noexcept { return shutdown_.exit_code(); }

private:
    // Nothing writes before every informer listed; with leader election,
    // nothing before leading either.
    asio::awaitable<void> become_ready() {
        co_await informers_.wait_for_sync();
        if (!informers_.synced()) co_return;  // shutting down
        if (election_)
            election_->start();
        else
            start_workers();
    }

    void start_workers() {
        if (workers_started_ || ctx_.stopping) return;
        workers_started_ = true;
        spdlog::info("starting workers workers={}", ctx_.opts.workers);
        controller_->start_workers();
        executor_->start_workers();
        controller_->start_event_flush();
    }

    std::string not_ready_reason() const {
        if (ctx_.stopping) return "shutting down\n";
        if (webhook_ && !webhook_->ready()) return "admission webhook not serving yet (no certificate)\n";
        return informers_.not_ready_reason();
    }

    // Shutdown, first: no new work, watches closed.
    void stop_work() {
        if (webhook_) webhook_->stop_certificates();
        controller_->shut_down();
        executor_->shut_down();
        informers_.stop();
        vpa_.stop();
    }

    // Shutdown, then: what is in flight is answered or released, in bounded time.
    asio::awaitable<void> release() {
        if (webhook_) co_await webhook_->drain();
        if (election_) co_await election_->release();
        ctx_.client.shutdown();
        probes_.stop();
    }

    ManagerContext ctx_;
    InformersFeature informers_;
    VpaFeature vpa_;
    ProbesFeature probes_;
    ShutdownFeature shutdown_;
    std::optional<ControllerFeature> controller_;
    std::optional<ExecutorFeature> executor_;
    std::optional<WebhookFeature> webhook_;
    std::optional<LeaderElectionFeature> election_;
    bool workers_started_ = false;
};

}  // namespace

int run_manager(const ManagerOptions& opts) {
    kube::RestConfig cfg;
    try {
        // A daemon has nobody at a terminal: an exec plugin never gets stdin,
        // and one that insists on it (interactiveMode Always) fails clearly.
        kube::ExecPluginOptions exec;
        exec.stdin_unavailable = true;
        exec.stdin_unavailable_reason = "attune-manager runs unattended";
        cfg = kube::load_default_config(opts.kubeconfig, opts.context, opts.allow_insecure_tls, exec);
    } catch (const std::exception& e) {
        spdlog::error("cannot load the cluster configuration error=\"{}\"", e.what());
        return 1;
    }
    spdlog::info(
        "starting attune-manager host={} port={} context={} workers={} leader_elect={} kube_qps={} "
        "kube_burst={} allow_local_metrics_addresses={} allow_secret_reads={} prometheus_query_timeout_ms={} "
        "prometheus_bearer_token_file=\"{}\" prometheus_token_addresses=\"{}\" "
        "allow_plaintext_prometheus_credentials={} allow_prometheus_insecure_tls={} datadog_url=\"{}\" "
        "datadog_ca_file=\"{}\" datadog_qps={} datadog_burst={} cloudwatch_url=\"{}\" sts_url=\"{}\" "
        "cloudwatch_ca_file=\"{}\" cloudwatch_qps={} cloudwatch_burst={} gitops_ca_file=\"{}\" watch_namespaces={}",
        cfg.host, cfg.port, cfg.context, opts.workers, opts.leader_elect, opts.kube_qps, opts.kube_burst,
        opts.allow_local_metrics_addresses, opts.allow_secret_reads, opts.prometheus_query_timeout_ms,
        opts.prometheus_bearer_token_file, fmt::join(opts.prometheus_token_origins, ","),
        opts.allow_plaintext_prometheus_credentials, opts.allow_prometheus_insecure_tls, opts.datadog_url,
        opts.datadog_ca_file, opts.datadog_qps, opts.datadog_burst, opts.cloudwatch_url, opts.sts_url,
        opts.cloudwatch_ca_file, opts.cloudwatch_qps, opts.cloudwatch_burst, opts.gitops_ca_file,
        opts.watch_namespaces.empty() ? std::string("*") : join(opts.watch_namespaces));
    if (!opts.prometheus_bearer_token_file.empty() && opts.prometheus_token_origins.empty())
        spdlog::warn("--prometheus-bearer-token-file is set but --prometheus-token-addresses is empty: the token is "
                     "sent to no Prometheus");
    // io_context and manager are deliberately never destroyed: io.stop()
    // may leave coroutine frames that still point into the manager, and the
    // process exits right after. The OS reclaims both.
    auto* io = new asio::io_context(1);
    Manager* m = nullptr;
    try {
        m = new Manager(*io, opts, std::move(cfg));
        m->listen();
    } catch (const std::exception& e) {
        spdlog::error("cannot start error=\"{}\"", e.what());
        return 1;
    }
    m->start();
    io->run();
    return m->exit_code();
}

}  // namespace attune::manager
