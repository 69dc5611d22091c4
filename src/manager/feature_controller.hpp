#pragma once
// The controller: the recommendation workers (and through them the
// recommender's Prometheus and VPA sources), the status aggregator and its
// one writer, the controller's Event queue. It reads the informers' caches
// and is fed by their handlers.
#include "manager_context.hpp"

#include <attune/controller/controller.hpp>
#include <attune/policy/cache_views.hpp>

#include <memory>

namespace attune::manager {

class ControllerFeature {
public:
    // Builds the controller on `views` and hangs its handlers on the informers.
    ControllerFeature(ManagerContext& ctx, const policy::CacheViews& views);

    controller::Controller& get() { return *controller_; }

    // Once leading (or at sync without leader election): every policy gets a
    // pass, and the aggregator, status writer, Event queue and Prometheus
    // auto-discovery run, and the workers after discovery's first look.
    void start_workers();
    // Flushes the Event recorder's aggregated Events every 30s.
    void start_event_flush();
    void shut_down() { controller_->shut_down(); }

private:
    ManagerContext& ctx_;
    std::unique_ptr<controller::Controller> controller_;
    bool workers_started_ = false;  // the discovery task may be restarted; the workers start once
};

}  // namespace attune::manager
