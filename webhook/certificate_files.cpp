#include <attune/webhook/certificate_files.hpp>
#include <attune/webhook/pki.hpp>

#include <boost/asio/as_tuple.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/this_coro.hpp>
#include <boost/asio/use_awaitable.hpp>

#include <spdlog/spdlog.h>

#include <fstream>
#include <sstream>

namespace attune::webhook {
namespace asio = boost::asio;

namespace {
std::optional<std::string> slurp(const std::string& path) {
    std::ifstream f(path, std::ios::binary);
    if (!f) return std::nullopt;
    std::ostringstream ss;
    ss << f.rdbuf();
    return ss.str();
}
}  // namespace

struct CertificateFiles::impl {
    http::HttpsServer& server;
    std::string dir;
    std::chrono::seconds poll;
    Observer on;
    std::string loaded_cert, loaded_key;
    bool stopping = false;
    std::unique_ptr<asio::steady_timer> timer;
};

CertificateFiles::CertificateFiles(http::HttpsServer& server, std::string dir, std::chrono::seconds poll, Observer on)
    : impl_(std::make_shared<impl>(impl{server, std::move(dir), poll, std::move(on), {}, {}, false, nullptr})) {}

CertificateFiles::CertificateFiles(http::HttpsServer& server, std::string dir, std::chrono::seconds poll,
                                   WebhookMetrics& metrics)
    : CertificateFiles(server, std::move(dir), poll,
                       Observer{"webhook",
                                [&metrics](const std::string& cert) {
                                    metrics.certificate_reloads.Increment();
                                    if (const auto info = certificate_info(cert))
                                        metrics.certificate_not_after.Add({{"certificate", "serving"}})
                                            .Set(static_cast<double>(info->not_after));
                                },
                                [&metrics] {
                                    metrics.certificate_sync_errors.Add({{"stage", "files"}}).Increment();
                                }}) {}

CertificateFiles::~CertificateFiles() = default;

bool CertificateFiles::reload(std::string& error) {
    auto& s = *impl_;
    const auto cert = slurp(s.dir + "/tls.crt");
    const auto key = slurp(s.dir + "/tls.key");
    if (!cert || !key || cert->empty() || key->empty()) {
        error = "no tls.crt and tls.key in " + s.dir;
        return false;
    }
    // A renewal writes both files: wait until they belong together.
    if (*cert == s.loaded_cert && *key == s.loaded_key) return true;
    if (!key_matches(*cert, *key)) {
        error = s.dir + "/tls.key does not match " + s.dir + "/tls.crt (a renewal half written?)";
        return false;
    }
    try {
        s.server.set_certificate(*cert, *key);
    } catch (const std::exception& e) {
        error = e.what();
        return false;
    }
    s.loaded_cert = *cert;
    s.loaded_key = *key;
    if (s.on.loaded) s.on.loaded(*cert);
    const auto info = certificate_info(*cert);
    spdlog::info("{} serving certificate loaded from files dir={} fingerprint={} not_after={}", s.on.name, s.dir,
                 info ? info->fingerprint : "", info ? info->not_after : 0);
    return true;
}

asio::awaitable<void> CertificateFiles::run() {
    auto self = impl_;
    self->timer = std::make_unique<asio::steady_timer>(co_await asio::this_coro::executor);
    while (!self->stopping) {
        std::string error;
        if (!reload(error)) {
            if (self->on.failed) self->on.failed();
            spdlog::warn("{} certificate files not loaded dir={} error=\"{}\"", self->on.name, self->dir, error);
        }
        self->timer->expires_after(self->poll);
        co_await self->timer->async_wait(asio::as_tuple(asio::use_awaitable));
    }
}

void CertificateFiles::stop() noexcept {
    impl_->stopping = true;
    if (impl_->timer) impl_->timer->cancel();
}

bool CertificateFiles::loaded() const noexcept { return !impl_->loaded_cert.empty(); }

}  // namespace attune::webhook
