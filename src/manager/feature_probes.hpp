#pragma once
// The HTTP routes: /metrics, /healthz and /readyz on --metrics-bind-address,
// and /healthz and /readyz alone, plain, on --health-probe-bind-address when
// set. With --metrics-secure (the default) the metrics address speaks TLS
// and /metrics needs a bearer token allowed to get it (metrics_authorizer);
// /healthz and /readyz there need none.
#include "manager_context.hpp"
#include "metrics_authorizer.hpp"
#include "probe_server.hpp"

#include <attune/http/https_server.hpp>
#include <attune/webhook/certificate_files.hpp>

#include <boost/asio/awaitable.hpp>

#include <functional>
#include <memory>
#include <string>

namespace attune::manager {

class probes_feature {
public:
    // `not_ready` answers /readyz: empty when ready, else the 503 body.
    probes_feature(manager_context& ctx, std::function<std::string()> not_ready);

    // Throws std::system_error when an address cannot be bound, and
    // std::runtime_error when --metrics-cert-dir holds no usable certificate.
    void listen();
    // Spawns the metrics server; the health server is started by start_health().
    void start_metrics();
    void start_health();
    void stop();

private:
    probe_response serve(std::string_view target, bool with_metrics) const;
    boost::asio::awaitable<http::server_reply> serve_secure(http::server_request req);
    // Self-signed, or from --metrics-cert-dir (certificate_files, re-read
    // every 30 s, as the webhook's).
    void load_certificate();

    manager_context& ctx_;
    std::function<std::string()> not_ready_;
    std::unique_ptr<probe_server> metrics_server_, health_server_;
    std::unique_ptr<http::https_server> secure_server_;
    std::unique_ptr<metrics_authorizer> authorizer_;
    std::unique_ptr<webhook::certificate_files> cert_files_;
};

}  // namespace attune::manager
