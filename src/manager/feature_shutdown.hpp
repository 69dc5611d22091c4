#pragma once
// Signals and the shutdown: SIGTERM/SIGINT (exit 0) or a fatal condition such
// as a lost lease (exit 1) begins the shutdown: no new work, watches closed,
// then a bounded release (webhook drain, lease, client, HTTP servers), all
// within one deadline after which the io_context stops whatever hangs.
#include "manager_context.hpp"

#include <boost/asio/signal_set.hpp>
#include <boost/asio/steady_timer.hpp>

#include <functional>

namespace attune::manager {

class ShutdownFeature {
public:
    // `stop_work` runs once at the start of the shutdown, after the
    // supervisors stopped restarting; `release` is awaited after it, before
    // the io_context stops.
    ShutdownFeature(ManagerContext& ctx, std::function<void()> stop_work,
                    std::function<boost::asio::awaitable<void>()> release);

    void watch_signals();
    void begin_shutdown(int code);
    int exit_code() const noexcept { return exit_code_; }

private:
    boost::asio::awaitable<void> finish_shutdown();

    ManagerContext& ctx_;
    std::function<void()> stop_work_;
    std::function<boost::asio::awaitable<void>()> release_;
    boost::asio::signal_set signals_;
    boost::asio::steady_timer deadline_;
    int exit_code_ = 0;
};

}  // namespace attune::manager
