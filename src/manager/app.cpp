#include "app.hpp"

#include "manager_metrics.hpp"
#include "probe_server.hpp"

#include <attune/controller/controller.hpp>
#include <attune/controller/recommendation_store.hpp>
#include <attune/controller/resize_executor.hpp>
#include <attune/kube/supervise.hpp>
#include <attune/core/capabilities.hpp>
#include <attune/core/json_path.hpp>
#include <attune/kube/client.hpp>
#include <attune/kube/discovery.hpp>
#include <attune/kube/event_recorder.hpp>
#include <attune/kube/informer.hpp>
#include <attune/kube/kubeconfig.hpp>
#include <attune/kube/leader_election.hpp>
#include <attune/kube/transforms.hpp>

#include <boost/asio/as_tuple.hpp>
#include <boost/asio/co_spawn.hpp>
#include <boost/asio/detached.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/signal_set.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/use_awaitable.hpp>

#include <spdlog/spdlog.h>

#include <unistd.h>

#include <fstream>
#include <map>
#include <random>
#include <sstream>

// GCC 12 reports a false -Wmismatched-new-delete when it inlines Asio's
// aligned frame allocation into a coroutine's destroy path (GCC PR 109224).
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic ignored "-Wmismatched-new-delete"
#endif

namespace attune::manager {
namespace asio = boost::asio;
using namespace std::chrono_literals;

namespace {

constexpr auto kShutdownDeadline = 10s;  // SIGTERM to exit, whatever hangs
constexpr auto kLeaseReleaseWait = 5s;   // part of the above, for the lease release

std::string leader_identity() {
    char host[256] = {};
    if (gethostname(host, sizeof host - 1) != 0) std::snprintf(host, sizeof host, "unknown");
    std::mt19937_64 rng(std::random_device{}());
    char suffix[17];
    std::snprintf(suffix, sizeof suffix, "%016llx", static_cast<unsigned long long>(rng()));
    return std::string(host) + "_" + std::string(suffix, 8);
}

std::string default_lease_namespace() {
    std::ifstream f("/var/run/secrets/kubernetes.io/serviceaccount/namespace");
    std::string ns;
    if (f && std::getline(f, ns) && !ns.empty()) return ns;
    return "default";
}

std::string strip_query(std::string_view target) {
    return std::string(target.substr(0, target.find('?')));
}

class manager {
public:
    manager(asio::io_context& io, const manager_options& opts, kube::rest_config cfg)
        : io_(io), opts_(opts), identity_(leader_identity()),
          client_(io.get_executor(), std::move(cfg), settings(opts), metrics_.kube),
          events_(client_, "attune.io/attune-manager", identity_),
          signals_(io, SIGTERM, SIGINT), deadline_(io) {
        // Pods are the bulk of the cache: kept as compact text (parsed on
        // read) to stay under 2 KiB per pod (bench/RESULTS.md).
        add_informer("pods", kube::resources::pods(), kube::strip_pod, kube::cache_storage::compact_text);
        add_informer("deployments", kube::resources::deployments(), kube::strip_workload);
        add_informer("statefulsets", kube::resources::statefulsets(), kube::strip_workload);
        add_informer("replicasets", kube::resources::replicasets(), kube::strip_workload);
        add_informer("daemonsets", kube::resources::daemonsets(), kube::strip_workload);
        // Jobs and CronJobs are targets too (recommendations only).
        add_informer("jobs", kube::resources::jobs(), kube::strip_workload);
        add_informer("cronjobs", kube::resources::cronjobs(), kube::strip_workload);
        // The HPA transform keeps status.conditions: ScaledToZero lives there.
        add_informer("horizontalpodautoscalers", kube::resources::horizontal_pod_autoscalers(), kube::strip_hpa);
        add_informer("nodes", kube::resources::nodes(), kube::strip_node);
        add_informer("namespaces", kube::resources::namespaces(), kube::strip_generic);
        add_informer("attunepolicies", kube::resources::attune_policies(), kube::strip_generic);
        // The two defaults tiers of the merge (built-in < AttuneDefaults < AttuneNamespaceDefaults < policy).
        add_informer("attunedefaults", kube::resources::attune_defaults(), kube::strip_generic);
        add_informer("attunenamespacedefaults", kube::resources::attune_namespace_defaults(), kube::strip_generic);
        // The executor's admission gates read LimitRanges and ResourceQuotas.
        add_informer("limitranges", kube::resources::limit_ranges(), kube::strip_generic);
        add_informer("resourcequotas", kube::resources::resource_quotas(), kube::strip_generic);

        controller::cache_views views;
        views.deployments = &informers_.at("deployments")->cache();
        views.statefulsets = &informers_.at("statefulsets")->cache();
        views.replicasets = &informers_.at("replicasets")->cache();
        views.daemonsets = &informers_.at("daemonsets")->cache();
        views.jobs = &informers_.at("jobs")->cache();
        views.cronjobs = &informers_.at("cronjobs")->cache();
        views.hpas = &informers_.at("horizontalpodautoscalers")->cache();
        views.policies = &informers_.at("attunepolicies")->cache();
        views.pods = &informers_.at("pods")->cache();
        views.cluster_defaults = &informers_.at("attunedefaults")->cache();
        views.namespace_defaults = &informers_.at("attunenamespacedefaults")->cache();
        views.synced = [this](std::string_view what) { return cache_synced(what); };
        controller::controller_options co;
        co.workers = opts.workers;
        co.validation.allow_local_metrics_addresses = opts.allow_local_metrics_addresses;
        co.validation.allow_secret_reads = opts.allow_secret_reads;
        co.prometheus.query_timeout = std::chrono::milliseconds(opts.prometheus_query_timeout_ms);
        co.prometheus.bearer_token_file = opts.prometheus_bearer_token_file;
        controller_ = std::make_unique<controller::controller>(io.get_executor(), client_, &events_,
                                                               metrics_.controller, views, co);
        informers_.at("deployments")->add_handler(controller_->on_workload_change("Deployment"));
        informers_.at("statefulsets")->add_handler(controller_->on_workload_change("StatefulSet"));
        informers_.at("replicasets")->add_handler(controller_->on_workload_change("ReplicaSet"));
        informers_.at("daemonsets")->add_handler(controller_->on_workload_change("DaemonSet"));
        informers_.at("jobs")->add_handler(controller_->on_workload_change("Job"));
        informers_.at("cronjobs")->add_handler(controller_->on_workload_change("CronJob"));
        informers_.at("horizontalpodautoscalers")->add_handler(controller_->on_hpa_change());
        informers_.at("attunepolicies")->add_handler(controller_->on_policy_change());
        informers_.at("attunedefaults")->add_handler(controller_->on_defaults_change(true));
        informers_.at("attunenamespacedefaults")->add_handler(controller_->on_defaults_change(false));
        // Pods give the recommender its live baseline and pod names.
        informers_.at("pods")->add_handler(controller_->on_pod_change());
        // The resize executor (issue #9): its input is the controller's
        // recommendation store; pod changes move the resizes it follows and
        // its node index; its Events share the controller's bounded queue.
        controller::executor_caches ec;
        ec.views = views;
        ec.nodes = &informers_.at("nodes")->cache();
        ec.namespaces = &informers_.at("namespaces")->cache();
        ec.limit_ranges = &informers_.at("limitranges")->cache();
        ec.resource_quotas = &informers_.at("resourcequotas")->cache();
        controller::executor_options eo;
        eo.workers = opts.workers;
        executor_ = std::make_unique<controller::resize_executor>(io.get_executor(), client_, &controller_->events(),
                                                                  metrics_.executor, ec, controller_->store(), eo);
        executor_->set_instant_query([this](std::shared_ptr<const core::EffectivePolicy> policy, std::string query) {
            return controller_->recommender().instant(std::move(policy), std::move(query));
        });
        informers_.at("pods")->add_handler(executor_->on_pod_change());
        // The resize status (history, counts, ResizeBlocked/Resizing/Degraded)
        // is written by the aggregator, the policy status's one writer.
        controller_->aggregator().set_resize_ledger(&executor_->ledger());
        executor_->on_ledger_change([this](const std::string& ns, const std::string& policy) {
            controller_->aggregator().refresh(ns, policy);
        });
        controller_->store().on_change([this](const controller::object_key& k) { executor_->on_recommendation_change(k); });

        if (opts.leader_elect) {
            kube::leader_election_config lc;
            lc.ns = opts.leader_election_namespace.empty() ? default_lease_namespace() : opts.leader_election_namespace;
            lc.name = opts.leader_election_id;
            lc.identity = identity_;
            elector_ = std::make_unique<kube::leader_elector>(client_, lc);
            // Every write (status, Events, and the executor's) is fenced on
            // the lease: none leaves once the renew deadline passed without a
            // renewal, retries included. The lease itself goes through
            // client::direct, which the fence does not see.
            client_.set_write_fence(
                [this](std::chrono::steady_clock::time_point now) { return elector_->is_leader_at(now); });
            elector_->on_started_leading([this] { start_workers(); });
            elector_->on_stopped_leading([this] {
                if (stopping_) return;  // our own release at shutdown
                spdlog::error("lost the leader lease; exiting so that another replica takes over identity={}",
                              identity_);
                begin_shutdown(1);
            });
        }
    }

    // Throws std::system_error when an address cannot be bound.
    void listen() {
        auto handler = [this](std::string_view target) { return serve(target, true); };
        metrics_server_ = std::make_unique<probe_server>(io_.get_executor(), handler);
        metrics_server_->listen(opts_.metrics.host, opts_.metrics.port);
        spdlog::info("serving /metrics /healthz /readyz address={}:{}", opts_.metrics.host, metrics_server_->port());
        if (!opts_.health.host.empty()) {
            health_server_ = std::make_unique<probe_server>(
                io_.get_executor(), [this](std::string_view target) { return serve(target, false); });
            health_server_->listen(opts_.health.host, opts_.health.port);
            spdlog::info("serving /healthz /readyz address={}:{}", opts_.health.host, health_server_->port());
        }
    }

    void start() {
        signals_.async_wait([this](const boost::system::error_code& ec, int sig) {
            if (ec) return;
            spdlog::info("signal received signal={}", sig == SIGTERM ? "SIGTERM" : "SIGINT");
            begin_shutdown(0);
        });
        spawn("probe-server", [this] { return metrics_server_->run(); });
        if (health_server_) spawn("health-server", [this] { return health_server_->run(); });
        for (auto& [name, inf] : informers_) {
            auto* i = inf.get();
            spawn("informer/" + name, [i] { return i->run(); });
        }
        asio::co_spawn(io_, probe_capabilities(), asio::detached);
        asio::co_spawn(io_, wait_for_sync(), asio::detached);
        spawn("vpa-api-watch", [this] { return watch_for_vpa_api(); });
    }

    int exit_code() const noexcept { return exit_code_; }

private:
    static kube::client_settings settings(const manager_options& o) {
        kube::client_settings s;
        s.qps = o.kube_qps;
        s.burst = o.kube_burst;
        return s;
    }

    void add_informer(const std::string& name, kube::resource_type type, kube::transform_fn transform,
                      kube::cache_storage storage = kube::cache_storage::tree) {
        kube::informer_options io;
        io.type = std::move(type);
        io.transform = std::move(transform);
        io.storage = storage;
        informers_.emplace(name, std::make_unique<kube::informer>(client_, std::move(io)));
    }

    // Every long-lived task goes through supervise(): failures are logged,
    // counted and restarted at this one place.
    void spawn(std::string task, std::function<asio::awaitable<void>()> body) {
        supervisors_.push_back(kube::spawn_supervised(io_.get_executor(), std::move(task), std::move(body),
                                                      kube::backoff_policy{500ms, 2.0, 30s, 0.2},
                                                      &metrics_.controller.coroutine_restarts));
    }

    // The informer of `what` (a workload kind, a defaults kind, the VPAs) has listed once.
    bool cache_synced(std::string_view what) const {
        static const std::map<std::string_view, std::string_view> informer_of = {
            {"Deployment", "deployments"}, {"StatefulSet", "statefulsets"}, {"ReplicaSet", "replicasets"},
            {"DaemonSet", "daemonsets"},   {"Job", "jobs"},                  {"CronJob", "cronjobs"},
            {"AttuneDefaults", "attunedefaults"}, {"AttuneNamespaceDefaults", "attunenamespacedefaults"}};
        if (what == "VerticalPodAutoscaler") return vpa_informer_ && vpa_informer_->has_synced();
        auto it = informer_of.find(what);
        if (it == informer_of.end()) return true;
        auto inf = informers_.find(std::string(it->second));
        return inf != informers_.end() && inf->second->has_synced();
    }

    // The VPA informer starts only once the VPA API is served (its CRD may
    // come later than the manager, or never): looked for every minute until
    // found. Its sync then gives every policy a pass, so VPA-source policies
    // read it.
    asio::awaitable<void> watch_for_vpa_api() {
        asio::steady_timer t(io_);
        while (!stopping_ && !vpa_informer_) {
            auto r = co_await client_.get_path("/apis/autoscaling.k8s.io/v1");
            bool served = false;
            if (r)
                if (const auto* list = core::array_at(r.value(), {"resources"}))
                    for (const auto& res : *list) served = served || core::string_at(res, {"name"}) == "verticalpodautoscalers";
            if (served) {
                kube::informer_options io;
                io.type = kube::resources::vertical_pod_autoscalers();
                io.transform = kube::strip_generic;
                vpa_informer_ = std::make_unique<kube::informer>(client_, std::move(io));
                vpa_informer_->add_handler(controller_->on_vpa_change());
                auto* i = vpa_informer_.get();
                spawn("informer/verticalpodautoscalers", [i] { return i->run(); });
                controller_->set_vpa_cache(&vpa_informer_->cache());
                spdlog::info("the VerticalPodAutoscaler API is served; watching VPAs");
                break;
            }
            t.expires_after(60s);
            co_await t.async_wait(asio::as_tuple(asio::use_awaitable));
        }
        while (!stopping_ && vpa_informer_ && !vpa_informer_->has_synced()) {
            t.expires_after(200ms);
            co_await t.async_wait(asio::as_tuple(asio::use_awaitable));
        }
        if (!stopping_ && vpa_informer_) controller_->enqueue_all_policies();
    }

    probe_response serve(std::string_view target, bool with_metrics) {
        const auto path = strip_query(target);
        if (path == "/metrics" && with_metrics)
            return {200, "text/plain; version=0.0.4; charset=utf-8", metrics_.text()};
        if (path == "/healthz") return {200, "text/plain; charset=utf-8", "ok\n"};
        if (path == "/readyz") {
            if (stopping_) return {503, "text/plain; charset=utf-8", "shutting down\n"};
            if (ready_) return {200, "text/plain; charset=utf-8", "ok\n"};
            std::string body = "informers not synced:";
            for (const auto& [name, inf] : informers_)
                if (!inf->has_synced()) body += " " + name;
            return {503, "text/plain; charset=utf-8", body + "\n"};
        }
        return {404, "text/plain; charset=utf-8", "not found\n"};
    }

    asio::awaitable<void> probe_capabilities() {
        try {
            const auto probes = co_await kube::probe_all(client_);
            auto decided = core::decide_capabilities(probes.version, probes.resources, probes.openapi, probes.nodes);
            const bool probed = decided.ok();
            auto caps = probed ? decided.value() : core::safe_defaults();
            controller_->set_capabilities(caps);
            executor_->set_capabilities(caps);
            const auto& c = controller_->capabilities();
            spdlog::info(
                "capabilities source={} git_version={} major={} minor={} pods_resize={} pod_level_resources_field={} "
                "in_place_pod_level_resources={} declared_features_reported={} hpa_scale_to_zero={} "
                "allow_in_place_memory_limit_decrease={} in_place_sidecar_resize={} "
                "scheduler_resize_preemption={} memory_backed_volume_resize={} exclusive_cpu_in_place={} "
                "decision_error=\"{}\" version_error=\"{}\" resources_error=\"{}\" openapi_error=\"{}\" "
                "nodes_error=\"{}\"",
                probed ? "probed" : "safe_defaults", c.git_version.empty() ? "unknown" : c.git_version, c.major,
                c.minor, c.pods_resize, c.pod_level_resources_field, c.in_place_pod_level_resources,
                c.declared_features_reported, c.hpa_scale_to_zero, c.allow_in_place_memory_limit_decrease, c.in_place_sidecar_resize,
                c.scheduler_resize_preemption,
                c.memory_backed_volume_resize, c.exclusive_cpu_in_place, probed ? "" : decided.error().message,
                probes.version.error, probes.resources.error, probes.openapi.error, probes.nodes.error);
        } catch (const std::exception& e) {
            metrics_.controller.coroutine_restarts.Add({{"task", "capabilities"}}).Increment();
            controller_->set_capabilities(core::safe_defaults());
            executor_->set_capabilities(core::safe_defaults());
            spdlog::error("capabilities probe failed; using safe defaults error=\"{}\"", e.what());
        }
    }

    asio::awaitable<void> wait_for_sync() {
        asio::steady_timer t(io_);
        const auto started = std::chrono::steady_clock::now();
        auto last_report = started;
        for (;;) {
            if (stopping_) co_return;
            bool all = true;
            for (const auto& [name, inf] : informers_) all = all && inf->has_synced();
            if (all) break;
            const auto now = std::chrono::steady_clock::now();
            if (now - last_report > 30s) {
                last_report = now;
                std::string missing;
                for (const auto& [name, inf] : informers_)
                    if (!inf->has_synced()) missing += (missing.empty() ? "" : ",") + name;
                spdlog::warn("informers still not synced informers={} waited_s={}", missing,
                             std::chrono::duration_cast<std::chrono::seconds>(now - started).count());
            }
            t.expires_after(100ms);
            co_await t.async_wait(asio::as_tuple(asio::use_awaitable));
        }
        ready_ = true;
        metrics_.controller.informers_synced.Set(1);
        spdlog::info("informers synced pods={} workloads={} hpas={} policies={} elapsed_ms={}",
                     informers_.at("pods")->cache().size(),
                     informers_.at("deployments")->cache().size() + informers_.at("statefulsets")->cache().size() +
                         informers_.at("replicasets")->cache().size() + informers_.at("daemonsets")->cache().size() +
                         informers_.at("jobs")->cache().size() + informers_.at("cronjobs")->cache().size(),
                     informers_.at("horizontalpodautoscalers")->cache().size(),
                     informers_.at("attunepolicies")->cache().size(),
                     std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now() - started)
                         .count());
        if (elector_) {
            spawn("leader-election", [this]() -> asio::awaitable<void> {
                co_await elector_->run();
                elector_done_ = true;
            });
        } else {
            start_workers();
        }
    }

    void start_workers() {
        if (workers_started_ || stopping_) return;
        workers_started_ = true;
        spdlog::info("starting workers workers={}", opts_.workers);
        controller_->enqueue_all_policies();
        spawn("status-aggregator", [this] { return controller_->aggregator().run(); });
        spawn("status-writer", [this] { return controller_->aggregator().run_writer(); });
        spawn("event-queue", [this] { return controller_->events().run(); });
        for (int i = 0; i < opts_.workers; ++i) spawn("worker", [this] { return controller_->run_worker(); });
        executor_->enqueue_all();
        for (int i = 0; i < opts_.workers; ++i)
            spawn("resize-worker", [this] { return executor_->run_worker(); });
        spawn("event-flush", [this]() -> asio::awaitable<void> {
            asio::steady_timer t(io_);
            while (!stopping_) {
                t.expires_after(30s);
                co_await t.async_wait(asio::as_tuple(asio::use_awaitable));
                if (!stopping_) co_await events_.flush();
            }
        });
    }

    void begin_shutdown(int code) {
        if (stopping_) return;
        stopping_ = true;
        exit_code_ = code;
        spdlog::info("shutting down: no new work, closing watches, releasing the lease");
        deadline_.expires_after(kShutdownDeadline);
        deadline_.async_wait([this](const boost::system::error_code& ec) {
            if (ec) return;
            spdlog::error("shutdown deadline passed; stopping now deadline_s={}", kShutdownDeadline.count());
            io_.stop();
        });
        for (auto& s : supervisors_) s.request_stop();
        controller_->shut_down();
        executor_->shut_down();
        for (auto& [name, inf] : informers_) inf->stop();
        if (vpa_informer_) vpa_informer_->stop();
        asio::co_spawn(io_, finish_shutdown(), asio::detached);
    }

    asio::awaitable<void> finish_shutdown() {
        if (elector_) {
            elector_->stop();
            asio::steady_timer t(io_);
            const auto until = std::chrono::steady_clock::now() + kLeaseReleaseWait;
            while (!elector_done_ && std::chrono::steady_clock::now() < until) {
                t.expires_after(50ms);
                co_await t.async_wait(asio::as_tuple(asio::use_awaitable));
            }
            if (!elector_done_) spdlog::warn("lease not released in time");
        }
        client_.shutdown();
        if (metrics_server_) metrics_server_->stop();
        if (health_server_) health_server_->stop();
        boost::system::error_code ignored;
        signals_.cancel(ignored);
        spdlog::info("stopped exit_code={}", exit_code_);
        // Anything still pending (a request inside its timeout) is abandoned.
        io_.stop();
    }

    asio::io_context& io_;
    const manager_options& opts_;
    std::string identity_;
    manager_metrics metrics_;
    kube::client client_;
    kube::event_recorder events_;
    std::map<std::string, std::unique_ptr<kube::informer>> informers_;
    std::unique_ptr<controller::controller> controller_;
    std::unique_ptr<controller::resize_executor> executor_;
    std::unique_ptr<kube::informer> vpa_informer_;  // started once the VPA API is served
    std::unique_ptr<kube::leader_elector> elector_;
    std::unique_ptr<probe_server> metrics_server_, health_server_;
    asio::signal_set signals_;
    asio::steady_timer deadline_;
    bool ready_ = false;
    bool stopping_ = false;
    std::vector<kube::supervisor_handle> supervisors_;
    bool workers_started_ = false;
    bool elector_done_ = false;
    int exit_code_ = 0;
};

}  // namespace

int run_manager(const manager_options& opts) {
    kube::rest_config cfg;
    try {
        cfg = kube::load_default_config(opts.kubeconfig, opts.context, opts.allow_insecure_tls);
    } catch (const std::exception& e) {
        spdlog::error("cannot load the cluster configuration error=\"{}\"", e.what());
        return 1;
    }
    spdlog::info("starting attune-manager host={} port={} context={} workers={} leader_elect={} kube_qps={} "
                 "kube_burst={} allow_local_metrics_addresses={} allow_secret_reads={} prometheus_query_timeout_ms={} "
                 "prometheus_bearer_token_file=\"{}\"",
                 cfg.host, cfg.port, cfg.context, opts.workers, opts.leader_elect, opts.kube_qps, opts.kube_burst,
                 opts.allow_local_metrics_addresses, opts.allow_secret_reads, opts.prometheus_query_timeout_ms,
                 opts.prometheus_bearer_token_file);
    // io_context and manager are deliberately never destroyed: io.stop()
    // may leave coroutine frames that still point into the manager, and the
    // process exits right after. The OS reclaims both.
    auto* io = new asio::io_context(1);
    manager* m = nullptr;
    try {
        m = new manager(*io, opts, std::move(cfg));
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
