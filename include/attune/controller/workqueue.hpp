#pragma once
// The workqueue as seen by coroutines: WorkqueueState plus one timer that
// wakes waiting workers when a key becomes ready or a delayed key falls due.
// Single-threaded by design (one io_context thread); the executor may be a
// strand later without changing callers.
#include <attune/controller/metrics.hpp>
#include <attune/controller/workqueue_state.hpp>

#include <boost/asio/any_io_executor.hpp>
#include <boost/asio/awaitable.hpp>
#include <boost/asio/steady_timer.hpp>

#include <optional>
#include <string>

namespace attune::controller {

class Workqueue {
public:
    Workqueue(boost::asio::any_io_executor ex, RateLimitOptions opts, ControllerMetrics* metrics = nullptr);

    void add(const std::string& key);
    void add_after(const std::string& key, std::chrono::milliseconds delay);
    // After `delay`, unless a worker takes the key first (WorkqueueState::add_settled).
    void add_settled(const std::string& key, std::chrono::milliseconds delay);
    // After a failure: retried after this key's backoff.
    void add_rate_limited(const std::string& key);
    void forget(const std::string& key);

    // The next key to process; the caller owns it until done(). nullopt once
    // shut down: workers then return.
    boost::asio::awaitable<std::optional<std::string>> get();
    void done(const std::string& key);

    // Stops handing out work and wakes every waiting worker.
    void shut_down();

    const WorkqueueState& state() const noexcept { return state_; }

private:
    void wake();
    void publish();
    // After any delayed add: re-arms the waiters if the key falls due sooner.
    void delayed_added();

    WorkqueueState state_;
    boost::asio::steady_timer timer_;
    ControllerMetrics* metrics_;
};

}  // namespace attune::controller
