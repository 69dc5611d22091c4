// Step 1 of a pass: follow the resizes of ours in flight through the pod
// informer until they settle (docs/resize.md). A PATCH that
// was accepted is not success: only Applied is.
#include <attune/controller/executor/resize_executor.hpp>

#include <attune/controller/recommendation_store.hpp>
#include <attune/core/safety/original_values.hpp>
#include <attune/core/resize/resize_report.hpp>
#include <attune/core/followups/startup_boost_restore.hpp>

#include <boost/json/serialize.hpp>

#include <spdlog/spdlog.h>

namespace attune::controller {
namespace asio = boost::asio;
namespace json = boost::json;

asio::awaitable<void> ResizeExecutor::follow(PassContext& c) {
    // Adopt resizes found in flight that we never followed (after a restart
    // or a failover): they hold a slot and are followed to the end, but
    // nothing is reported for them and nothing is sent again.
    for (const auto& pod : c.snap.pods) {
        if (in_flight_.contains(pod.uid) || followed_.contains(pod.uid)) continue;
        if (!pod.labels.contains(core::kTrackedLabel) && !pod.annotations.contains(core::kStartupBoostAtAnnotation))
            continue;
        const auto st = core::classify_current_resize(pod);
        followed_.insert(pod.uid);
        if (st.state == core::ResizeState::Applied || st.state == core::ResizeState::Pending) continue;
        InFlightResize f;
        f.t.kind = core::TrackedKind::Adopted;
        f.t.pod_uid = pod.uid;
        f.t.pod_name = pod.name;
        f.t.request = core::current_request(pod);
        // What it asks for, as far as the pod tells: from what runs to its spec.
        core::Pod running = pod;
        for (auto& ct : running.containers)
            if (const auto* cs = pod.find_status(ct.name); cs && cs->resources) ct.resources = *cs->resources;
        f.t.changes = core::container_changes(running, pod);
        f.t.submitted_at = c.now;
        f.workload = c.snap.key;
        f.policy = c.policy_name;
        f.policy_key = c.policy_key;
        f.sent = std::chrono::steady_clock::now();
        cycles_.submit(c.policy_key, c.snap.key.str(), pod.uid, {});
        resized_pods_[c.snap.key.str()].insert(pod.uid);
        spdlog::info("adopted a resize in flight namespace={} pod={} uid={} state={}", pod.namespace_, pod.name,
                     pod.uid, core::resize_state_name(st.state));
        in_flight_.insert_or_assign(pod.uid, std::move(f));
    }

    // Never hold an iterator into in_flight_ across a co_await: other passes
    // change it meanwhile. Each pod's entry is looked up, decided and moved
    // out in one synchronous step.
    for (const auto& pod : c.snap.pods) {
        auto it = in_flight_.find(pod.uid);
        if (it == in_flight_.end()) continue;
        const auto u = core::track_resize(it->second.t, &pod, c.now);
        if (u.verdict == core::TrackVerdict::Waiting) {
            if (u.became_deferred) it->second.t.deferred_since = c.now;
            const auto deferred_since = it->second.t.deferred_since;
            const bool report_error = u.error_now && it->second.t.kind != core::TrackedKind::Adopted;
            if (u.error_now) it->second.t.error_reported = true;
            const auto changes = it->second.t.changes;
            if (report_error) {
                // The kubelet tried and failed (e.g. a memory limit below usage); it keeps trying.
                const std::string note = "pod " + pod.name + ": the kubelet could not apply the resize (" +
                                         core::describe_changes(changes, core::NumberStyle::Readable) +
                                         "): " + u.status.message;
                spdlog::warn("resize failed on the node namespace={} pod={} uid={} message=\"{}\"", pod.namespace_,
                             pod.name, pod.uid, u.status.message);
                history(c, core::history_entries(changes, c.snap.key.name, core::HistoryMethod::InPlace,
                                                 core::HistoryResult::Failed, "kubelet-error", c.now));
                count_resize(c, changes, "failed");
                core::EventIntent ev{"Warning", std::string(core::kEventResizeFailed), "resize", note, false};
                emit(c, std::move(ev));
            }
            if (u.status.state == core::ResizeState::Deferred && c.acting)
                co_await evict_or_block(c, pod, u.status, deferred_since, changes);
            continue;
        }
        InFlightResize f = std::move(it->second);
        in_flight_.erase(it);
        switch (u.verdict) {
            case core::TrackVerdict::Applied:
                co_await settle_applied(c, std::move(f), pod);
                break;
            case core::TrackVerdict::Infeasible:
                cycles_.settle(f.policy_key, pod.uid, false);
                if (f.t.deferred_since)
                    metrics_.observe_deferred_age(c.snap.key.ns, c.policy_name,
                                                  std::chrono::duration<double>(c.now - *f.t.deferred_since).count());
                spdlog::warn("resize infeasible namespace={} pod={} uid={} message=\"{}\"", pod.namespace_, pod.name,
                             pod.uid, u.status.message);
                if (c.acting) co_await evict_or_block(c, pod, u.status, f.t.deferred_since, f.t.changes);
                break;
            case core::TrackVerdict::Superseded:
            case core::TrackVerdict::Gone:
                cycles_.settle(f.policy_key, pod.uid, false);
                spdlog::info("resize superseded: the pod spec no longer carries it namespace={} pod={} uid={}",
                             pod.namespace_, pod.name, pod.uid);
                break;
            case core::TrackVerdict::Waiting:
                break;
        }
    }
}

asio::awaitable<void> ResizeExecutor::settle_applied(PassContext& c, InFlightResize f, const core::Pod& pod) {
    cycles_.settle(f.policy_key, pod.uid, true);
    const double took = std::chrono::duration<double>(std::chrono::steady_clock::now() - f.sent).count();
    if (f.t.deferred_since)
        metrics_.observe_deferred_age(c.snap.key.ns, c.policy_name,
                                      std::chrono::duration<double>(c.now - *f.t.deferred_since).count());
    switch (f.t.kind) {
        case core::TrackedKind::Resize: {
            metrics_.observe_resize_duration(c.snap.key.ns, c.snap.key.name, took);
            count_resize(c, f.t.changes, "success");
            history(c, core::history_entries(f.t.changes, c.snap.key.name, core::HistoryMethod::InPlace,
                                             core::HistoryResult::Success, "", c.now));
            applied_since_persist_.insert(c.snap.key.str());
            char secs[32];
            std::snprintf(secs, sizeof secs, "%.1f", took);
            const std::string note = "pod " + pod.name + " resized in place: " +
                                     core::describe_changes(f.t.changes, core::NumberStyle::Readable) + " (applied " +
                                     secs + " s after the request)";
            spdlog::info("resize applied namespace={} pod={} uid={} workload={} seconds={:.3f} changes=\"{}\"",
                         pod.namespace_, pod.name, pod.uid, c.snap.key.name, took,
                         core::describe_changes(f.t.changes, core::NumberStyle::Exact));
            core::EventIntent ev{"Normal", std::string(core::kEventResized), "resize", note, false};
            emit(c, std::move(ev));
            break;
        }
        case core::TrackedKind::Revert:
            // Back at the originals: the safety watch of this resize is over.
            spdlog::info("revert applied namespace={} pod={} uid={} reason={}", pod.namespace_, pod.name, pod.uid,
                         f.t.reason);
            co_await patch_pod_metadata(pod, json::serialize(core::clear_tracking_patch(pod)), "clear tracking");
            break;
        case core::TrackedKind::BoostRestore:
            metrics_.startup_boost.Add({{"namespace", c.snap.key.ns}, {"policy", c.policy_name}, {"action", "restored"}})
                .Increment();
            spdlog::info("startup boost ended namespace={} pod={} uid={} changes=\"{}\"", pod.namespace_, pod.name,
                         pod.uid, core::describe_changes(f.t.changes, core::NumberStyle::Exact));
            co_await patch_pod_metadata(pod, json::serialize(core::boost_restore_done_patch()), "startup boost done");
            break;
        case core::TrackedKind::Adopted:
            spdlog::info("adopted resize applied namespace={} pod={} uid={}", pod.namespace_, pod.name, pod.uid);
            break;
    }
}

}  // namespace attune::controller
