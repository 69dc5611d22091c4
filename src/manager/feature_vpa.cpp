#include "feature_vpa.hpp"

#include "informer_catalog.hpp"

#include <attune/controller/controller.hpp>
#include <attune/core/util/json_path.hpp>

#include <boost/asio/as_tuple.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/use_awaitable.hpp>

#include <spdlog/spdlog.h>

namespace attune::manager {
namespace asio = boost::asio;
using namespace std::chrono_literals;

asio::awaitable<void> VpaFeature::run(controller::Controller& c) {
    asio::steady_timer t(ctx_.io);
    while (!ctx_.stopping && !informer_) {
        auto r = co_await ctx_.client.get_path("/apis/autoscaling.k8s.io/v1");
        bool served = false;
        if (r)
            if (const auto* list = core::array_at(r.value(), {"resources"}))
                for (const auto& res : *list) served = served || core::string_at(res, {"name"}) == "verticalpodautoscalers";
        if (served) {
            informer_ = std::make_unique<kube::Informer>(ctx_.client, vpa_informer(ctx_.scope));
            informer_->add_handler(c.on_vpa_change());
            auto* i = informer_.get();
            ctx_.spawn("informer/verticalpodautoscalers", [i] { return i->run(); });
            c.set_vpa_cache(&informer_->cache());
            spdlog::info("the VerticalPodAutoscaler API is served; watching VPAs");
            break;
        }
        t.expires_after(60s);
        co_await t.async_wait(asio::as_tuple(asio::use_awaitable));
    }
    while (!ctx_.stopping && informer_ && !informer_->has_synced()) {
        t.expires_after(200ms);
        co_await t.async_wait(asio::as_tuple(asio::use_awaitable));
    }
    if (!ctx_.stopping && informer_) c.enqueue_all_policies();
}

void VpaFeature::stop() {
    if (informer_) informer_->stop();
}

}  // namespace attune::manager
