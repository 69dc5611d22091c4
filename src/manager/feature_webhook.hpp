#pragma once
// The admission webhook (--webhook): its server and certificate rotation.
// Every replica serves admission, leader or not; /readyz waits for its
// certificate.
#include "manager_context.hpp"

#include <attune/core/model/capabilities.hpp>
#include <attune/webhook/webhook_service.hpp>

#include <memory>
#include <string>

namespace attune::manager {

// Where the webhook's Secret lives: --webhook-namespace, else the pod's own.
std::string webhook_namespace(const ManagerOptions& opts);

class WebhookFeature {
public:
    // Reads the webhook flags and --webhook-client-ca (throws when unusable)
    // and needs the caches the webhook reads.
    WebhookFeature(ManagerContext& ctx, const core::Capabilities* caps);

    // Throws std::system_error when the address cannot be bound.
    void listen();
    void start();
    bool ready() const { return service_->ready(); }
    void stop_certificates() { service_->stop_certificates(); }
    // Requests already arriving are answered (part of the shutdown deadline).
    boost::asio::awaitable<void> drain();

private:
    ManagerContext& ctx_;
    std::unique_ptr<webhook::WebhookService> service_;
};

}  // namespace attune::manager
