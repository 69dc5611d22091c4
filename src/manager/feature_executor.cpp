#include "feature_executor.hpp"

#include <attune/controller/recommendation_store.hpp>

namespace attune::manager {

ExecutorFeature::ExecutorFeature(ManagerContext& ctx, controller::Controller& c, const policy::CacheViews& views)
    : ctx_(ctx) {
    auto& reg = ctx_.informers;
    controller::ExecutorCaches ec;
    ec.views = views;
    ec.nodes = &reg.need("nodes").cache();
    ec.namespaces = &reg.need("namespaces").cache();
    ec.limit_ranges = &reg.need("limitranges").cache();
    ec.resource_quotas = &reg.need("resourcequotas").cache();
    controller::ExecutorOptions eo;
    eo.workers = ctx_.opts.workers;
    executor_ = std::make_unique<controller::ResizeExecutor>(ctx_.io.get_executor(), ctx_.client, &c.events(),
                                                             ctx_.metrics.executor, ec, c.store(), eo);
    executor_->set_instant_query([&c](std::shared_ptr<const core::EffectivePolicy> policy, std::string query) {
        return c.recommender().instant(std::move(policy), std::move(query));
    });
    reg.need("pods").add_handler(executor_->on_pod_change());
    // The resize status (history, counts, ResizeBlocked/Resizing/Degraded)
    // is written by the aggregator, the policy status's one writer.
    c.aggregator().set_resize_ledger(&executor_->ledger());
    executor_->on_ledger_change([&c](const std::string& ns, const std::string& policy) {
        c.aggregator().refresh(ns, policy);
    });
    c.store().on_change([this](const controller::ObjectKey& k) { executor_->on_recommendation_change(k); });
}

void ExecutorFeature::start_workers() {
    executor_->enqueue_all();
    for (int i = 0; i < ctx_.opts.workers; ++i)
        ctx_.spawn("resize-worker", [this] { return executor_->run_worker(); });
}

}  // namespace attune::manager
