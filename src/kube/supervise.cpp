#include <attune/kube/supervise.hpp>

#include <boost/asio/as_tuple.hpp>
#include <boost/asio/co_spawn.hpp>
#include <boost/asio/detached.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/this_coro.hpp>
#include <boost/asio/use_awaitable.hpp>

#include <prometheus/counter.h>
#include <prometheus/family.h>
#include <spdlog/spdlog.h>

#include <random>

namespace attune::kube {
namespace asio = boost::asio;

namespace {
asio::awaitable<void> supervise_loop(std::string name, std::function<asio::awaitable<void>()> body,
                                     BackoffPolicy policy, prometheus::Family<prometheus::Counter>* crashes,
                                     std::shared_ptr<bool> stop) {
    BackoffState backoff(policy);
    auto rnd = make_random_source(std::random_device{}());
    asio::steady_timer timer(co_await asio::this_coro::executor);
    while (!*stop) {
        std::string what;
        try {
            co_await body();
            co_return;  // finished on its own (e.g. after its own stop)
        } catch (const std::exception& e) {
            what = e.what();
        } catch (...) {
            what = "unknown exception";
        }
        if (crashes) crashes->Add({{"task", name}}).Increment();
        if (*stop) {  // failing during shutdown: do not hold the io_context up with a backoff timer
            spdlog::error("task failed while stopping task={} error=\"{}\"", name, what);
            co_return;
        }
        const auto delay = backoff.next(rnd);
        spdlog::error("task crashed task={} error=\"{}\" restart_in_ms={}", name, what, delay.count());
        timer.expires_after(delay);
        co_await timer.async_wait(asio::as_tuple(asio::use_awaitable));
    }
}
}  // namespace

SupervisorHandle spawn_supervised(asio::any_io_executor ex, std::string name,
                                  std::function<asio::awaitable<void>()> body, BackoffPolicy backoff,
                                  prometheus::Family<prometheus::Counter>* crashes) {
    SupervisorHandle h;
    asio::co_spawn(ex, supervise_loop(std::move(name), std::move(body), backoff, crashes, h.stop), asio::detached);
    return h;
}

}  // namespace attune::kube
