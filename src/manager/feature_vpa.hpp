#pragma once
// The VerticalPodAutoscaler informer, a source of recommendations: it starts
// only once the VPA API is served (its CRD may come later than the manager,
// or never), and its sync gives every policy a pass.
#include "manager_context.hpp"

#include <attune/kube/informer.hpp>

#include <memory>

namespace attune::controller {
class controller;
}

namespace attune::manager {

class vpa_feature {
public:
    explicit vpa_feature(manager_context& ctx) : ctx_(ctx) {}

    // Looks for the VPA API every minute until found, then watches VPAs
    // into `c`'s cache and, once they listed, enqueues every policy.
    boost::asio::awaitable<void> run(controller::controller& c);
    bool synced() const { return informer_ && informer_->has_synced(); }
    void stop();

private:
    manager_context& ctx_;
    std::unique_ptr<kube::informer> informer_;  // started once the VPA API is served
};

}  // namespace attune::manager
