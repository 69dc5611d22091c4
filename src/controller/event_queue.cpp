#include <attune/controller/event_queue.hpp>

#include <boost/asio/as_tuple.hpp>
#include <boost/asio/use_awaitable.hpp>

namespace attune::controller {
namespace asio = boost::asio;

QueuedEvent policy_event(kube::ObjectReference policy, const core::EventIntent& intent, std::string suppress_warnings) {
    QueuedEvent q;
    q.event = kube::K8sEvent(std::move(policy), intent.type, intent.reason, intent.action, intent.note);
    q.dedupe = intent.dedupe;
    q.suppress_warnings = std::move(suppress_warnings);
    return q;
}

EventQueue::EventQueue(asio::any_io_executor ex, kube::EventRecorder* recorder, std::size_t capacity,
                       ControllerMetrics* metrics, WallClock now)
    : recorder_(recorder), capacity_(capacity), metrics_(metrics), now_(std::move(now)),
      wake_(ex, asio::steady_timer::time_point::max()) {}

EventQueue::Verdict EventQueue::push(QueuedEvent e) {
    Verdict v = Verdict::Queued;
    const auto& ev = e.event;
    if (stopping_) {
        v = Verdict::Dropped;
    } else if (e.dedupe && core::suppresses(e.suppress_warnings, ev.reason)) {
        v = Verdict::Suppressed;
    } else if (queue_.size() >= capacity_) {
        v = Verdict::Dropped;  // before the D rule: a dropped Event does not count as sent
    } else if (e.dedupe && !dedup_.admit(ev.regarding.uid, ev.reason, ev.note, now_())) {
        v = Verdict::Deduplicated;
    } else {
        queue_.push_back(std::move(e.event));
        wake_.cancel();
    }
    count(v);
    return v;
}

void EventQueue::count(Verdict v) {
    if (!metrics_) return;
    static constexpr const char* kNames[] = {"queued", "deduplicated", "suppressed", "dropped"};
    metrics_->policy_events.Add({{"result", kNames[static_cast<int>(v)]}}).Increment();
    metrics_->event_queue_depth.Set(static_cast<double>(queue_.size()));
}

void EventQueue::stop() {
    stopping_ = true;
    wake_.cancel();
}

asio::awaitable<void> EventQueue::run() {
    while (!stopping_) {
        if (queue_.empty()) {
            co_await wake_.async_wait(asio::as_tuple(asio::use_awaitable));
            continue;
        }
        auto ev = std::move(queue_.front());
        queue_.pop_front();
        if (metrics_) metrics_->event_queue_depth.Set(static_cast<double>(queue_.size()));
        if (recorder_) co_await recorder_->emit(std::move(ev));
    }
}

}  // namespace attune::controller
