#pragma once
// The resize executor and its safety gates: it reads the controller's
// recommendation store, the pods (the resizes it follows, its node index),
// nodes, namespaces, LimitRanges and ResourceQuotas; its ledger feeds the
// aggregator's resize status; its Events share the controller's queue.
#include "manager_context.hpp"

#include <attune/controller/controller.hpp>
#include <attune/controller/executor/resize_executor.hpp>
#include <attune/policy/cache_views.hpp>

#include <memory>

namespace attune::manager {

class ExecutorFeature {
public:
    ExecutorFeature(ManagerContext& ctx, controller::Controller& c, const policy::CacheViews& views);

    controller::ResizeExecutor& get() { return *executor_; }

    // Once the controller's workers run: every recommendation gets a pass
    // and the resize workers run.
    void start_workers();
    void shut_down() { executor_->shut_down(); }

private:
    ManagerContext& ctx_;
    std::unique_ptr<controller::ResizeExecutor> executor_;
};

}  // namespace attune::manager
