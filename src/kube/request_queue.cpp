#include <attune/kube/request_queue.hpp>

#include <boost/asio/as_tuple.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/use_awaitable.hpp>

#include <algorithm>

namespace attune::kube {
namespace asio = boost::asio;

struct RequestQueue::waiter {
    explicit waiter(const asio::any_io_executor& ex) : timer(ex, asio::steady_timer::time_point::max()) {}
    asio::steady_timer timer;
    bool granted = false;
};

RequestQueue::RequestQueue(asio::any_io_executor ex, std::size_t max_inflight, std::size_t max_queued,
                           KubeMetrics* metrics)
    : ex_(std::move(ex)), max_inflight_(std::max<std::size_t>(max_inflight, 1)), max_queued_(max_queued),
      metrics_(metrics) {
    if (metrics_) metrics_->request_queue_capacity.Set(static_cast<double>(max_queued_));
}

asio::awaitable<RequestQueue::Slot> RequestQueue::acquire() {
    if (stopped_) co_return Slot{};
    if (inflight_ < max_inflight_ && waiters_.empty()) {
        ++inflight_;
        publish();
        co_return Slot{this};
    }
    if (waiters_.size() >= max_queued_) {
        if (metrics_) metrics_->request_queue_rejected.Increment();
        co_return Slot{};
    }
    auto w = std::make_shared<waiter>(ex_);
    waiters_.push_back(w);
    publish();
    // If this coroutine is destroyed while waiting, the guard removes the
    // waiter, or gives back a slot that was already handed over.
    struct Guard {
        RequestQueue* q;
        std::shared_ptr<waiter> w;
        bool done = false;
        ~Guard() {
            if (done) return;
            if (w->granted) {
                q->release();
            } else {
                std::erase(q->waiters_, w);
                q->publish();
            }
        }
    } g{this, w};
    co_await w->timer.async_wait(asio::as_tuple(asio::use_awaitable));
    g.done = true;
    if (!w->granted) {
        std::erase(waiters_, w);
        publish();
        co_return Slot{};
    }
    co_return Slot{this};
}

void RequestQueue::release() noexcept {
    // Hand the slot straight to the oldest waiter, keeping FIFO order.
    if (!stopped_ && !waiters_.empty()) {
        auto w = waiters_.front();
        waiters_.pop_front();
        w->granted = true;
        w->timer.cancel();
    } else if (inflight_ > 0) {
        --inflight_;
    }
    publish();
}

void RequestQueue::shutdown() noexcept {
    stopped_ = true;
    for (auto& w : waiters_) w->timer.cancel();
    waiters_.clear();
    publish();
}

void RequestQueue::publish() noexcept {
    if (!metrics_) return;
    metrics_->requests_inflight.Set(static_cast<double>(inflight_));
    metrics_->requests_queued.Set(static_cast<double>(waiters_.size()));
}

}  // namespace attune::kube
