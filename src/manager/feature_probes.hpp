#pragma once
// The HTTP routes: /metrics, /healthz and /readyz on --metrics-bind-address,
// and /healthz and /readyz alone, plain, on --health-probe-bind-address when
// set. With --metrics-secure (the default) the metrics address speaks TLS
// and /metrics needs a bearer token allowed to get it (MetricsAuthorizer);
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

class ProbesFeature {
public:
    // `not_ready` answers /readyz: empty when ready, else the 503 body.
    ProbesFeature(ManagerContext& ctx, std::function<std::string()> not_ready);

    // Throws std::system_error when an address cannot be bound, and
    // std::runtime_error when --metrics-cert-dir holds no usable certificate.
    void listen();
    // Spawns the metrics server; the health server is started by start_health().
    void start_metrics();
    void start_health();
    void stop();

private:
    ProbeResponse serve(std::string_view target, bool with_metrics) const;
    boost::asio::awaitable<http::ServerReply> serve_secure(http::ServerRequest req);
    // Self-signed, or from --metrics-cert-dir (CertificateFiles, re-read
    // every 30 s, as the webhook's).
    void load_certificate();

    ManagerContext& ctx_;
    std::function<std::string()> not_ready_;
    std::unique_ptr<ProbeServer> metrics_server_, health_server_;
    std::unique_ptr<http::HttpsServer> secure_server_;
    std::unique_ptr<MetricsAuthorizer> authorizer_;
    std::unique_ptr<webhook::CertificateFiles> cert_files_;
};

}  // namespace attune::manager
