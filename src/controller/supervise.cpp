#include <attune/controller/supervise.hpp>

#include <boost/asio/as_tuple.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/this_coro.hpp>
#include <boost/asio/use_awaitable.hpp>

#include <spdlog/spdlog.h>

#include <random>

namespace attune::controller {
namespace asio = boost::asio;

asio::awaitable<void> supervise(std::string task, std::function<asio::awaitable<void>()> body,
                                controller_metrics* metrics, std::function<bool()> stopping,
                                kube::backoff_policy backoff) {
    kube::backoff_state state(backoff);
    const auto rnd = kube::make_random_source(std::random_device{}());
    asio::steady_timer timer(co_await asio::this_coro::executor);
    for (;;) {
        std::string failure;
        try {
            co_await body();
            co_return;
        } catch (const std::exception& e) {
            failure = e.what();
        } catch (...) {
            failure = "unknown exception";
        }
        if (metrics) metrics->coroutine_restarts.Add({{"task", task}}).Increment();
        if (stopping && stopping()) {
            spdlog::error("task failed while stopping task={} error=\"{}\"", task, failure);
            co_return;
        }
        const auto delay = state.next(rnd);
        spdlog::error("task failed; restarting task={} error=\"{}\" restart_in_ms={}", task, failure, delay.count());
        timer.expires_after(delay);
        co_await timer.async_wait(asio::as_tuple(asio::use_awaitable));
        if (stopping && stopping()) co_return;
    }
}

}  // namespace attune::controller
