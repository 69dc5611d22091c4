#pragma once
// updateStrategy.export.configMap, the write side: the ConfigMap body is the
// core's (core/recommend/recommendation_export.hpp); this coroutine writes it. The
// controller hands it each recommendation it applies and each workload that
// leaves its policy, synchronously; the inbox keeps one pending operation
// per ConfigMap (the newest wins), so it is bounded by the number of
// workloads. A write is a JSON merge patch, and a create when the ConfigMap
// does not exist yet; a workload that leaves its policy has its ConfigMap
// deleted; the policy's deletion takes the rest with it (owner reference).
// A failed write or delete is an ExportFailed Event on the policy (D: at
// most once per hour per message) and is tried again after `retry_after`,
// unless a newer operation for the same ConfigMap replaced it.
#include <attune/controller/event_queue.hpp>
#include <attune/controller/recommendation_store.hpp>
#include <attune/kube/client.hpp>

#include <boost/asio/any_io_executor.hpp>
#include <boost/asio/awaitable.hpp>
#include <boost/asio/steady_timer.hpp>

#include <chrono>
#include <cstdint>
#include <deque>
#include <functional>
#include <map>
#include <optional>
#include <string>

namespace attune::controller {

class RecommendationExporter {
public:
    using WallClock = std::function<core::Timestamp()>;

    RecommendationExporter(boost::asio::any_io_executor ex, kube::Client& client, EventQueue& events, WallClock now,
                           std::chrono::milliseconds retry_after = std::chrono::minutes(1));

    // A recommendation the store holds now. Written when the policy exports
    // and this generation has not been written by this process yet.
    void recommended(const StoredRecommendation& entry, const kube::ObjectReference& policy,
                     const std::string& suppress_warnings);
    // The workload is no longer managed by `entry.policy` (deleted, opted
    // out, selected by another policy or by none).
    void workload_left(const StoredRecommendation& entry);

    boost::asio::awaitable<void> run();
    void stop();

    std::size_t pending() const noexcept { return order_.size(); }

private:
    struct Operation {
        std::string ns, name;  // the ConfigMap
        std::optional<boost::json::object> body;  // nullopt: delete it
        kube::ObjectReference policy;
        std::string suppress_warnings;
        std::string workload_key;  // the exported_ entry it settles
        std::uint64_t generation = 0;
    };
    void queue(Operation op);
    boost::asio::awaitable<bool> execute(const Operation& op);
    void failed(const Operation& op, const std::string& message);

    kube::Client& client_;
    EventQueue& events_;
    WallClock now_;
    std::chrono::milliseconds retry_after_;
    std::map<std::string, Operation> ops_;  // by "ns/name" of the ConfigMap
    std::deque<std::string> order_;
    std::multimap<std::chrono::steady_clock::time_point, Operation> retries_;
    std::map<std::string, std::uint64_t> exported_;  // workload key -> generation written
    boost::asio::steady_timer wake_;
    bool stopping_ = false;
};

}  // namespace attune::controller
