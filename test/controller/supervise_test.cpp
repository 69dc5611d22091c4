#include <attune/controller/supervise.hpp>

#include <boost/asio/co_spawn.hpp>
#include <boost/asio/detached.hpp>
#include <boost/asio/io_context.hpp>

#include <prometheus/registry.h>
#include <prometheus/text_serializer.h>

#include <gtest/gtest.h>

#include <stdexcept>

namespace attune::controller {
namespace {
namespace asio = boost::asio;
using namespace std::chrono_literals;

const kube::backoff_policy fast{1ms, 2.0, 5ms, 0.0};

TEST(Supervise, RestartsAFailingTaskAndCountsIt) {
    asio::io_context io;
    prometheus::Registry reg;
    controller_metrics m(reg);
    int runs = 0;
    bool finished = false;
    auto body = [&]() -> asio::awaitable<void> {
        if (++runs < 3) throw std::runtime_error("boom");
        co_return;
    };
    asio::co_spawn(io, supervise("worker", body, &m, [] { return false; }, fast),
                   [&](std::exception_ptr e) { finished = !e; });
    io.run_for(2s);
    EXPECT_TRUE(finished);
    EXPECT_EQ(runs, 3);
    const auto text = prometheus::TextSerializer().Serialize(reg.Collect());
    EXPECT_NE(text.find(R"(attune_coroutine_restarts_total{task="worker"} 2)"), std::string::npos) << text;
}

TEST(Supervise, NoRestartWhileStopping) {
    asio::io_context io;
    int runs = 0;
    auto body = [&]() -> asio::awaitable<void> {
        ++runs;
        throw std::runtime_error("boom");
        co_return;
    };
    asio::co_spawn(io, supervise("informer/pods", body, nullptr, [] { return true; }, fast), asio::detached);
    io.run_for(1s);
    EXPECT_EQ(runs, 1);
}

}  // namespace
}  // namespace attune::controller
