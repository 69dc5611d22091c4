#pragma once
// Keeps the webhook's certificates without cert-manager: one Secret in the
// manager's namespace that every replica shares (created if absent, 409-safe:
// a replica that loses the race reads the winner's), the rotation the core's
// plan_certificates decides, the serving certificate hot-loaded into the
// server, and the CA bundle written into the manager's own
// MutatingWebhookConfiguration. One coroutine on the shared io_context.
#include <attune/core/admission/certificate_rotation.hpp>
#include <attune/http/https_server.hpp>
#include <attune/kube/client.hpp>
#include <attune/webhook/metrics.hpp>
#include <attune/webhook/pki.hpp>

#include <boost/asio/awaitable.hpp>

#include <chrono>
#include <functional>
#include <memory>
#include <string>

namespace attune::webhook {

struct CertificateKeeperOptions {
    CertificateKeeperOptions() = default;
    std::string ns;                     // the manager's namespace
    std::string secret_name = "attune-webhook-tls";
    std::string webhook_configuration = "attune-webhook";  // our MutatingWebhookConfiguration
    // Non-empty (local use, e.g. https://127.0.0.1:16568): every webhook's
    // clientConfig becomes {url: <this><its path>, caBundle}. Empty: only
    // caBundle is written and clientConfig.service stays.
    std::string url;
    ServingNames names;
    core::RotationSettings rotation;
    std::chrono::seconds resync{30};  // re-read the Secret: another replica may have rotated
};

struct SyncResult {
    bool ok = false;
    std::string error;            // what failed, for the log
    std::int64_t next_at = 0;     // unix seconds: when a pass is due again
};

class CertificateKeeper {
public:
    using ClockFn = std::function<std::int64_t()>;  // unix seconds

    CertificateKeeper(kube::Client& client, http::HttpsServer& server, CertificateKeeperOptions opts,
                      WebhookMetrics& metrics, ClockFn now = nullptr);
    ~CertificateKeeper();

    // One pass: read or create the Secret, generate what is due and write it
    // (a 409 re-reads and decides again), serve its certificate, publish the
    // bundle. Never throws for API errors: they come back in the result.
    boost::asio::awaitable<SyncResult> sync();

    // sync() until stop(): again at next_at, at least every `resync`, and
    // after a failure with backoff (1 s doubling to 30 s).
    boost::asio::awaitable<void> run();
    void stop() noexcept;

    // The server has a certificate from the Secret.
    bool loaded() const noexcept;
    // The bundle last published to (or found in) the webhook configuration.
    const std::string& published_bundle() const noexcept;

private:
    struct impl;
    std::shared_ptr<impl> impl_;
};

}  // namespace attune::webhook
