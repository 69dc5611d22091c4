// What follows a resize (docs/resize.md): InPlaceOrRecreate eviction (or
// InfeasibleBlocked), the end of startup boosts, template persistence and
// the HPA retune. Every decision is the core's: decide_eviction,
// decide_boost_restore, plan_template_patch, retune_hpa.
#include <attune/controller/executor/resize_executor.hpp>

#include <attune/controller/recommendation_store.hpp>
#include <attune/core/followups/eviction.hpp>
#include <attune/core/followups/hpa_retune.hpp>
#include <attune/core/resize/resize_report.hpp>
#include <attune/core/resize/resize_targets.hpp>
#include <attune/core/followups/startup_boost_restore.hpp>
#include <attune/core/followups/gitops_drift.hpp>
#include <attune/core/followups/template_persistence.hpp>
#include <attune/core/model/label_selector.hpp>
#include <attune/core/recommend/workload_baseline.hpp>

#include <boost/json/serialize.hpp>

#include <spdlog/spdlog.h>

namespace attune::controller {
namespace asio = boost::asio;
namespace json = boost::json;
using namespace std::chrono_literals;

namespace {

core::Quantity cpu_requests(const core::Pod& p) {
    core::Quantity sum;
    for (const auto& c : p.containers)
        if (const auto* q = core::find(c.resources.requests, core::kCpu)) sum += *q;
    return sum;
}

// The pod's CPU limit total; nullopt when a container has none (no limit overall).
std::optional<core::Quantity> cpu_limits(const core::Pod& p) {
    core::Quantity sum;
    for (const auto& c : p.containers) {
        const auto* q = core::find_positive(c.resources.limits, core::kCpu);
        if (!q) return std::nullopt;
        sum += *q;
    }
    return sum;
}

}  // namespace

asio::awaitable<void> ResizeExecutor::evict_or_block(PassContext& c, const core::Pod& pod, core::ResizeStatus status,
                                                     std::optional<core::Timestamp> deferred_since,
                                                     std::vector<core::ContainerChange> changes) {
    core::EvictionInputs in;
    in.method = c.policy->update_strategy.resize_method;
    in.state = status;
    in.deferred_since = deferred_since;
    in.deferred_bound = opts_.deferred_bound;
    in.running_replicas = core::count_running_replicas(c.snap.pods);
    in.now = c.now;
    const auto d = core::decide_eviction(in);
    const std::string ns = c.snap.key.ns, wl = c.snap.key.name;
    switch (d.action) {
        case core::EvictionAction::None:
            if (status.state == core::ResizeState::Deferred && deferred_since &&
                in.method == core::ResizeMethod::InPlaceOrRecreate) {
                const auto due = *deferred_since + opts_.deferred_bound - c.now;
                c.requeue_in(std::max<std::chrono::milliseconds>(1s, due));
            }
            co_return;
        case core::EvictionAction::InfeasibleBlocked: {
            if (!first_report(c, pod.uid, "infeasible")) co_return;
            metrics_.infeasible_skipped.Add({{"namespace", ns}, {"workload", wl}}).Increment();
            spdlog::warn("infeasible resize left alone (InPlaceOnly) namespace={} pod={} uid={} message=\"{}\"", ns,
                         pod.name, pod.uid, d.message);
            core::EventIntent ev{"Warning", std::string(core::kEventInfeasibleBlocked), "resize",
                                 "pod " + pod.name + ": " + d.message, true};
            emit(c, std::move(ev));
            co_return;
        }
        case core::EvictionAction::EvictionBlocked: {
            if (!first_report(c, pod.uid, d.reason)) co_return;
            metrics_.evictions.Add({{"namespace", ns}, {"workload", wl}, {"result", "blocked"}}).Increment();
            spdlog::warn("eviction blocked namespace={} pod={} uid={} reason={} message=\"{}\"", ns, pod.name, pod.uid,
                         d.reason, d.message);
            core::EventIntent ev{"Warning", std::string(core::kEventEvictionBlocked), "resize",
                                 "pod " + pod.name + ": " + d.message, true};
            emit(c, std::move(ev));
            co_return;
        }
        case core::EvictionAction::Evict:
            break;
    }
    // Through the Eviction API, so PodDisruptionBudgets hold.
    http::Request req;
    req.method = http::Verb::Post;
    req.target = kube::object_path(kube::resources::pods(), ns, pod.name, "eviction");
    req.headers.emplace_back("Content-Type", "application/json");
    req.body = json::serialize(core::eviction_body(pod));
    auto r = co_await client_.execute(std::move(req), "create");
    if (!r) {
        const auto& e = r.error();
        if (e.is_fenced() || e.is_not_found()) co_return;
        const bool denied = e.is_too_many_requests();  // a PodDisruptionBudget says no (for now)
        metrics_.evictions.Add({{"namespace", ns}, {"workload", wl}, {"result", denied ? "denied" : "failed"}})
            .Increment();
        c.requeue_in(opts_.held_requeue);
        spdlog::warn("eviction refused namespace={} pod={} uid={} error=\"{}\"", ns, pod.name, pod.uid, e.describe());
        if (!first_report(c, pod.uid, denied ? "EvictionDenied" : "eviction_failed")) co_return;
        core::EventIntent ev{"Warning", denied ? "EvictionDenied" : std::string(core::kEventEvictionBlocked), "resize",
                             "pod " + pod.name + ": eviction refused: " + e.message, true};
        emit(c, std::move(ev));
        co_return;
    }
    metrics_.evictions.Add({{"namespace", ns}, {"workload", wl}, {"result", "success"}}).Increment();
    // Its replacement must not be resized and evicted again at once.
    cycles_.acted(c.policy_key);
    co_await write_cooldown_anchor(c, "evicted " + pod.name);
    history(c, core::history_entries(changes, wl, core::HistoryMethod::Eviction, core::HistoryResult::Evicted, d.reason,
                                     c.now));
    spdlog::warn("evicted for recreation namespace={} pod={} uid={} reason={} message=\"{}\"", ns, pod.name, pod.uid,
                 d.reason, d.message);
    core::EventIntent ev{"Warning", std::string(core::kEventEvicted), "resize",
                         "pod " + pod.name + " evicted (" + d.reason + "): " + d.message, false};
    emit(c, std::move(ev));
}

asio::awaitable<void> ResizeExecutor::restore_boosts(PassContext& c) {
    const auto& boost = c.policy->cpu.startup_boost;
    for (const auto& snapshot_pod : c.snap.pods) {
        const core::Pod& pod = snapshot_pod;
        if (!pod.annotations.contains(core::kStartupBoostAtAnnotation) || in_flight_.contains(pod.uid)) continue;
        core::BoostRestoreInputs in;
        in.now = c.now;
        if (boost) {
            in.duration = std::chrono::duration_cast<std::chrono::seconds>(boost->duration);
            in.multiplier = boost->multiplier;
        }
        // The recommendation the pod was sized from, where the store has it.
        for (const auto& rc : c.rec->recommendation.containers)
            if (rc.recommended.cpu_request.sign() > 0)
                in.unboosted[rc.name].requests.insert_or_assign(std::string(core::kCpu), rc.recommended.cpu_request);
        const auto d = core::decide_boost_restore(pod, in);
        switch (d.action) {
            case core::BoostRestoreAction::NotBoosted:
                break;
            case core::BoostRestoreAction::Boosting:
                c.requeue_in(std::max<std::chrono::milliseconds>(1s, d.remaining));
                break;
            case core::BoostRestoreAction::Clear:
                if (co_await patch_pod_metadata(pod, json::serialize(core::boost_restore_done_patch()), "startup boost done"))
                    metrics_.startup_boost
                        .Add({{"namespace", c.snap.key.ns}, {"policy", c.policy_name}, {"action", "cleared"}})
                        .Increment();
                break;
            case core::BoostRestoreAction::Restore: {
                if (!d.message.empty())
                    spdlog::warn("startup boost restored early namespace={} pod={} uid={} message=\"{}\"",
                                 pod.namespace_, pod.name, pod.uid, d.message);
                const auto node = node_of(caches_, pod.node_name);
                core::PlanOptions popts;
                popts.node = node.probe;
                // A decrease back to the template's values: neither the window nor the
                // cooldown holds it, and the increase gates never see it (only LimitRange may).
                auto gates = gate_inputs(c, pod, node.facts ? &*node.facts : nullptr);
                gates.restore = true;
                auto decision =
                    core::decide_resize(pod, d.targets, *caps_, core::ControlledValues::RequestsOnly, popts, gates);
                if (auto* held = std::get_if<core::ResizeHeld>(&decision)) {
                    if (held->reason == "no_change") {
                        co_await patch_pod_metadata(pod, json::serialize(core::boost_restore_done_patch()),
                                                    "startup boost done");
                    } else if (first_report(c, pod.uid, "boost:" + held->reason)) {
                        spdlog::warn("startup boost restore held namespace={} pod={} uid={} reason={} message=\"{}\"",
                                     pod.namespace_, pod.name, pod.uid, held->reason, held->message);
                    }
                    break;
                }
                auto go = std::get<core::ResizeGo>(std::move(decision));
                const auto targets = d.targets;
                ReplanFn replan = [&](const core::Pod& fresh) -> std::optional<core::ResizePlan> {
                    auto again = core::plan_resize(fresh, targets, *caps_, core::ControlledValues::RequestsOnly, popts);
                    if (auto* p = std::get_if<core::ResizePlan>(&again)) return std::move(*p);
                    return std::nullopt;
                };
                auto r = co_await submit(pod, go.plan, replan, false, c.snap.key.name);
                if (r.what == SubmitOutcome::Accepted) track(c, r, core::TrackedKind::BoostRestore, "");
                else if (r.what != SubmitOutcome::Fenced && r.what != SubmitOutcome::Held)
                    spdlog::warn("startup boost restore not sent namespace={} pod={} uid={} error=\"{}\"",
                                 pod.namespace_, pod.name, pod.uid, r.message);
                break;
            }
        }
    }
}

asio::awaitable<void> ResizeExecutor::persist(PassContext& c) {
    const auto& tp = c.policy->update_strategy.template_persistence;
    const auto key = c.snap.key.str();
    const bool on_recommendation = tp.when == core::TemplatePersistenceWhen::OnRecommendation;
    bool workload_in_flight = false;
    for (const auto& p : c.snap.pods) workload_in_flight = workload_in_flight || in_flight_.contains(p.uid);
    // After a resize: once every pod of this round settled, so the template
    // (and a rollout it starts) never races the pods still resizing.
    const core::Pod* applied = nullptr;
    if (!on_recommendation && applied_since_persist_.contains(key) && !workload_in_flight && !c.work_left) {
        for (const auto& p : c.snap.pods)
            if (resized_pods_.contains(key) && resized_pods_.at(key).contains(p.uid) &&
                core::classify_current_resize(p).state == core::ResizeState::Applied) {
                applied = &p;
                break;
            }
        if (!applied) applied_since_persist_.erase(key);
    }
    if (applied) {
        co_await retune_hpa(c, *applied);
        applied_since_persist_.erase(key);
    }
    const bool recommendation_due = on_recommendation && persisted_targets_[key] != c.targets_key;
    if (!tp.enabled || (!applied && !recommendation_due)) co_return;
    if (c.snap.key.kind != "Deployment" && c.snap.key.kind != "StatefulSet") co_return;

    auto tmpl = core::decode_pod_template(c.snap.key.kind, *c.snap.workload);
    auto rollout = core::decode_rollout_status(c.snap.key.kind, *c.snap.workload);
    if (!tmpl || !rollout) {
        spdlog::warn("workload template does not decode; not persisted namespace={} workload={} error=\"{}\"",
                     c.snap.key.ns, c.snap.key.name, (!tmpl ? tmpl.error() : rollout.error()).message);
        co_return;
    }
    core::TemplatePersistInputs in;
    in.enabled = tp.enabled;
    in.when = tp.when;
    in.trigger = applied ? core::PersistTrigger::ResizeApplied : core::PersistTrigger::Recommendation;
    in.kind = c.snap.key.kind;
    in.live_pods_listed = true;  // the informer has synced before any worker runs
    const auto targets = core::resize_targets(c.rec->recommendation, *c.policy);
    in.controlled_values = targets.controlled_values;
    if (applied) {
        for (const auto& ch : core::container_changes(tmpl.value(), *applied)) in.resources.emplace(ch.container, ch.to);
    } else {
        for (const auto& t : targets.targets) in.resources.emplace(t.name, t.resources);
    }
    if (in.resources.empty()) co_return;
    const auto decision = core::plan_template_patch(tmpl.value(), rollout.value(), in);
    if (const auto* skip = std::get_if<core::TemplateSkip>(&decision)) {
        if (skip->reason == "rollout_in_progress") c.requeue_in(opts_.held_requeue);
        if (skip->reason == "rollout_in_progress" || skip->reason == "unchanged") {
            if (skip->reason == "rollout_in_progress" && applied) applied_since_persist_.insert(key);  // try again
            else if (!applied) persisted_targets_[key] = c.targets_key;
        }
        spdlog::info("template not persisted namespace={} workload={} reason={} message=\"{}\"", c.snap.key.ns,
                     c.snap.key.name, skip->reason, skip->message);
        co_return;
    }
    const auto& patch = std::get<core::TemplatePatch>(decision);
    if (!co_await write_template_patch(c, patch, tmpl.value(), tp.when)) {
        if (applied) applied_since_persist_.insert(key);
        co_return;
    }
    if (!applied) persisted_targets_[key] = c.targets_key;
}

asio::awaitable<bool> ResizeExecutor::write_template_patch(PassContext& c, const core::TemplatePatch& patch,
                                                           const core::Pod& pod_template, core::PersistWhen when) {
    const auto rt = kube::workload_resource(c.snap.key.kind);
    if (!rt) {
        spdlog::warn("template persistence skipped namespace={} workload={} error=\"{}\"", c.snap.key.ns,
                     c.snap.key.name, rt.error().message);
        co_return false;
    }
    auto r = co_await client_.patch(rt.value(), c.snap.key.ns, c.snap.key.name, kube::PatchType::StrategicMerge,
                                    json::serialize(patch.body));
    const std::string ns = c.snap.key.ns, wl = c.snap.key.name;
    if (!r) {
        if (r.error().is_fenced()) co_return false;
        metrics_.template_patches.Add({{"namespace", ns}, {"workload", wl}, {"result", "failed"}}).Increment();
        spdlog::warn("template persistence failed namespace={} workload={} error=\"{}\"", ns, wl, r.error().describe());
        c.requeue_in(opts_.held_requeue);
        core::EventIntent ev{"Warning", std::string(core::kEventTemplatePatchFailed), "template",
                             c.snap.key.kind + " " + wl + ": " + r.error().message, true};
        emit(c, std::move(ev));
        co_return false;
    }
    metrics_.template_patches.Add({{"namespace", ns}, {"workload", wl}, {"result", "success"}}).Increment();
    auto entry = core::template_history_entry(patch, pod_template, wl, when, c.now);
    const std::string note = c.snap.key.kind + " " + wl + " pod template patched (" +
                             std::string(core::to_string(when)) +
                             "): " + core::readable_history_text(core::history_resource_name(entry.resource), entry.to);
    history(c, {std::move(entry)});
    spdlog::info("template persisted namespace={} workload={} when={}", ns, wl, core::to_string(when));
    core::EventIntent ev{"Normal", std::string(core::kEventTemplatePatched), "template", note, true};
    emit(c, std::move(ev));
    if (auto by = core::gitops_manager(c.snap.annotations, core::labels_of(*c.snap.workload))) {
        spdlog::warn("template patched under GitOps namespace={} workload={} tool=\"{}\" marker=\"{}\"", ns, wl,
                     by->tool, by->marker);
        emit(c, core::gitops_drift_event(c.snap.key.kind, wl, *by));
    }
    co_return true;
}

asio::awaitable<void> ResizeExecutor::retune_hpa(PassContext& c, const core::Pod& applied) {
    if (c.snap.report.hpa_name.empty() || !caches_.views.hpas) co_return;
    auto hpa = caches_.views.hpas->get(c.snap.key.ns + "/" + c.snap.report.hpa_name);
    if (!hpa) co_return;
    auto tmpl = core::decode_pod_template(c.snap.key.kind, *c.snap.workload);
    if (!tmpl) co_return;
    const auto base = cpu_requests(tmpl.value());
    const auto next = cpu_requests(applied);
    const auto decision = core::retune_hpa(*hpa, base, next, cpu_limits(applied));
    if (const auto* skip = std::get_if<core::HpaRetuneSkip>(&decision)) {
        if (skip->reason != "not_opted_in")
            spdlog::info("HPA not retuned namespace={} hpa={} reason={} message=\"{}\"", c.snap.key.ns,
                         c.snap.report.hpa_name, skip->reason, skip->message);
        co_return;
    }
    const auto& retune = std::get<core::HpaRetune>(decision);
    auto r = co_await client_.patch(kube::resources::horizontal_pod_autoscalers(), c.snap.key.ns,
                                    c.snap.report.hpa_name, kube::PatchType::JsonMerge, json::serialize(retune.patch));
    if (!r) {
        if (r.error().is_fenced()) co_return;
        spdlog::warn("HPA retune failed namespace={} hpa={} error=\"{}\"", c.snap.key.ns, c.snap.report.hpa_name,
                     r.error().describe());
        // Tried again after the next applied resize, not before: no retry loop.
        core::EventIntent ev{"Warning", std::string(core::kEventHpaRetuneFailed), "hpa",
                             "HorizontalPodAutoscaler " + c.snap.report.hpa_name + " not retuned: " + r.error().message,
                             true};
        emit(c, std::move(ev));
        co_return;
    }
    spdlog::info("HPA retuned namespace={} hpa={} base_target={} new_target={} base_request={} new_request={}",
                 c.snap.key.ns, c.snap.report.hpa_name, retune.base_target, retune.new_target, base.to_string(),
                 next.to_string());
}

}  // namespace attune::controller
