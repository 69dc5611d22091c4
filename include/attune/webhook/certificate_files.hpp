#pragma once
// Serving the webhook from certificate files another party maintains
// (cert-manager's Secret mounted at a directory: tls.crt and tls.key): the
// server takes them at start and again whenever they change, so a renewal
// needs no restart. The caBundle is then cert-manager's CA injector's job.
// The manager's --metrics-cert-dir is served the same way.
#include <attune/http/https_server.hpp>
#include <attune/webhook/metrics.hpp>

#include <boost/asio/awaitable.hpp>

#include <chrono>
#include <functional>
#include <memory>
#include <string>

namespace attune::webhook {

class CertificateFiles {
public:
    // What a load tells its owner: `loaded` with the new certificate's PEM,
    // `failed` when a poll could not load. `name` goes in the log lines.
    struct Observer {
        std::string name = "webhook";
        std::function<void(const std::string& cert_pem)> loaded;
        std::function<void()> failed;
    };
    CertificateFiles(http::HttpsServer& server, std::string dir, std::chrono::seconds poll, Observer on);
    // The webhook's: its reload counter, expiry gauge and sync errors.
    CertificateFiles(http::HttpsServer& server, std::string dir, std::chrono::seconds poll, WebhookMetrics& metrics);
    ~CertificateFiles();

    // Loads the files when they changed since the last load; false (with a
    // reason in `error`) when they are missing or unusable. The server keeps
    // what it had.
    bool reload(std::string& error);
    // reload() every `poll` until stop().
    boost::asio::awaitable<void> run();
    void stop() noexcept;
    bool loaded() const noexcept;

private:
    struct impl;
    std::shared_ptr<impl> impl_;
};

}  // namespace attune::webhook
