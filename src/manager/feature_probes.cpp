#include "feature_probes.hpp"

#include <attune/webhook/pki.hpp>

#include <spdlog/spdlog.h>

#include <chrono>
#include <stdexcept>
#include <unistd.h>

namespace attune::manager {

namespace {

std::string strip_query(std::string_view target) {
    return std::string(target.substr(0, target.find('?')));
}

std::int64_t unix_now() {
    return std::chrono::duration_cast<std::chrono::seconds>(std::chrono::system_clock::now().time_since_epoch())
        .count();
}

// A scraper sends a GET without a body; anything larger is not a scrape.
http::ServerOptions metrics_server_options() {
    http::ServerOptions o;
    o.max_connections = 32;
    o.small_body_bytes = 4u << 10;
    o.max_large_requests = 1;
    o.max_body_bytes = 4u << 10;
    o.max_header_bytes = 16u << 10;
    o.required_content_type.clear();
    return o;
}

constexpr std::chrono::seconds kCertificatePoll{30};

}  // namespace

ProbesFeature::ProbesFeature(ManagerContext& ctx, std::function<std::string()> not_ready)
    : ctx_(ctx), not_ready_(std::move(not_ready)) {}

void ProbesFeature::load_certificate() {
    const auto& dir = ctx_.opts.metrics_cert_dir;
    if (dir.empty()) {
        // Self-signed: a scraper that does not pin it (Prometheus with
        // insecureSkipVerify, curl -k) still gets an encrypted channel for
        // its token; mount a certificate to have it verified.
        const auto now = unix_now();
        const auto ca = webhook::generate_ca("attune-metrics-ca", now - 300, now + 365 * 86400);
        char host[256] = {};
        webhook::ServingNames names;
        names.dns.push_back("localhost");
        if (gethostname(host, sizeof host - 1) == 0 && host[0] != '\0') names.dns.emplace_back(host);
        names.ips.push_back("127.0.0.1");
        const auto leaf = webhook::issue_serving_certificate(ca, names, now - 300, now + 365 * 86400);
        secure_server_->set_certificate(leaf.cert_pem + ca.cert_pem, leaf.key_pem);
        spdlog::info("metrics certificate self-signed names={}", join(names.dns));
        return;
    }
    cert_files_ = std::make_unique<webhook::CertificateFiles>(*secure_server_, dir, kCertificatePoll,
                                                              webhook::CertificateFiles::Observer{"metrics"});
    if (std::string error; !cert_files_->reload(error))
        throw std::runtime_error("--metrics-cert-dir " + dir + ": " + error);
}

void ProbesFeature::listen() {
    const auto& opts = ctx_.opts;
    if (opts.metrics_secure) {
        authorizer_ = std::make_unique<MetricsAuthorizer>(ctx_.client);
        secure_server_ =
            std::make_unique<http::HttpsServer>(ctx_.io.get_executor(),
                                                http::HttpsServer::AsyncHandler(
                                                    [this](http::ServerRequest r) { return serve_secure(r); }),
                                                metrics_server_options());
        load_certificate();
        secure_server_->listen(opts.metrics.host, opts.metrics.port);
        spdlog::info("serving /metrics /healthz /readyz address={}:{} scheme=https", opts.metrics.host,
                     secure_server_->port());
    } else {
        metrics_server_ = std::make_unique<ProbeServer>(ctx_.io.get_executor(), [this](std::string_view target) {
            return serve(target, true);
        });
        metrics_server_->listen(opts.metrics.host, opts.metrics.port);
        spdlog::info("serving /metrics /healthz /readyz address={}:{} scheme=http", opts.metrics.host,
                     metrics_server_->port());
    }
    if (!opts.health.host.empty()) {
        health_server_ = std::make_unique<ProbeServer>(ctx_.io.get_executor(), [this](std::string_view target) {
            return serve(target, false);
        });
        health_server_->listen(opts.health.host, opts.health.port);
        spdlog::info("serving /healthz /readyz address={}:{}", opts.health.host, health_server_->port());
    }
}

void ProbesFeature::start_metrics() {
    if (secure_server_) {
        ctx_.spawn("metrics-server", [this] { return secure_server_->run(); });
        if (cert_files_) ctx_.spawn("metrics-certificate", [this] { return cert_files_->run(); });
        return;
    }
    ctx_.spawn("probe-server", [this] { return metrics_server_->run(); });
}

void ProbesFeature::start_health() {
    if (health_server_) ctx_.spawn("health-server", [this] { return health_server_->run(); });
}

void ProbesFeature::stop() {
    if (metrics_server_) metrics_server_->stop();
    if (secure_server_) secure_server_->stop();
    if (cert_files_) cert_files_->stop();
    if (health_server_) health_server_->stop();
}

boost::asio::awaitable<http::ServerReply> ProbesFeature::serve_secure(http::ServerRequest req) {
    const auto path = strip_query(req.target);
    if (req.method != "GET" && req.method != "HEAD")
        co_return http::ServerReply(405, "text/plain; charset=utf-8", "method not allowed\n");
    if (path == "/metrics") {
        auto refused = co_await authorizer_->refusal(std::string(req.authorization), path);
        if (refused) co_return std::move(*refused);
    }
    auto r = serve(req.target, true);
    co_return http::ServerReply(r.status, std::move(r.content_type), std::move(r.body));
}

ProbeResponse ProbesFeature::serve(std::string_view target, bool with_metrics) const {
    const auto path = strip_query(target);
    if (path == "/metrics" && with_metrics)
        return {200, "text/plain; version=0.0.4; charset=utf-8", ctx_.metrics.text()};
    if (path == "/healthz") return {200, "text/plain; charset=utf-8", "ok\n"};
    if (path == "/readyz") {
        auto reason = not_ready_();
        if (reason.empty()) return {200, "text/plain; charset=utf-8", "ok\n"};
        return {503, "text/plain; charset=utf-8", std::move(reason)};
    }
    return {404, "text/plain; charset=utf-8", "not found\n"};
}

}  // namespace attune::manager
