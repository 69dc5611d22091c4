// What the executor tells the user (docs/resize.md): Events regarding the
// AttunePolicy (docs/api.md#events), status.resizeHistory entries through the
// ledger, and the counters of docs/resize.md#metrics. Reasons and texts come from the core
// (skip_report, history_entries, describe_changes).
#include <attune/controller/executor/resize_executor.hpp>

#include <attune/controller/recommendation_store.hpp>
#include <attune/core/policy/event_dedup.hpp>
#include <attune/core/model/label_selector.hpp>
#include <attune/core/resize/resize_report.hpp>
#include <attune/core/resize/resize_targets.hpp>

#include <spdlog/spdlog.h>

namespace attune::controller {
namespace asio = boost::asio;

namespace {

std::string resource_label(const std::vector<core::ContainerChange>& changes) {
    bool cpu = false, memory = false;
    for (const auto& ch : changes) {
        cpu = cpu || ch.resource == core::HistoryResource::Cpu || ch.resource == core::HistoryResource::CpuAndMemory;
        memory = memory || ch.resource == core::HistoryResource::Memory ||
                 ch.resource == core::HistoryResource::CpuAndMemory;
    }
    if (cpu && memory) return "cpu+memory";
    return cpu ? "cpu" : "memory";
}

}  // namespace

void ResizeExecutor::emit(const PassContext& c, const core::EventIntent& e, const kube::ObjectReference* regarding) {
    if (!events_) return;
    std::string suppress;
    if (c.snap.policy) {
        const auto ann = core::annotations_of(*c.snap.policy);
        if (auto it = ann.find(core::kSuppressWarningsAnnotation); it != ann.end()) suppress = it->second;
    }
    events_->push(policy_event(regarding ? *regarding : c.regarding, e, std::move(suppress)));
}

void ResizeExecutor::history(PassContext& c, std::vector<core::HistoryEntry> entries) {
    ledger_.append(*c.book, std::move(entries));
}

void ResizeExecutor::count_resize(const PassContext& c, const std::vector<core::ContainerChange>& changes,
                                  std::string result) {
    metrics_.resize_total
        .Add({{"namespace", c.snap.key.ns},
              {"workload", c.snap.key.name},
              {"resource", resource_label(changes)},
              {"result", std::move(result)}})
        .Increment();
}

bool ResizeExecutor::first_report(const PassContext& c, const std::string& pod_uid, const std::string& reason) {
    auto& seen = reported_holds_[pod_uid];
    if (seen.size() >= 16) seen.clear();  // bounded: an old report may repeat once, never grow without end
    return seen.emplace(c.targets_key, reason).second;
}

asio::awaitable<void> ResizeExecutor::report_held(PassContext& c, const core::Pod& pod, const core::ResizeHeld& h) {
    // A hold is reported once per pod and recommendation: the gates are asked
    // again on every pass, the user is told once.
    if (!first_report(c, pod.uid, h.reason)) co_return;
    spdlog::info("resize held namespace={} pod={} uid={} workload={} policy={} reason={} message=\"{}\"",
                 pod.namespace_, pod.name, pod.uid, c.snap.key.name, c.policy_name, h.reason, h.message);
    for (const auto& n : h.notes)
        spdlog::warn("resize note namespace={} pod={} uid={} note=\"{}\"", pod.namespace_, pod.name, pod.uid, n);
    metrics_.count_skip(c.snap.key.ns, c.policy_name, h.reason);
    const auto targets = core::resize_targets(c.rec->recommendation, *c.policy);
    const auto changes = core::target_changes(pod, targets.targets, targets.controlled_values);
    if (h.reason != "no_change") {
        if (!changes.empty()) count_resize(c, changes, "skipped");
        // The history gets one entry per workload, recommendation and reason:
        // three replicas held by one cooldown are one skip, not three.
        auto& recorded = recorded_holds_[c.snap.key.str()];
        const std::pair<std::string, std::string> now{c.targets_key, h.reason};
        if (recorded != now) {
            recorded = now;
            history(c, core::history_entries(changes, c.snap.key.name, core::HistoryMethod::InPlace,
                                             core::HistoryResult::Held, h.reason, c.now));
        }
    }
    for (const auto& e : h.events) emit(c, e);
}

asio::awaitable<void> ResizeExecutor::report_not_sent(PassContext& c, const core::Pod& pod, const SubmitResult& r) {
    const auto changes = core::container_changes(r.pod, r.plan.planned.containers.empty() ? r.pod : r.plan.planned);
    switch (r.what) {
        case SubmitOutcome::Accepted: co_return;
        case SubmitOutcome::Fenced:
            spdlog::info("resize not sent: not the leader namespace={} pod={} uid={}", pod.namespace_, pod.name, pod.uid);
            co_return;
        case SubmitOutcome::Held:
            spdlog::info("resize no longer needed after a re-read namespace={} pod={} uid={}", pod.namespace_,
                         pod.name, pod.uid);
            co_return;
        case SubmitOutcome::Refused: {
            if (r.reason == "NotFound") co_return;  // deleted meanwhile: its deletion settles it
            // Never retried blindly: this pod waits for the next recommendation.
            refused_[pod.uid] = c.targets_key;
            spdlog::error("resize refused by the apiserver; not retried for this recommendation namespace={} pod={} "
                          "uid={} workload={} reason={} status=\"{}\"",
                          pod.namespace_, pod.name, pod.uid, c.snap.key.name, r.reason, r.message);
            count_resize(c, changes, "refused");
            metrics_.count_skip(c.snap.key.ns, c.policy_name, "apiserver_refused");
            history(c, core::history_entries(changes, c.snap.key.name, core::HistoryMethod::InPlace,
                                             core::HistoryResult::Failed, r.reason, c.now));
            core::EventIntent ev{"Warning", std::string(core::kEventResizeSkipped), "resize",
                                 "pod " + pod.name + ": the apiserver refused the resize (" + r.reason + "): " + r.message,
                                 true};
            emit(c, std::move(ev));
            co_return;
        }
        case SubmitOutcome::Failed: {
            spdlog::warn("resize not sent namespace={} pod={} uid={} workload={} reason={} error=\"{}\"", pod.namespace_,
                         pod.name, pod.uid, c.snap.key.name, r.reason, r.message);
            count_resize(c, changes, "failed");
            c.requeue_in(opts_.held_requeue);
            if (!first_report(c, pod.uid, r.reason)) co_return;
            history(c, core::history_entries(changes, c.snap.key.name, core::HistoryMethod::InPlace,
                                             core::HistoryResult::Failed, r.reason, c.now));
            core::EventIntent ev{"Warning", std::string(core::kEventResizeFailed), "resize",
                                 "pod " + pod.name + ": the resize was not sent (" + r.reason + "): " + r.message, false};
            emit(c, std::move(ev));
            co_return;
        }
    }
}

}  // namespace attune::controller
