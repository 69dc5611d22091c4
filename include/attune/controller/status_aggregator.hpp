#pragma once
// The one coroutine that owns every policy's status. Workers hand it pass
// starts and workload reports synchronously; it keeps only the newest report
// per workload and the newest pass start per policy (so its inbox is bounded
// by the number of objects, not by how often they change), applies them to
// StatusAggregation without awaiting anything, and for each completed pass
// sets attune_workload_idle, queues the Events (EventQueue) and hands the
// newest status to the writer.
//
// The writer, a second coroutine, patches the status subresource of one
// policy at a time; while it waits on a slow apiserver, newer statuses of
// the same policy replace the pending one (only the newest is ever sent) and
// aggregation goes on. Nobody else touches the state, so it is never seen
// half-updated across the writer's co_await.
#include <attune/controller/event_queue.hpp>
#include <attune/controller/metrics.hpp>
#include <attune/controller/reconcile.hpp>
#include <attune/controller/recommendation_store.hpp>
#include <attune/controller/status_aggregation.hpp>
#include <attune/kube/client.hpp>

#include <boost/asio/any_io_executor.hpp>
#include <boost/asio/awaitable.hpp>
#include <boost/asio/steady_timer.hpp>

#include <chrono>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <unordered_map>

namespace attune::controller {

class StatusAggregator {
public:
    // Called with "ns/AttunePolicy/name" after each status write: failed=true
    // means the pass must run again (with that key's backoff), false that the
    // key's backoff starts over.
    using WriteOutcomeFn = std::function<void(const std::string& policy_key, bool failed)>;
    using WallClock = std::function<core::Timestamp()>;

    // `events` and `store` may be null (no Events, no recommendations).
    StatusAggregator(boost::asio::any_io_executor ex, kube::Client& client, EventQueue* events,
                     ControllerMetrics* metrics, const RecommendationStore* store, WriteOutcomeFn on_write,
                     WallClock now);

    void begin_pass(PolicyPassPlan plan);
    void report(WorkloadReport r);
    // The executor's ledger (resize status), read at every completion.
    void set_resize_ledger(const ResizeLedger* ledger) { state_.set_resize_ledger(ledger); }
    // The ledger moved for this policy: compute and write its status again
    // (at most one waiting refresh per policy).
    void refresh(const std::string& ns, const std::string& policy);

    // The pull request exporter's part of a policy's status (at most one
    // waiting per policy, the newest); written when it changes the status.
    void set_pull_request(const std::string& ns, const std::string& policy, PullRequestStatus pr);
    // Called after each completed pass of a policy (synchronously; it must
    // not block): the pull request exporter looks at the policy again.
    using PassDoneFn = std::function<void(const std::string& ns, const std::string& policy)>;
    void on_pass_complete(PassDoneFn fn) { on_pass_complete_ = std::move(fn); }

    // After applying its inbox the aggregator waits this long before the
    // next batch (0: applies each arrival at once).
    static constexpr std::chrono::milliseconds kDefaultBatchWindow{250};
    void set_batch_window(std::chrono::milliseconds w) { batch_window_ = w; }

    // Applies the inbox until stop(); never awaits the apiserver.
    boost::asio::awaitable<void> run();
    // Writes the newest status of each changed policy until stop().
    boost::asio::awaitable<void> run_writer();
    void stop();

    // Pass starts and reports waiting to be applied (at most one per object).
    std::size_t backlog() const noexcept {
        return plans_.size() + reports_.size() + refreshes_.size() + pull_requests_.size();
    }
    // Policies whose newest status waits for the writer.
    std::size_t pending_writes() const noexcept { return writes_.size(); }
    // The newest status computed for a policy (nullptr before its first pass).
    const PolicyStatus* latest(const std::string& ns, const std::string& policy) const;

private:
    // One computed status, shared by the newest-computed map and the
    // writer's queue: a status of a hundred recommendations is not copied
    // per completion.
    using SharedStatus = std::shared_ptr<const PolicyStatus>;
    struct PendingWrite {
        std::string ns, policy;
        SharedStatus status;
    };
    void drain();
    void finish(CompletedPass c);
    void queue_write(const std::string& ns, const std::string& policy, SharedStatus status);
    void wake(boost::asio::steady_timer& t) { t.cancel(); }

    kube::Client& client_;
    EventQueue* events_;
    ControllerMetrics* metrics_;
    WriteOutcomeFn on_write_;
    WallClock now_;
    StatusAggregation state_;
    // The inbox: newest pass start per policy, newest report per workload, in arrival order.
    std::map<std::string, PolicyPassPlan> plans_;
    std::deque<std::string> plan_order_;
    std::unordered_map<std::string, WorkloadReport> reports_;
    std::deque<std::string> report_order_;
    std::map<std::string, std::pair<std::string, std::string>> refreshes_;  // "ns/name" -> {ns, name}
    std::map<std::pair<std::string, std::string>, PullRequestStatus> pull_requests_;
    PassDoneFn on_pass_complete_;
    // The writer's queue: newest unwritten status per policy.
    std::map<std::string, PendingWrite> writes_;
    std::deque<std::string> write_order_;
    std::map<std::string, SharedStatus> latest_;      // "ns/name" -> newest computed
    std::map<std::string, std::string> policy_uids_;  // "ns/name" -> uid, for Events about a failed write
    boost::asio::steady_timer wake_, wake_writer_, batch_;
    std::chrono::milliseconds batch_window_ = kDefaultBatchWindow;
    bool stopping_ = false;
};

}  // namespace attune::controller
