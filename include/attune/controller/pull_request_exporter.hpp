#pragma once
// updateStrategy.export.pullRequest, the I/O side (docs/api.md#gitops-pull-requests).
// The aggregator hands it every policy whose pass completed; one coroutine
// looks at them one at a time: the drift of the policy's recommendations
// against its workloads' templates, the decision (core/followups/pull_request.hpp),
// then, to send, the token from the policy's Secret (SecretReader), and the
// forge's REST calls (core::ForgeSession) through a kube::ForgeClient for
// the policy's apiUrl. What it decided goes to the aggregator (the
// GitOpsPullRequest condition, status.gitopsPR), an attempt also to the
// policy's annotations (attune.io/gitops-pr-last-attempt, -url), an Event
// and attune_gitops_pr_total. The inbox holds one entry per policy. The
// token is never logged and never in a message.
#include <attune/controller/event_queue.hpp>
#include <attune/controller/metrics.hpp>
#include <attune/controller/recommendation_store.hpp>
#include <attune/controller/secret_reader.hpp>
#include <attune/controller/status_aggregator.hpp>
#include <attune/core/followups/pull_request.hpp>
#include <attune/kube/client.hpp>
#include <attune/policy/cache_views.hpp>

#include <boost/asio/any_io_executor.hpp>
#include <boost/asio/awaitable.hpp>
#include <boost/asio/steady_timer.hpp>

#include <chrono>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <set>
#include <string>

namespace attune::controller {

struct PullRequestOptions {
    PullRequestOptions() = default;
    std::chrono::milliseconds request_timeout{30'000};  // each REST call
    std::string ca_file;  // --gitops-ca-file: a PEM bundle trusted for apiUrls; "" : the system store
    // Loopback apiUrls (--allow-local-metrics-addresses), checked at connect time.
    bool allow_local_addresses = false;
};

class PullRequestExporter {
public:
    using WallClock = std::function<core::Timestamp()>;
    // The policy's merged settings (null when they do not resolve).
    using Resolve = std::function<std::shared_ptr<const core::EffectivePolicy>(const kube::ObjectCache::ObjectPtr&)>;

    // `secrets` null: no Secret reads (--allow-secret-reads is off), so no
    // pull request can be sent; `metrics` may be null.
    PullRequestExporter(boost::asio::any_io_executor ex, kube::Client& client, const policy::CacheViews& caches,
                        const RecommendationStore& store, StatusAggregator& aggregator, EventQueue& events,
                        ControllerMetrics* metrics, SecretReader* secrets, Resolve resolve, WallClock now,
                        PullRequestOptions opts);

    // A pass of the policy completed: look at it again.
    void policy_changed(const std::string& ns, const std::string& policy);
    boost::asio::awaitable<void> run();
    void stop();

private:
    struct Memory {
        std::optional<core::PullRequestRecord> record;
        std::optional<core::Condition> condition;
        std::string event;  // the last Event's reason and message: one Event per outcome
    };
    boost::asio::awaitable<void> look_at(const std::string& ns, const std::string& policy);
    void publish(const std::string& ns, const std::string& policy, Memory& m, std::optional<core::Condition> c);
    // The metric, the Event and the status of an attempt, then its annotations.
    void note_attempt(const kube::ObjectCache::ObjectPtr& policy, Memory& m, const core::PullRequestOutcome& o);
    boost::asio::awaitable<void> record_attempt(kube::ObjectCache::ObjectPtr policy, Memory& m,
                                                core::PullRequestOutcome o);

    kube::Client& client_;
    const policy::CacheViews& caches_;
    const RecommendationStore& store_;
    StatusAggregator& aggregator_;
    EventQueue& events_;
    ControllerMetrics* metrics_;
    SecretReader* secrets_;
    Resolve resolve_;
    WallClock now_;
    PullRequestOptions opts_;
    boost::asio::any_io_executor ex_;
    std::set<std::pair<std::string, std::string>> queued_;
    std::deque<std::pair<std::string, std::string>> order_;
    std::map<std::string, Memory> memory_;  // "ns/policy"
    boost::asio::steady_timer wake_;
    bool stopping_ = false;
};

}  // namespace attune::controller
