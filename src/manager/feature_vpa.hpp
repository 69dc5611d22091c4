#pragma once
// The VerticalPodAutoscaler informer, a source of recommendations: it starts
// only once the VPA API is served (its CRD may come later than the manager,
// or never), and its sync gives every policy a pass.
#include "manager_context.hpp"

#include <attune/kube/informer.hpp>

#include <memory>

namespace attune::controller {
class Controller;
}

namespace attune::manager {

class VpaFeature {
public:
    explicit VpaFeature(ManagerContext& ctx) : ctx_(ctx) {}

    // Looks for the VPA API every minute until found, then watches VPAs
    // into `c`'s cache and, once they listed, enqueues every policy.
    boost::asio::awaitable<void> run(controller::Controller& c);
    bool synced() const { return informer_ && informer_->has_synced(); }
    void stop();

private:
    ManagerContext& ctx_;
    std::unique_ptr<kube::Informer> informer_;  // started once the VPA API is served
};

}  // namespace attune::manager
