#include <attune/controller/recommendation_exporter.hpp>

#include <attune/core/recommend/recommendation_export.hpp>
#include <attune/kube/object_cache.hpp>

#include <boost/asio/as_tuple.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <boost/json/serialize.hpp>

#include <spdlog/spdlog.h>

namespace attune::controller {
namespace asio = boost::asio;
namespace json = boost::json;

RecommendationExporter::RecommendationExporter(asio::any_io_executor ex, kube::Client& client, EventQueue& events,
                                               WallClock now, std::chrono::milliseconds retry_after)
    : client_(client), events_(events), now_(std::move(now)), retry_after_(retry_after),
      wake_(ex, asio::steady_timer::time_point::max()) {}

void RecommendationExporter::recommended(const StoredRecommendation& entry, const kube::ObjectReference& policy,
                                         const std::string& suppress_warnings) {
    if (stopping_ || !entry.effective || !entry.effective->update_strategy.export_.config_map) return;
    const auto key = entry.workload.str();
    if (auto it = exported_.find(key); it != exported_.end() && it->second == entry.generation) return;
    core::ExportTarget target{entry.policy, policy.uid, entry.workload.ns, entry.workload.name, entry.workload.kind};
    Operation op;
    op.ns = entry.workload.ns;
    op.name = core::export_config_map_name(entry.policy, entry.workload.name);
    op.policy = policy;
    op.suppress_warnings = suppress_warnings;
    op.workload_key = key;
    op.generation = entry.generation;
    auto body = core::export_config_map(target, entry.recommendation, entry.computed_at, now_());
    if (!body) {
        // Never sent: the apiserver would refuse it. Said once per
        // generation (and the Event once per hour).
        exported_[key] = entry.generation;
        failed(op, body.error().message);
        return;
    }
    op.body = std::move(body).value();
    queue(std::move(op));
}

void RecommendationExporter::workload_left(const StoredRecommendation& entry) {
    if (stopping_) return;
    const auto key = entry.workload.str();
    const bool exported = exported_.erase(key) > 0;
    if (!exported && (!entry.effective || !entry.effective->update_strategy.export_.config_map)) return;
    Operation op;
    op.ns = entry.workload.ns;
    op.name = core::export_config_map_name(entry.policy, entry.workload.name);
    op.policy = {"attune.io/v1alpha1", "AttunePolicy", entry.workload.ns, entry.policy, ""};
    op.workload_key = key;
    queue(std::move(op));
}

void RecommendationExporter::queue(Operation op) {
    auto id = op.ns + "/" + op.name;
    // A newer operation supersedes a failed one waiting for its retry: a
    // write retried after the delete would bring the ConfigMap back.
    std::erase_if(retries_, [&](const auto& r) { return r.second.ns == op.ns && r.second.name == op.name; });
    auto [it, fresh] = ops_.insert_or_assign(id, std::move(op));
    if (fresh) order_.push_back(std::move(id));
    wake_.cancel();
}

void RecommendationExporter::stop() {
    stopping_ = true;
    wake_.cancel();
}

void RecommendationExporter::failed(const Operation& op, const std::string& message) {
    spdlog::warn("recommendation export failed namespace={} configmap={} policy={} error=\"{}\"", op.ns, op.name,
                 op.policy.name, message);
    core::EventIntent intent{"Warning", "ExportFailed", "export",
                             "ConfigMap " + op.name + (op.body ? " not written: " : " not deleted: ") + message, true};
    events_.push(policy_event(op.policy, intent, op.suppress_warnings));
}

asio::awaitable<bool> RecommendationExporter::execute(const Operation& op) {
    const auto rt = kube::resources::config_maps();
    if (!op.body) {
        auto r = co_await client_.remove(rt, op.ns, op.name);
        if (r || r.error().is_not_found()) {
            spdlog::info("export ConfigMap deleted namespace={} configmap={}", op.ns, op.name);
            co_return true;
        }
        if (r.error().is_fenced()) co_return true;  // a standby: the leader does it
        failed(op, r.error().message);
        co_return false;
    }
    const auto body = json::serialize(*op.body);
    auto r = co_await client_.patch(rt, op.ns, op.name, kube::PatchType::JsonMerge, body);
    if (!r && r.error().is_not_found()) {
        r = co_await client_.create(rt, op.ns, json::value(*op.body));
        // Created meanwhile by another writer: merge into it.
        if (!r && r.error().is_already_exists())
            r = co_await client_.patch(rt, op.ns, op.name, kube::PatchType::JsonMerge, body);
    }
    if (!r) {
        if (r.error().is_fenced()) co_return true;
        failed(op, r.error().message);
        co_return false;
    }
    exported_[op.workload_key] = op.generation;
    spdlog::info("recommendations exported namespace={} configmap={} policy={} resourceVersion={}", op.ns, op.name,
                 op.policy.name, kube::meta_string(r.value(), "resourceVersion"));
    co_return true;
}

asio::awaitable<void> RecommendationExporter::run() {
    while (!stopping_) {
        const auto now = std::chrono::steady_clock::now();
        // Retries that are due rejoin the queue, unless a newer operation
        // for the same ConfigMap is waiting already.
        while (!retries_.empty() && retries_.begin()->first <= now) {
            auto node = retries_.extract(retries_.begin());
            auto& op = node.mapped();
            auto id = op.ns + "/" + op.name;
            if (!ops_.contains(id)) queue(std::move(op));
        }
        if (order_.empty()) {
            wake_.expires_at(retries_.empty() ? asio::steady_timer::time_point::max() : retries_.begin()->first);
            co_await wake_.async_wait(asio::as_tuple(asio::use_awaitable));
            continue;
        }
        const auto id = order_.front();
        order_.pop_front();
        auto node = ops_.extract(id);
        if (node.empty()) continue;
        auto op = std::move(node.mapped());
        if (!co_await execute(op) && !ops_.contains(id))
            retries_.emplace(std::chrono::steady_clock::now() + retry_after_, std::move(op));
    }
}

}  // namespace attune::controller
