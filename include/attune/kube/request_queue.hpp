#pragma once
// The bounded queue of requests waiting to go out: at most `max_inflight`
// hold a slot, at most `max_queued` wait for one, and the rest are refused at
// once. Refusal is the backpressure signal; the gauges export the state.
#include <attune/kube/metrics.hpp>

#include <boost/asio/any_io_executor.hpp>
#include <boost/asio/awaitable.hpp>

#include <cstddef>
#include <deque>
#include <memory>
#include <utility>

namespace attune::kube {

class RequestQueue {
    struct waiter;

public:
    RequestQueue(boost::asio::any_io_executor ex, std::size_t max_inflight, std::size_t max_queued,
                 KubeMetrics* metrics);

    // A held slot; releasing it (destruction) hands it to the next waiter.
    class Slot {
    public:
        Slot() = default;
        explicit Slot(RequestQueue* q) : q_(q) {}
        Slot(Slot&& o) noexcept : q_(std::exchange(o.q_, nullptr)) {}
        Slot& operator=(Slot&& o) noexcept {
            if (this != &o) {
                reset();
                q_ = std::exchange(o.q_, nullptr);
            }
            return *this;
        }
        ~Slot() { reset(); }
        explicit operator bool() const noexcept { return q_ != nullptr; }
        void reset() noexcept {
            if (q_) std::exchange(q_, nullptr)->release();
        }

    private:
        RequestQueue* q_ = nullptr;
    };

    // Empty slot when the queue is full or shut down.
    boost::asio::awaitable<Slot> acquire();

    std::size_t inflight() const noexcept { return inflight_; }
    std::size_t queued() const noexcept { return waiters_.size(); }
    void shutdown() noexcept;

private:
    void release() noexcept;
    void publish() noexcept;

    boost::asio::any_io_executor ex_;
    std::size_t max_inflight_;
    std::size_t max_queued_;
    KubeMetrics* metrics_;
    std::size_t inflight_ = 0;
    bool stopped_ = false;
    std::deque<std::shared_ptr<waiter>> waiters_;
};

}  // namespace attune::kube
