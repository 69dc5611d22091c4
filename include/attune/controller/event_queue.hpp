#pragma once
// Events leave through their own bounded queue. Whoever decides an Event (a
// worker, the aggregator) pushes it synchronously and moves on; one
// coroutine sends them through kube::event_recorder. A slow apiserver
// therefore never holds up a worker or a status write, and memory stays
// bounded: beyond the capacity new Events are dropped and counted.
//
// The "D" rule of docs/api.md#events (core::EventDedup: the same uid, reason
// and message at most once per hour) and the policy's
// attune.io/suppress-warnings annotation are applied on push, so repeats
// never take a slot.
#include <attune/controller/metrics.hpp>
#include <attune/core/policy/event_dedup.hpp>
#include <attune/core/resize/resize_events.hpp>  // EventIntent
#include <attune/kube/event_recorder.hpp>

#include <boost/asio/any_io_executor.hpp>
#include <boost/asio/awaitable.hpp>
#include <boost/asio/steady_timer.hpp>

#include <deque>
#include <functional>
#include <string>

namespace attune::controller {

struct queued_event {
    kube::k8s_event event;
    bool dedupe = false;            // "D": at most once per hour, and silenced by suppress_warnings
    std::string suppress_warnings;  // the regarding policy's attune.io/suppress-warnings value
};

// An Event regarding an AttunePolicy (reporting controller "attune").
queued_event policy_event(kube::object_reference policy, const core::EventIntent& intent,
                          std::string suppress_warnings);

class event_queue {
public:
    using wall_clock = std::function<core::Timestamp()>;
    enum class verdict { queued, deduplicated, suppressed, dropped };

    // `recorder` null: Events are decided and counted, never sent (tests).
    event_queue(boost::asio::any_io_executor ex, kube::event_recorder* recorder, std::size_t capacity,
                controller_metrics* metrics, wall_clock now);

    verdict push(queued_event e);

    // Sends queued Events one at a time until stop().
    boost::asio::awaitable<void> run();
    void stop();

    std::size_t size() const noexcept { return queue_.size(); }
    const std::deque<kube::k8s_event>& pending() const noexcept { return queue_; }

private:
    void count(verdict v);

    kube::event_recorder* recorder_;
    std::size_t capacity_;
    controller_metrics* metrics_;
    wall_clock now_;
    core::EventDedup dedup_;
    std::deque<kube::k8s_event> queue_;
    boost::asio::steady_timer wake_;
    bool stopping_ = false;
};

}  // namespace attune::controller
