#include "feature_webhook.hpp"

#include "informer_catalog.hpp"

#include <attune/core/util/duration.hpp>

#include <boost/asio/ssl/context.hpp>

#include <spdlog/spdlog.h>

#include <fstream>
#include <sstream>
#include <stdexcept>

namespace attune::manager {
namespace asio = boost::asio;
using namespace std::chrono_literals;

namespace {
constexpr auto kWebhookDrain = 3s;  // part of the shutdown deadline: requests already arriving are answered
}

std::string webhook_namespace(const ManagerOptions& opts) {
    const auto& w = opts.webhook;
    return !w.ns.empty() ? w.ns : (pod_namespace().empty() ? "attune-system" : pod_namespace());
}

WebhookFeature::WebhookFeature(ManagerContext& ctx, const core::Capabilities* caps) : ctx_(ctx) {
    const auto& opts = ctx_.opts;
    const auto& w = opts.webhook;
    auto caches = webhook_caches(ctx_.informers);
    webhook::WebhookServiceOptions o;
    o.host = w.bind.host;
    o.port = w.bind.port;
    o.ns = webhook_namespace(opts);
    o.watch_scope = ctx_.scope;
    o.secret_name = w.secret_name;
    o.configuration_name = w.configuration_name;
    o.service_name = w.service_name;
    o.url = w.url;
    o.cert_dir = w.cert_dir;
    o.rotation.serving_validity = std::chrono::duration_cast<std::chrono::seconds>(w.cert_validity);
    o.rotation.ca_validity = std::chrono::duration_cast<std::chrono::seconds>(w.ca_validity);
    o.rotation.ca_overlap = std::chrono::duration_cast<std::chrono::seconds>(w.ca_overlap);
    o.resync = std::chrono::duration_cast<std::chrono::seconds>(w.cert_resync);
    // All four flags: the webhook refuses at admission what the controller would.
    o.validation = policy_validation_options(opts);
    o.server.max_connections = w.max_connections;
    o.server.max_large_requests = w.max_large_requests;
    if (w.max_body_bytes) o.server.max_body_bytes = w.max_body_bytes;
    if (!w.client_ca_file.empty()) {
        std::ifstream in(w.client_ca_file, std::ios::binary);
        std::ostringstream pem;
        pem << in.rdbuf();
        bool usable = in && pem.str().find("-----BEGIN CERTIFICATE-----") != std::string::npos;
        if (usable) {
            try {  // refused now, not at the first certificate load
                asio::ssl::context probe(asio::ssl::context::tls_server);
                probe.add_certificate_authority(asio::buffer(pem.str()));
            } catch (const std::exception&) {
                usable = false;
            }
        }
        if (!usable)
            throw std::runtime_error("--webhook-client-ca " + w.client_ca_file +
                                     ": cannot read a PEM CA certificate from it");
        o.server.client_ca_pem = pem.str();
    }
    spdlog::info("admission webhook limits max_connections={} max_large_requests={} max_body_bytes={} "
                 "content_type={} client_ca={}",
                 o.server.max_connections, o.server.max_large_requests, o.server.max_body_bytes,
                 o.server.required_content_type, w.client_ca_file.empty() ? "-" : w.client_ca_file);
    spdlog::info("admission webhook enabled namespace={} secret={} configuration={} service={} url={} cert_dir={} "
                 "cert_validity={} ca_validity={} ca_overlap={}",
                 o.ns, o.secret_name, o.configuration_name, o.service_name, o.url.empty() ? "-" : o.url,
                 o.cert_dir.empty() ? "-" : o.cert_dir, core::format_duration(w.cert_validity),
                 core::format_duration(w.ca_validity), core::format_duration(w.ca_overlap));
    service_ = std::make_unique<webhook::WebhookService>(ctx_.io.get_executor(), ctx_.client, std::move(caches), caps,
                                                         ctx_.metrics.webhook, std::move(o));
}

void WebhookFeature::listen() {
    service_->listen();
    spdlog::info("admission webhook bound address={}:{}", ctx_.opts.webhook.bind.host, service_->port());
}

void WebhookFeature::start() {
    // Every replica serves admission, leader or not.
    ctx_.spawn("webhook-certificates", [this] { return service_->run_certificates(); });
    ctx_.spawn("webhook-server", [this] { return service_->run_server(); });
}

asio::awaitable<void> WebhookFeature::drain() { co_await service_->shutdown(kWebhookDrain); }

}  // namespace attune::manager
