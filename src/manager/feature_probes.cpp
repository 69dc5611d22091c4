#include "feature_probes.hpp"

#include <spdlog/spdlog.h>

namespace attune::manager {

namespace {

std::string strip_query(std::string_view target) {
    return std::string(target.substr(0, target.find('?')));
}

}  // namespace

probes_feature::probes_feature(manager_context& ctx, std::function<std::string()> not_ready)
    : ctx_(ctx), not_ready_(std::move(not_ready)) {}

void probes_feature::listen() {
    const auto& opts = ctx_.opts;
    metrics_server_ = std::make_unique<probe_server>(ctx_.io.get_executor(),
                                                     [this](std::string_view target) { return serve(target, true); });
    metrics_server_->listen(opts.metrics.host, opts.metrics.port);
    spdlog::info("serving /metrics /healthz /readyz address={}:{}", opts.metrics.host, metrics_server_->port());
    if (!opts.health.host.empty()) {
        health_server_ = std::make_unique<probe_server>(
            ctx_.io.get_executor(), [this](std::string_view target) { return serve(target, false); });
        health_server_->listen(opts.health.host, opts.health.port);
        spdlog::info("serving /healthz /readyz address={}:{}", opts.health.host, health_server_->port());
    }
}

void probes_feature::start_metrics() {
    ctx_.spawn("probe-server", [this] { return metrics_server_->run(); });
}

void probes_feature::start_health() {
    if (health_server_) ctx_.spawn("health-server", [this] { return health_server_->run(); });
}

void probes_feature::stop() {
    if (metrics_server_) metrics_server_->stop();
    if (health_server_) health_server_->stop();
}

probe_response probes_feature::serve(std::string_view target, bool with_metrics) const {
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
