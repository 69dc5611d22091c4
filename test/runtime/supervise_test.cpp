#include "run_coro.hpp"

#include <prometheus/counter.h>
#include <prometheus/registry.h>
#include <attune/kube/supervise.hpp>

#include <boost/asio/steady_timer.hpp>
#include <boost/asio/use_awaitable.hpp>

#include <gtest/gtest.h>

#include <stdexcept>

namespace attune::kube {
namespace {
using namespace std::chrono_literals;
namespace asio = boost::asio;

TEST(Supervise, RestartsAfterExceptionsUntilBodyFinishes) {
    asio::io_context io;
    // The caller owns the counter family (the manager passes
    // attune_coroutine_restarts_total from its one metrics struct).
    prometheus::Registry reg;
    auto& restarts = prometheus::BuildCounter().Name("attune_coroutine_restarts_total").Register(reg);
    int runs = 0;
    bool finished = false;
    spawn_supervised(
        io.get_executor(), "flaky",
        [&]() -> asio::awaitable<void> {
            if (++runs < 3) throw std::runtime_error("boom");
            finished = true;
            co_return;
        },
        {1ms, 2.0, 10ms, 0.0}, &restarts);
    io.run();
    EXPECT_EQ(runs, 3);
    EXPECT_TRUE(finished);
    EXPECT_EQ(restarts.Add({{"task", "flaky"}}).Value(), 2.0);
}

TEST(Supervise, StopPreventsRestart) {
    asio::io_context io;
    int runs = 0;
    SupervisorHandle h;
    h = spawn_supervised(
        io.get_executor(), "always-fails",
        [&]() -> asio::awaitable<void> {
            ++runs;
            h.request_stop();  // shutdown begins while the task is failing
            throw std::runtime_error("boom");
            co_return;
        },
        {5ms, 1.0, 5ms, 0.0});
    io.run();
    EXPECT_EQ(runs, 1);
}

}  // namespace
}  // namespace attune::kube
