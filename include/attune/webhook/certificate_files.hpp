#pragma once
// Serving the webhook from certificate files another party maintains
// (cert-manager's Secret mounted at a directory: tls.crt and tls.key): the
// server takes them at start and again whenever they change, so a renewal
// needs no restart. The caBundle is then cert-manager's CA injector's job.
#include <attune/http/https_server.hpp>
#include <attune/webhook/metrics.hpp>

#include <boost/asio/awaitable.hpp>

#include <chrono>
#include <memory>
#include <string>

namespace attune::webhook {

class certificate_files {
public:
    certificate_files(http::https_server& server, std::string dir, std::chrono::seconds poll, webhook_metrics& metrics);
    ~certificate_files();

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
