// Step 3 of a pass: the safety monitor (docs/safety.md). Every resized pod is
// watched for safetyObservationPeriod, on each pod change and on a timer;
// what hurts goes back to the originals stored on the pod, so a revert
// survives a manager restart. Verdicts are judge_safety's, the revert is
// plan_revert's (memory clamp on), sent through the same PATCH path.
#include <attune/controller/executor/resize_executor.hpp>

#include <attune/controller/recommendation_store.hpp>
#include <attune/core/safety/original_values.hpp>
#include <attune/core/recommend/promql.hpp>
#include <attune/core/resize/resize_report.hpp>
#include <attune/core/safety/safety_verdict.hpp>

#include <boost/json/serialize.hpp>

#include <spdlog/spdlog.h>

namespace attune::controller {
namespace asio = boost::asio;
namespace json = boost::json;
using namespace std::chrono_literals;

asio::awaitable<void> ResizeExecutor::watch_safety(PassContext& c) {
    const auto& us = c.policy->update_strategy;
    const auto period = std::chrono::duration_cast<std::chrono::seconds>(us.safety_observation_period);
    for (const auto& snapshot_pod : c.snap.pods) {
        const core::Pod& pod = snapshot_pod;
        const auto tracked = pod.labels.find(core::kTrackedLabel);
        if (tracked == pod.labels.end() || tracked->second != "true" || in_flight_.contains(pod.uid)) continue;
        auto originals = core::decode_originals(pod.annotations);
        if (!originals) {
            if (first_report(c, pod.uid, "invalid_original_annotation"))
                spdlog::error("pod originals do not decode; not judged, not reverted namespace={} pod={} uid={} "
                              "error=\"{}\"",
                              pod.namespace_, pod.name, pod.uid, originals.error().message);
            continue;
        }
        if (!originals.value() || !originals.value()->resized_at) continue;
        const auto& orig = *originals.value();
        core::SafetyInputs in;
        in.resized_at = *orig.resized_at;
        in.now = c.now;
        in.observation_period = period;
        const auto since = c.now - in.resized_at;
        if (query_ && since >= core::kThrottleGrace && since < period) {
            const auto q = core::throttling_ratio_query(pod.namespace_, core::regex_quote(pod.name), core::kThrottleGrace);
            in.throttling_ratio = co_await query_(c.rec->effective, q);
        }
        for (const auto& g : us.slo_guardrails) {
            core::SloMeasurement m;
            m.name = g.name;
            m.below = g.comparison == core::SloComparison::Below;
            m.threshold = g.threshold;
            m.evaluation_window = std::chrono::duration_cast<std::chrono::seconds>(g.evaluation_window);
            if (query_ && since <= m.evaluation_window) {
                // The query is the user's, confined to the policy's namespace:
                // a guardrail cannot read (or be fooled by) another namespace's series.
                auto rendered = core::render_guardrail_query(g.query, {pod.namespace_, c.snap.key.name, pod.name});
                auto confined = rendered ? core::force_namespace(rendered.value(), c.snap.key.ns) : rendered;
                if (confined) m.value = co_await query_(c.rec->effective, confined.value());
                else if (first_report(c, pod.uid, "slo:" + g.name))
                    spdlog::warn("guardrail query unusable; it passes namespace={} policy={} guardrail={} error=\"{}\"",
                                 c.snap.key.ns, c.policy_name, g.name, confined.error().message);
            }
            in.slo.push_back(std::move(m));
        }
        const auto v = core::judge_safety(pod, orig, in);
        if (v.kind == core::SafetyVerdictKind::Keep) {
            c.requeue_in(opts_.safety_tick);
            continue;
        }
        if (v.kind == core::SafetyVerdictKind::Done) {
            spdlog::info("safety watch done namespace={} pod={} uid={} message=\"{}\"", pod.namespace_, pod.name, pod.uid,
                         v.message);
            co_await patch_pod_metadata(pod, json::serialize(core::clear_tracking_patch(pod)), "clear tracking");
            continue;
        }
        // Revert.
        if (!us.auto_revert) {
            if (first_report(c, pod.uid, v.reason))
                spdlog::warn("safety check failed; autoRevert is off namespace={} pod={} uid={} reason={} message=\"{}\"",
                             pod.namespace_, pod.name, pod.uid, v.reason, v.message);
            c.requeue_in(opts_.safety_tick);
            continue;
        }
        const auto node = node_of(caches_, pod.node_name);
        core::PlanOptions popts;
        popts.node = node.probe;
        auto planned = core::plan_revert(pod, orig, *caps_, popts);
        if (const auto* skip = std::get_if<core::Skip>(&planned)) {
            if (skip->reason == "no_change") {
                co_await patch_pod_metadata(pod, json::serialize(core::clear_tracking_patch(pod)), "clear tracking");
                continue;
            }
            metrics_.revert_failures
                .Add({{"namespace", c.snap.key.ns}, {"workload", c.snap.key.name}, {"reason", v.reason}})
                .Increment();
            if (first_report(c, pod.uid, "revert:" + skip->reason))
                spdlog::error("revert cannot be planned namespace={} pod={} uid={} reason={} skip={} message=\"{}\"",
                              pod.namespace_, pod.name, pod.uid, v.reason, skip->reason, skip->message);
            continue;
        }
        auto plan = std::get<core::ResizePlan>(std::move(planned));
        ReplanFn replan = [&](const core::Pod& fresh) -> std::optional<core::ResizePlan> {
            auto again = core::plan_revert(fresh, orig, *caps_, popts);
            if (auto* p = std::get_if<core::ResizePlan>(&again)) return std::move(*p);
            return std::nullopt;
        };
        auto r = co_await submit(pod, plan, replan, false, c.snap.key.name);
        if (r.what != SubmitOutcome::Accepted) {
            if (r.what == SubmitOutcome::Fenced || r.what == SubmitOutcome::Held) continue;
            metrics_.revert_failures
                .Add({{"namespace", c.snap.key.ns}, {"workload", c.snap.key.name}, {"reason", v.reason}})
                .Increment();
            spdlog::error("revert not sent namespace={} pod={} uid={} reason={} error=\"{}\"", pod.namespace_, pod.name,
                          pod.uid, v.reason, r.message);
            c.requeue_in(opts_.safety_tick);
            continue;
        }
        const auto changes = core::container_changes(r.pod, r.plan.planned);
        track(c, r, core::TrackedKind::Revert, v.reason);
        reverted_[pod.uid] = c.targets_key;
        metrics_.reverts.Add({{"namespace", c.snap.key.ns}, {"workload", c.snap.key.name}, {"reason", v.reason}})
            .Increment();
        history(c, core::history_entries(changes, c.snap.key.name, core::HistoryMethod::InPlace,
                                         core::HistoryResult::Reverted, v.reason, c.now));
        spdlog::
            warn("reverted to the stored originals namespace={} pod={} uid={} reason={} message=\"{}\" changes=\"{}\"",
                 pod.namespace_, pod.name, pod.uid, v.reason, v.message,
                 core::describe_changes(changes, core::NumberStyle::Exact));
        core::EventIntent ev{"Warning", std::string(core::kEventReverted), "revert",
                             "pod " + pod.name + " reverted (" + v.reason + "): " + v.message + "; " +
                                 core::describe_changes(changes, core::NumberStyle::Readable),
                             false};
        emit(c, std::move(ev));
    }
}

}  // namespace attune::controller
