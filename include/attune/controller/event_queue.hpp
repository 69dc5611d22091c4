#pragma once
// Events leave through their own bounded queue. Whoever decides an Event (a
// worker, the aggregator) pushes it synchronously and moves on; one
// coroutine sends them through kube::EventRecorder. A slow apiserver
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

struct QueuedEvent {
    kube::K8sEvent event;
    bool dedupe = false;            // "D": at most once per hour, and silenced by suppress_warnings
    std::string suppress_warnings;  // the regarding policy's attune.io/suppress-warnings value
};

// An Event regarding an AttunePolicy (reporting controller "attune").
QueuedEvent policy_event(kube::ObjectReference policy, const core::EventIntent& intent, std::string suppress_warnings);

class EventQueue {
public:
    using WallClock = std::function<core::Timestamp()>;
    enum class Verdict { Queued, Deduplicated, Suppressed, Dropped };

    // `recorder` null: Events are decided and counted, never sent (tests).
    EventQueue(boost::asio::any_io_executor ex, kube::EventRecorder* recorder, std::size_t capacity,
               ControllerMetrics* metrics, WallClock now);

    Verdict push(QueuedEvent e);

    // Sends queued Events one at a time until stop().
    boost::asio::awaitable<void> run();
    void stop();

    std::size_t size() const noexcept { return queue_.size(); }
    const std::deque<kube::K8sEvent>& pending() const noexcept { return queue_; }

private:
    void count(Verdict v);

    kube::EventRecorder* recorder_;
    std::size_t capacity_;
    ControllerMetrics* metrics_;
    WallClock now_;
    core::EventDedup dedup_;
    std::deque<kube::K8sEvent> queue_;
    boost::asio::steady_timer wake_;
    bool stopping_ = false;
};

}  // namespace attune::controller
