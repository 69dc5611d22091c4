#pragma once
// The one coroutine that owns every policy's status. Workers hand it pass
// starts and workload reports (synchronously, no co_await); it applies them
// in order to status_aggregation and, for each completed pass, sets
// attune_workload_idle, emits HPAScaledToZero Events and writes the status
// subresource when it changed. Nobody else touches the state, so it is never
// seen half-updated across the writes' co_awaits.
#include <attune/controller/metrics.hpp>
#include <attune/controller/reconcile.hpp>
#include <attune/controller/status_aggregation.hpp>
#include <attune/kube/client.hpp>
#include <attune/kube/event_recorder.hpp>

#include <boost/asio/any_io_executor.hpp>
#include <boost/asio/awaitable.hpp>
#include <boost/asio/steady_timer.hpp>

#include <deque>
#include <functional>
#include <string>
#include <variant>

namespace attune::controller {

class status_aggregator {
public:
    // Called with "ns/AttunePolicy/name" after each status write: failed=true
    // means the pass must run again (with that key's backoff), false that the
    // key's backoff starts over.
    using write_outcome_fn = std::function<void(const std::string& policy_key, bool failed)>;

    status_aggregator(boost::asio::any_io_executor ex, kube::client& client, kube::event_recorder* events,
                      controller_metrics* metrics, write_outcome_fn on_write);

    void begin_pass(policy_pass_plan plan);
    void report(workload_report r);

    // Processes messages until stop(); throws only on infrastructure failures.
    boost::asio::awaitable<void> run();
    void stop();

    std::size_t backlog() const noexcept { return inbox_.size(); }

private:
    using message = std::variant<policy_pass_plan, workload_report>;
    boost::asio::awaitable<void> handle(message m);
    boost::asio::awaitable<void> finish(completed_pass c);
    void push(message m);

    kube::client& client_;
    kube::event_recorder* events_;
    controller_metrics* metrics_;
    write_outcome_fn on_write_;
    std::deque<message> inbox_;
    boost::asio::steady_timer wake_;
    status_aggregation state_;
    bool stopping_ = false;
};

}  // namespace attune::controller
