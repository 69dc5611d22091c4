#pragma once
// The admission webhook as the manager runs it: the HTTPS server, the
// admission handler over the manager's informer caches, and the source of
// its certificate (the self-managed Secret, or cert-manager's files). Every
// replica serves, leader or not.
#include <attune/core/model/capabilities.hpp>
#include <attune/core/admission/certificate_rotation.hpp>
#include <attune/kube/client.hpp>
#include <attune/webhook/admission_handler.hpp>
#include <attune/webhook/metrics.hpp>
#include <attune/webhook/pki.hpp>

#include <boost/asio/any_io_executor.hpp>
#include <boost/asio/awaitable.hpp>

#include <chrono>
#include <memory>
#include <string>

namespace attune::webhook {

struct WebhookServiceOptions {
    WebhookServiceOptions() = default;
    std::string host = "127.0.0.1";
    std::string port = "9443";
    std::string ns;  // the manager's namespace: the Secret's, and whose pods are never sized
    kube::WatchScope watch_scope;  // --watch-namespaces: other namespaces are allowed unchanged
    std::string secret_name = "attune-webhook-tls";
    std::string configuration_name = "attune-webhook";
    std::string service_name = "attune-webhook";
    std::string url;       // local: clientConfig.url base
    std::string cert_dir;  // cert-manager: serve these files instead of the Secret
    core::RotationSettings rotation;
    std::chrono::seconds resync{30};
    http::ServerOptions server;
    core::PolicyValidationOptions validation;  // the controller's, for the admission path
};

// The serving certificate's names: <svc>.<ns>.svc and
// <svc>.<ns>.svc.cluster.local, plus the url's host (an IP SAN for an IP).
ServingNames webhook_names(const WebhookServiceOptions& o);

class WebhookService {
public:
    WebhookService(boost::asio::any_io_executor ex, kube::Client& client, AdmissionCaches caches,
                   const core::Capabilities* caps, WebhookMetrics& metrics, WebhookServiceOptions opts);
    ~WebhookService();

    // Binds the listener; throws std::system_error when the address is unusable.
    void listen();
    unsigned short port() const;

    // Keeps the certificate current (never returns before stop_certificates()).
    boost::asio::awaitable<void> run_certificates();
    // Waits for the first certificate, then accepts until shutdown().
    boost::asio::awaitable<void> run_server();
    // Serving: a certificate is loaded and the server accepts.
    bool ready() const noexcept;

    void stop_certificates() noexcept;
    // No new connections; requests already arriving are answered (bounded by `grace`).
    boost::asio::awaitable<void> shutdown(std::chrono::milliseconds grace);

private:
    struct impl;
    std::unique_ptr<impl> impl_;
};

}  // namespace attune::webhook
