#include "app.hpp"

#include "informer_catalog.hpp"
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
#include <attune/kube/informer_registry.hpp>
#include <attune/kube/kubeconfig.hpp>
#include <attune/kube/leader_election.hpp>
#include <attune/kube/transforms.hpp>
#include <attune/webhook/webhook_service.hpp>

#include <boost/asio/as_tuple.hpp>
#include <boost/asio/co_spawn.hpp>
#include <boost/asio/detached.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/signal_set.hpp>
#include <boost/asio/ssl/context.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/use_awaitable.hpp>

#include <spdlog/fmt/ranges.h>
#include <spdlog/spdlog.h>

#include <unistd.h>
#if defined(__GLIBC__)
#include <malloc.h>
#endif

#include <fstream>
#include <map>
#include <random>
#include <sstream>

namespace attune::manager {
namespace asio = boost::asio;
using namespace std::chrono_literals;

namespace {

constexpr auto kShutdownDeadline = 10s;  // SIGTERM to exit, whatever hangs
constexpr auto kLeaseReleaseWait = 5s;   // part of the above, for the lease release
constexpr auto kWebhookDrain = 3s;       // part of the above: requests already arriving are answered

std::string leader_identity() {
    char host[256] = {};
    if (gethostname(host, sizeof host - 1) != 0) std::snprintf(host, sizeof host, "unknown");
    std::mt19937_64 rng(std::random_device{}());
    char suffix[17];
    std::snprintf(suffix, sizeof suffix, "%016llx", static_cast<unsigned long long>(rng()));
    return std::string(host) + "_" + std::string(suffix, 8);
}

std::string pod_namespace() {
    std::ifstream f("/var/run/secrets/kubernetes.io/serviceaccount/namespace");
    std::string ns;
    if (f && std::getline(f, ns) && !ns.empty()) return ns;
    return "";
}

std::string default_lease_namespace() {
    auto ns = pod_namespace();
    return ns.empty() ? "default" : ns;
}

// Resident set size from /proc/self/statm (0 where unreadable).
long long rss_kib() {
    std::ifstream f("/proc/self/statm");
    long long pages_total = 0, pages_resident = 0;
    if (!(f >> pages_total >> pages_resident)) return 0;
    return pages_resident * (sysconf(_SC_PAGESIZE) / 1024);
}

std::string join(const std::vector<std::string>& v) {
    std::string out;
    for (const auto& s : v) out += (out.empty() ? "" : ",") + s;
    return out;
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
          signals_(io, SIGTERM, SIGINT), deadline_(io), sync_wait_(io), scope_(opts.watch_namespaces) {
        define_informers(
            informers_, opts.watch_list, opts.protobuf_lists,
            [this] {
                release_free_memory_soon();
                sync_wait_.cancel();  // readiness at the last informer's sync, not at the next poll
            },
            scope_);
        if (!scope_.cluster_wide()) fence_namespaces();
        // What each enabled feature reads; only these informers run.
        // Recommendations read workloads, HPAs, policies, the two defaults
        // tiers and pods (the live baseline and pod names); the webhook adds
        // namespaces. The resize executor adds nodes (its node-fit gate),
        // namespaces (opt-out annotations), LimitRanges and ResourceQuotas
        // (its admission gates).
        for (const char* name : {"deployments", "statefulsets", "replicasets", "daemonsets", "jobs", "cronjobs",
                                 "horizontalpodautoscalers", "attunepolicies", "attunedefaults",
                                 "attunenamespacedefaults", "pods", "nodes", "namespaces", "limitranges",
                                 "resourcequotas"})
            informers_.need(name);
        for (const auto& name : opts.start_informers) informers_.need(name);

        policy::cache_views views;
        views.deployments = &informers_.need("deployments").cache();
        views.statefulsets = &informers_.need("statefulsets").cache();
        views.replicasets = &informers_.need("replicasets").cache();
        views.daemonsets = &informers_.need("daemonsets").cache();
        views.jobs = &informers_.need("jobs").cache();
        views.cronjobs = &informers_.need("cronjobs").cache();
        views.hpas = &informers_.need("horizontalpodautoscalers").cache();
        views.policies = &informers_.need("attunepolicies").cache();
        views.pods = &informers_.need("pods").cache();
        views.cluster_defaults = &informers_.need("attunedefaults").cache();
        views.namespace_defaults = &informers_.need("attunenamespacedefaults").cache();
        views.synced = [this](std::string_view what) { return cache_synced(what); };
        controller::controller_options co;
        co.workers = opts.workers;
        co.validation.allow_local_metrics_addresses = opts.allow_local_metrics_addresses;
        co.validation.allow_secret_reads = opts.allow_secret_reads;
        co.prometheus.query_timeout = std::chrono::milliseconds(opts.prometheus_query_timeout_ms);
        co.prometheus.bearer_token_file = opts.prometheus_bearer_token_file;
        co.prometheus.token_origins = opts.prometheus_token_origins;
        co.validation.allow_plaintext_credentials = opts.allow_plaintext_prometheus_credentials;
        co.validation.allow_insecure_tls = opts.allow_prometheus_insecure_tls;
        controller_ = std::make_unique<controller::controller>(io.get_executor(), client_, &events_,
                                                               metrics_.controller, views, co);
        informers_.need("deployments").add_handler(controller_->on_workload_change("Deployment"));
        informers_.need("statefulsets").add_handler(controller_->on_workload_change("StatefulSet"));
        informers_.need("replicasets").add_handler(controller_->on_workload_change("ReplicaSet"));
        informers_.need("daemonsets").add_handler(controller_->on_workload_change("DaemonSet"));
        informers_.need("jobs").add_handler(controller_->on_workload_change("Job"));
        informers_.need("cronjobs").add_handler(controller_->on_workload_change("CronJob"));
        informers_.need("horizontalpodautoscalers").add_handler(controller_->on_hpa_change());
        informers_.need("attunepolicies").add_handler(controller_->on_policy_change());
        informers_.need("attunedefaults").add_handler(controller_->on_defaults_change(true));
        informers_.need("attunenamespacedefaults").add_handler(controller_->on_defaults_change(false));
        informers_.need("pods").add_handler(controller_->on_pod_change());
        // The resize executor (docs/resize.md): its input is the controller's
        // recommendation store; pod changes move the resizes it follows and
        // its node index; its Events share the controller's bounded queue.
        controller::executor_caches ec;
        ec.views = views;
        ec.nodes = &informers_.need("nodes").cache();
        ec.namespaces = &informers_.need("namespaces").cache();
        ec.limit_ranges = &informers_.need("limitranges").cache();
        ec.resource_quotas = &informers_.need("resourcequotas").cache();
        controller::executor_options eo;
        eo.workers = opts.workers;
        executor_ = std::make_unique<controller::resize_executor>(io.get_executor(), client_, &controller_->events(),
                                                                  metrics_.executor, ec, controller_->store(), eo);
        executor_->set_instant_query([this](std::shared_ptr<const core::EffectivePolicy> policy, std::string query) {
            return controller_->recommender().instant(std::move(policy), std::move(query));
        });
        informers_.need("pods").add_handler(executor_->on_pod_change());
        // The resize status (history, counts, ResizeBlocked/Resizing/Degraded)
        // is written by the aggregator, the policy status's one writer.
        controller_->aggregator().set_resize_ledger(&executor_->ledger());
        executor_->on_ledger_change([this](const std::string& ns, const std::string& policy) {
            controller_->aggregator().refresh(ns, policy);
        });
        controller_->store().on_change([this](const controller::object_key& k) { executor_->on_recommendation_change(k); });

        if (opts.webhook.enabled) make_webhook();

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
        if (webhook_) {
            webhook_->listen();
            spdlog::info("admission webhook bound address={}:{}", opts_.webhook.bind.host, webhook_->port());
        }
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
        if (webhook_) {
            // Every replica serves admission, leader or not.
            spawn("webhook-certificates", [this] { return webhook_->run_certificates(); });
            spawn("webhook-server", [this] { return webhook_->run_server(); });
        }
        if (health_server_) spawn("health-server", [this] { return health_server_->run(); });
        std::string running;
        for (const auto& [name, inf] : informers_.needed()) {
            auto* i = inf.get();
            spawn("informer/" + name, [i] { return i->run(); });
            running += (running.empty() ? "" : ",") + name;
        }
        spdlog::info("starting informers informers={}", running);
        asio::co_spawn(io_, probe_capabilities(), asio::detached);
        asio::co_spawn(io_, wait_for_sync(), asio::detached);
        spawn("vpa-api-watch", [this] { return watch_for_vpa_api(); });
    }

    int exit_code() const noexcept { return exit_code_; }

private:
    // --watch-namespaces: no request (read or write) may name another
    // namespace than the watched ones, the Lease's and the webhook Secret's.
    // The caches hold nothing else, so nothing should try; this makes it so
    // by construction, and a bug shows as one refused request in the log
    // instead of a 403 from an apiserver that never granted it.
    void fence_namespaces() {
        auto allowed = scope_.namespaces();
        std::string own;
        if (opts_.leader_elect)
            own = opts_.leader_election_namespace.empty() ? default_lease_namespace() : opts_.leader_election_namespace;
        if (!own.empty()) allowed.push_back(own);
        if (opts_.webhook.enabled) allowed.push_back(webhook_namespace());
        spdlog::info("watching only namespaces={} requests_allowed_in={}", join(scope_.namespaces()), join(allowed));
        client_.set_namespace_fence([allowed = kube::watch_scope(std::move(allowed))](std::string_view ns) {
            return allowed.contains(ns);
        });
    }

    std::string webhook_namespace() const {
        const auto& w = opts_.webhook;
        return !w.ns.empty() ? w.ns : (pod_namespace().empty() ? "attune-system" : pod_namespace());
    }

    void make_webhook() {
        const auto& w = opts_.webhook;
        auto caches = webhook_caches(informers_);
        webhook::webhook_service_options o;
        o.host = w.bind.host;
        o.port = w.bind.port;
        o.ns = webhook_namespace();
        o.watch_scope = scope_;
        o.secret_name = w.secret_name;
        o.configuration_name = w.configuration_name;
        o.service_name = w.service_name;
        o.url = w.url;
        o.cert_dir = w.cert_dir;
        o.rotation.serving_validity = std::chrono::duration_cast<std::chrono::seconds>(w.cert_validity);
        o.rotation.ca_validity = std::chrono::duration_cast<std::chrono::seconds>(w.ca_validity);
        o.rotation.ca_overlap = std::chrono::duration_cast<std::chrono::seconds>(w.ca_overlap);
        o.resync = std::chrono::duration_cast<std::chrono::seconds>(w.cert_resync);
        o.validation.allow_local_metrics_addresses = opts_.allow_local_metrics_addresses;
        o.validation.allow_secret_reads = opts_.allow_secret_reads;
        o.server.max_connections = w.max_connections;
        o.server.max_large_requests = w.max_large_requests;
        if (w.max_body_bytes) o.server.max_body_bytes = w.max_body_bytes;
        if (!w.client_ca_file.empty()) {
            std::ifstream in(w.client_ca_file, std::ios::binary);
            std::ostringstream pem;
            pem << in.rdbuf();
            bool usable = in && pem.str().find("-----BEGIN CERTIFICATE-----") != std::string::npos;
            if (usable) {
                try {  // refused now, not at the first certificate load
                    asio::ssl::context probe(asio::ssl::context::tls_server);
                    probe.add_certificate_authority(asio::buffer(pem.str()));
                } catch (const std::exception&) {
                    usable = false;
                }
            }
            if (!usable)
                throw std::runtime_error("--webhook-client-ca " + w.client_ca_file +
                                         ": cannot read a PEM CA certificate from it");
            o.server.client_ca_pem = pem.str();
        }
        spdlog::info("admission webhook limits max_connections={} max_large_requests={} max_body_bytes={} "
                     "content_type={} client_ca={}",
                     o.server.max_connections, o.server.max_large_requests, o.server.max_body_bytes,
                     o.server.required_content_type, w.client_ca_file.empty() ? "-" : w.client_ca_file);
        spdlog::info("admission webhook enabled namespace={} secret={} configuration={} service={} url={} cert_dir={} "
                     "cert_validity={} ca_validity={} ca_overlap={}",
                     o.ns, o.secret_name, o.configuration_name, o.service_name, o.url.empty() ? "-" : o.url,
                     o.cert_dir.empty() ? "-" : o.cert_dir, core::format_duration(w.cert_validity),
                     core::format_duration(w.ca_validity), core::format_duration(w.ca_overlap));
        webhook_ = std::make_unique<webhook::webhook_service>(io_.get_executor(), client_, std::move(caches),
                                                              &controller_->capabilities(), metrics_.webhook, std::move(o));
    }

    static kube::client_settings settings(const manager_options& o) {
        kube::client_settings s;
        s.qps = o.kube_qps;
        s.burst = o.kube_burst;
        return s;
    }

    // glibc keeps freed heap pages mapped; after a list its transient
    // memory is free and trimming hands it back (bench/RESULTS.md). Several
    // informers finishing together cost one trim.
    void release_free_memory_soon() {
        if (trim_pending_) return;
        trim_pending_ = true;
        asio::post(io_, [this] {
            trim_pending_ = false;
#if defined(__GLIBC__)
            malloc_trim(0);
#endif
        });
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
        const auto* inf = informers_.find(std::string(it->second));
        return inf && inf->has_synced();
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
                vpa_informer_ = std::make_unique<kube::informer>(client_, vpa_informer(scope_));
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
            if (webhook_ && !webhook_->ready())
                return {503, "text/plain; charset=utf-8", "admission webhook not serving yet (no certificate)\n"};
            if (ready_) return {200, "text/plain; charset=utf-8", "ok\n"};
            std::string body = "informers not synced:";
            for (const auto& name : informers_.not_synced()) body += " " + name;
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
        // The OpenAPI documents were parsed whole (a few MB, once): hand it back.
        release_free_memory_soon();
    }

    asio::awaitable<void> wait_for_sync() {
        auto& t = sync_wait_;
        const auto started = std::chrono::steady_clock::now();
        auto last_report = started;
        for (;;) {
            if (stopping_) co_return;
            if (informers_.all_synced()) break;
            const auto now = std::chrono::steady_clock::now();
            if (now - last_report > 30s) {
                last_report = now;
                std::string missing;
                for (const auto& name : informers_.not_synced()) missing += (missing.empty() ? "" : ",") + name;
                spdlog::warn("informers still not synced informers={} waited_s={}", missing,
                             std::chrono::duration_cast<std::chrono::seconds>(now - started).count());
            }
            t.expires_after(1s);  // or sooner: each informer's sync cancels it
            co_await t.async_wait(asio::as_tuple(asio::use_awaitable));
        }
        ready_ = true;
        metrics_.controller.informers_synced.Set(1);
        std::string sizes;
        for (const auto& [name, inf] : informers_.needed())
            sizes += fmt::format("{}{}={}", sizes.empty() ? "" : " ", name, inf->cache().size());
        spdlog::info("informers synced {} elapsed_ms={} rss_kib={}", sizes,
                     std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now() - started)
                         .count(),
                     rss_kib());
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
        if (webhook_) webhook_->stop_certificates();
        controller_->shut_down();
        executor_->shut_down();
        for (auto& [name, inf] : informers_.needed()) inf->stop();
        if (vpa_informer_) vpa_informer_->stop();
        asio::co_spawn(io_, finish_shutdown(), asio::detached);
    }

    asio::awaitable<void> finish_shutdown() {
        if (webhook_) co_await webhook_->shutdown(kWebhookDrain);
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
    kube::informer_registry informers_{client_};
    std::unique_ptr<controller::controller> controller_;
    std::unique_ptr<controller::resize_executor> executor_;
    std::unique_ptr<kube::informer> vpa_informer_;  // started once the VPA API is served
    std::unique_ptr<kube::leader_elector> elector_;
    std::unique_ptr<probe_server> metrics_server_, health_server_;
    std::unique_ptr<webhook::webhook_service> webhook_;
    asio::signal_set signals_;
    asio::steady_timer deadline_;
    asio::steady_timer sync_wait_;
    kube::watch_scope scope_;  // --watch-namespaces; cluster-wide when empty
    bool ready_ = false;
    bool stopping_ = false;
    std::vector<kube::supervisor_handle> supervisors_;
    bool workers_started_ = false;
    bool elector_done_ = false;
    bool trim_pending_ = false;
    int exit_code_ = 0;
};

}  // namespace

int run_manager(const manager_options& opts) {
    kube::rest_config cfg;
    try {
        // A daemon has nobody at a terminal: an exec plugin never gets stdin,
        // and one that insists on it (interactiveMode Always) fails clearly.
        kube::exec_plugin_options exec;
        exec.stdin_unavailable = true;
        exec.stdin_unavailable_reason = "attune-manager runs unattended";
        cfg = kube::load_default_config(opts.kubeconfig, opts.context, opts.allow_insecure_tls, exec);
    } catch (const std::exception& e) {
        spdlog::error("cannot load the cluster configuration error=\"{}\"", e.what());
        return 1;
    }
    spdlog::info("starting attune-manager host={} port={} context={} workers={} leader_elect={} kube_qps={} "
                 "kube_burst={} allow_local_metrics_addresses={} allow_secret_reads={} prometheus_query_timeout_ms={} "
                 "prometheus_bearer_token_file=\"{}\" prometheus_token_addresses=\"{}\" "
                 "allow_plaintext_prometheus_credentials={} allow_prometheus_insecure_tls={} watch_namespaces={}",
                 cfg.host, cfg.port, cfg.context, opts.workers, opts.leader_elect, opts.kube_qps, opts.kube_burst,
                 opts.allow_local_metrics_addresses, opts.allow_secret_reads, opts.prometheus_query_timeout_ms,
                 opts.prometheus_bearer_token_file, fmt::join(opts.prometheus_token_origins, ","),
                 opts.allow_plaintext_prometheus_credentials, opts.allow_prometheus_insecure_tls,
                 opts.watch_namespaces.empty() ? std::string("*") : join(opts.watch_namespaces));
    if (!opts.prometheus_bearer_token_file.empty() && opts.prometheus_token_origins.empty())
        spdlog::warn("--prometheus-bearer-token-file is set but --prometheus-token-addresses is empty: the token is "
                     "sent to no Prometheus");
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
