#include <attune/webhook/webhook_service.hpp>

#include <attune/webhook/certificate_files.hpp>
#include <attune/webhook/certificate_keeper.hpp>

#include <boost/asio/as_tuple.hpp>
#include <boost/asio/ip/address.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/this_coro.hpp>
#include <boost/asio/use_awaitable.hpp>

#include <spdlog/spdlog.h>

namespace attune::webhook {
namespace asio = boost::asio;

ServingNames webhook_names(const WebhookServiceOptions& o) {
    ServingNames n;
    n.dns = {o.service_name + "." + o.ns + ".svc", o.service_name + "." + o.ns + ".svc.cluster.local"};
    if (!o.url.empty()) {
        std::string host = o.url.substr(o.url.find("://") + 3);
        if (!host.empty() && host.front() == '[') {
            host = host.substr(1, host.find(']') - 1);
        } else {
            host = host.substr(0, host.find(':'));
        }
        boost::system::error_code ec;
        asio::ip::make_address(host, ec);
        if (ec) n.dns.push_back(host);
        else n.ips.push_back(host);
    }
    return n;
}

struct WebhookService::impl {
    impl(asio::any_io_executor e, kube::Client& c, AdmissionCaches caches, const core::Capabilities* caps,
         WebhookMetrics& m, WebhookServiceOptions o)
        : ex(e), opts(std::move(o)), metrics(m), handler(std::move(caches), handler_options(opts), caps, m),
          server(
              e, [this](const http::ServerRequest& r) { return handler.handle(r); }, server_options(opts, m)) {
        if (opts.cert_dir.empty()) {
            CertificateKeeperOptions k;
            k.ns = opts.ns;
            k.secret_name = opts.secret_name;
            k.webhook_configuration = opts.configuration_name;
            k.url = opts.url;
            k.names = webhook_names(opts);
            k.rotation = opts.rotation;
            k.resync = opts.resync;
            keeper = std::make_unique<CertificateKeeper>(c, server, std::move(k), m);
        } else {
            files = std::make_unique<CertificateFiles>(server, opts.cert_dir, opts.resync, m);
        }
    }

    static AdmissionOptions handler_options(const WebhookServiceOptions& o) {
        AdmissionOptions a;
        a.operator_namespace = o.ns;
        a.validation = o.validation;
        a.watch_scope = o.watch_scope;
        return a;
    }
    static http::ServerOptions server_options(const WebhookServiceOptions& o, WebhookMetrics& m) {
        http::ServerOptions s = o.server;
        s.on_event = [&m](http::ServerEvent e) { m.on_server_event(e); };
        return s;
    }

    bool loaded() const { return keeper ? keeper->loaded() : files->loaded(); }

    asio::any_io_executor ex;
    WebhookServiceOptions opts;
    WebhookMetrics& metrics;
    AdmissionHandler handler;
    http::HttpsServer server;
    std::unique_ptr<CertificateKeeper> keeper;
    std::unique_ptr<CertificateFiles> files;
    bool serving = false;
    bool stopping = false;
};

WebhookService::WebhookService(asio::any_io_executor ex, kube::Client& client, AdmissionCaches caches,
                               const core::Capabilities* caps, WebhookMetrics& metrics, WebhookServiceOptions opts)
    : impl_(std::make_unique<impl>(ex, client, std::move(caches), caps, metrics, std::move(opts))) {}

WebhookService::~WebhookService() = default;

void WebhookService::listen() { impl_->server.listen(impl_->opts.host, impl_->opts.port); }

unsigned short WebhookService::port() const { return impl_->server.port(); }

asio::awaitable<void> WebhookService::run_certificates() {
    if (impl_->keeper) co_await impl_->keeper->run();
    else co_await impl_->files->run();
}

asio::awaitable<void> WebhookService::run_server() {
    auto* self = impl_.get();
    asio::steady_timer t(co_await asio::this_coro::executor);
    while (!self->loaded() && !self->stopping) {
        t.expires_after(std::chrono::milliseconds(100));
        co_await t.async_wait(asio::as_tuple(asio::use_awaitable));
    }
    if (self->stopping) co_return;
    spdlog::info("serving the admission webhook address={}:{} paths={},{} certificates={}", self->opts.host,
                 self->server.port(), kPodCreatePath, kWorkloadUpdatePath,
                 self->keeper ? "secret " + self->opts.ns + "/" + self->opts.secret_name : "files " + self->opts.cert_dir);
    self->serving = true;
    co_await self->server.run();
    self->serving = false;
}

bool WebhookService::ready() const noexcept { return impl_->serving && impl_->loaded(); }

void WebhookService::stop_certificates() noexcept {
    impl_->stopping = true;
    if (impl_->keeper) impl_->keeper->stop();
    else impl_->files->stop();
}

asio::awaitable<void> WebhookService::shutdown(std::chrono::milliseconds grace) {
    impl_->stopping = true;
    co_await impl_->server.shutdown(grace);
}

}  // namespace attune::webhook
