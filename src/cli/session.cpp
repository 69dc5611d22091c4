#include "session.hpp"

#include <attune/kube/kubeconfig.hpp>

#include <boost/asio/co_spawn.hpp>
#include <boost/asio/steady_timer.hpp>

#include <spdlog/spdlog.h>

#include <ostream>

namespace attune::cli {
namespace asio = boost::asio;

Session::Session(const CommonOptions& opts) {
    auto cfg = kube::load_default_config(opts.kubeconfig, opts.context, opts.allow_insecure_tls);
    ns_ = opts.ns.empty() ? cfg.default_namespace : opts.ns;
    kube::ClientSettings settings;
    settings.qps = 20;
    settings.burst = 30;
    // A person is waiting: an apiserver that refuses connections is an
    // error within about two seconds (kubectl does not retry it at all), not
    // after the manager's ten retries; 429s are still honoured.
    settings.retry.max_retries = 3;
    settings.retry.backoff =
        kube::BackoffPolicy{std::chrono::milliseconds(250), 2.0, std::chrono::milliseconds(2'000), 0.5};
    client_ = std::make_unique<kube::Client>(io_.get_executor(), std::move(cfg), settings);
}

Session::~Session() = default;

std::optional<int> Session::run(std::function<asio::awaitable<int>()> body, std::chrono::milliseconds deadline) {
    using namespace std::chrono_literals;
    std::optional<int> out;
    bool done = false;
    io_.restart();  // an earlier run() left the loop stopped
    asio::steady_timer watchdog(io_);
    watchdog.expires_after(deadline);
    watchdog.async_wait([this, &done, &watchdog](const boost::system::error_code& ec) {
        if (ec || done) return;
        // Abort every request: the body's awaits then fail and it returns.
        timed_out_ = true;
        client_->shutdown();
        watchdog.expires_after(5s);
        watchdog.async_wait([this, &done](const boost::system::error_code& ec2) {
            if (ec2 || done) return;
            abandoned_ = true;  // something ignored the abort: stop the loop
            io_.stop();
        });
    });
    asio::co_spawn(io_, body(), [&](std::exception_ptr e, int code) {
        done = true;
        watchdog.cancel();
        if (e) {
            try {
                std::rethrow_exception(e);
            } catch (const std::exception& ex) {
                spdlog::error("command failed error=\"{}\"", ex.what());
            }
            return;
        }
        out = code;
    });
    io_.run();
    return timed_out_ ? std::nullopt : out;
}

std::chrono::milliseconds deadline_for(const CommonOptions& o, std::chrono::milliseconds fallback) {
    return o.request_timeout.count() > 0 ? o.request_timeout : fallback;
}

std::unique_ptr<Session> open_session(Invocation& inv) {
    try {
        return std::make_unique<Session>(inv.common);
    } catch (const std::exception& e) {
        inv.err << "error: " << e.what() << "\n";
        return nullptr;
    }
}

int run_in_session(Invocation& inv, std::chrono::milliseconds default_deadline, int error_exit,
                   std::function<asio::awaitable<int>(Session&)> body) {
    auto s = open_session(inv);
    if (!s) return error_exit;
    const auto deadline = deadline_for(inv.common, default_deadline);
    const auto code = s->run([&] { return body(*s); }, deadline);
    const bool timed_out = s->timed_out();
    if (s->abandoned()) {
        // A coroutine frame is still suspended on the stopped loop: destroying
        // the loop and the client in either order would touch freed state, and
        // the process is about to exit anyway.
        (void)s.release();
    }
    if (code) return *code;
    if (timed_out)
        inv.err << "error: gave up after " << deadline.count() / 1000.0 << "s (--request-timeout)\n";
    else
        inv.err << "error: the command failed (see the log above)\n";
    return error_exit;
}

}  // namespace attune::cli
