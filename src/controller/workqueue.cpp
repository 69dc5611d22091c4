#include <attune/controller/workqueue.hpp>

#include <boost/asio/as_tuple.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/use_awaitable.hpp>

namespace attune::controller {
namespace asio = boost::asio;

Workqueue::Workqueue(asio::any_io_executor ex, RateLimitOptions opts, ControllerMetrics* metrics)
    : state_(opts), timer_(ex, WorkqueueState::time_point::max()), metrics_(metrics) {}

void Workqueue::add(const std::string& key) {
    if (metrics_ && !state_.shutting_down()) metrics_->workqueue_adds.Increment();
    if (state_.add(key)) wake();
    publish();
}

void Workqueue::add_after(const std::string& key, std::chrono::milliseconds delay) {
    if (delay.count() <= 0) return add(key);
    state_.add_after(key, WorkqueueState::Clock::now() + delay);
    delayed_added();
}

void Workqueue::add_settled(const std::string& key, std::chrono::milliseconds delay) {
    if (delay.count() <= 0) return add(key);
    state_.add_settled(key, WorkqueueState::Clock::now() + delay);
    delayed_added();
}

void Workqueue::add_rate_limited(const std::string& key) {
    if (metrics_) metrics_->workqueue_retries.Increment();
    state_.add_rate_limited(key, WorkqueueState::Clock::now());
    delayed_added();
}

void Workqueue::delayed_added() {
    // An earlier due time than the one waiters sleep until: wake them to re-arm.
    if (auto due = state_.next_due(); due && *due < timer_.expiry()) wake();
    publish();
}

void Workqueue::forget(const std::string& key) { state_.forget(key); }

asio::awaitable<std::optional<std::string>> Workqueue::get() {
    // Back of the line once per key: with a full queue a worker whose
    // processing needs no I/O would otherwise never return to the io_context,
    // and the probes, the webhook and the watches would wait for the whole
    // backlog (1,000 workloads after the initial sync took about a second).
    co_await asio::post(timer_.get_executor(), asio::use_awaitable);
    for (;;) {
        if (state_.shutting_down()) co_return std::nullopt;
        if (auto key = state_.take(WorkqueueState::Clock::now())) {
            publish();
            co_return key;
        }
        // All waiters share the timer; re-arming only when the due time moved
        // keeps them from cancelling each other in a loop.
        const auto due = state_.next_due().value_or(WorkqueueState::time_point::max());
        if (timer_.expiry() != due) timer_.expires_at(due);
        co_await timer_.async_wait(asio::as_tuple(asio::use_awaitable));
    }
}

void Workqueue::done(const std::string& key) {
    state_.done(key);
    if (state_.ready() > 0) wake();
    publish();
}

void Workqueue::shut_down() {
    state_.shut_down();
    wake();
}

void Workqueue::wake() { timer_.cancel(); }

void Workqueue::publish() {
    if (!metrics_) return;
    metrics_->workqueue_depth.Set(static_cast<double>(state_.ready() + state_.delayed()));
}

}  // namespace attune::controller
