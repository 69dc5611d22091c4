#include "feature_shutdown.hpp"

#include <boost/asio/co_spawn.hpp>
#include <boost/asio/detached.hpp>

#include <spdlog/spdlog.h>

#include <csignal>

namespace attune::manager {
namespace asio = boost::asio;
using namespace std::chrono_literals;

namespace {
constexpr auto kShutdownDeadline = 10s;  // SIGTERM to exit, whatever hangs
}

ShutdownFeature::ShutdownFeature(ManagerContext& ctx, std::function<void()> stop_work,
                                 std::function<asio::awaitable<void>()> release)
    : ctx_(ctx), stop_work_(std::move(stop_work)), release_(std::move(release)), signals_(ctx.io, SIGTERM, SIGINT),
      deadline_(ctx.io) {}

void ShutdownFeature::watch_signals() {
    signals_.async_wait([this](const boost::system::error_code& ec, int sig) {
        if (ec) return;
        spdlog::info("signal received signal={}", sig == SIGTERM ? "SIGTERM" : "SIGINT");
        begin_shutdown(0);
    });
}

void ShutdownFeature::begin_shutdown(int code) {
    if (ctx_.stopping) return;
    ctx_.stopping = true;
    exit_code_ = code;
    spdlog::info("shutting down: no new work, closing watches, releasing the lease");
    deadline_.expires_after(kShutdownDeadline);
    deadline_.async_wait([this](const boost::system::error_code& ec) {
        if (ec) return;
        spdlog::error("shutdown deadline passed; stopping now deadline_s={}", kShutdownDeadline.count());
        ctx_.io.stop();
    });
    ctx_.stop_supervisors();
    stop_work_();
    asio::co_spawn(ctx_.io, finish_shutdown(), asio::detached);
}

asio::awaitable<void> ShutdownFeature::finish_shutdown() {
    co_await release_();
    boost::system::error_code ignored;
    signals_.cancel(ignored);
    spdlog::info("stopped exit_code={}", exit_code_);
    // Anything still pending (a request inside its timeout) is abandoned.
    ctx_.io.stop();
}

}  // namespace attune::manager
