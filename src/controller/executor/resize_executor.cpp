// The executor's queue, handlers and one pass over a workload (the steps
// live in resize_follow.cpp, safety_monitor.cpp, resize_followups.cpp and
// resize_submit.cpp).
#include <attune/controller/executor/resize_executor.hpp>
#include <attune/kube/wall_now.hpp>

#include <attune/controller/recommendation_store.hpp>
#include <attune/controller/event_keys.hpp>
#include <attune/core/followups/template_persistence.hpp>
#include <attune/core/model/label_selector.hpp>
#include <attune/core/resize/pod_eligibility.hpp>
#include <attune/core/resize/resize_gate_inputs.hpp>
#include <attune/core/resize/resize_report.hpp>
#include <attune/core/resize/resize_targets.hpp>

#include <boost/json/serialize.hpp>

#include <spdlog/spdlog.h>

namespace attune::controller {
namespace asio = boost::asio;
namespace json = boost::json;
using namespace std::chrono_literals;

namespace {

using kube::wall_now;

std::string targets_key(const core::ResizeTargets& t) {
    std::string k(core::to_string(t.controlled_values));
    for (const auto& c : t.targets) k += "|" + c.name + "=" + json::serialize(core::requirements_json(c.resources));
    return k;
}

std::optional<std::string> last_resize_time(const kube::ObjectCache::ObjectPtr& policy) {
    if (!policy) return std::nullopt;
    const auto ann = core::annotations_of(*policy);
    const auto it = ann.find(core::kLastResizeTimeAnnotation);
    if (it == ann.end()) return std::nullopt;
    return it->second;
}

}  // namespace

ResizeExecutor::ResizeExecutor(asio::any_io_executor ex, kube::Client& client, EventQueue* events,
                               ExecutorMetrics& metrics, ExecutorCaches caches, const RecommendationStore& store,
                               ExecutorOptions opts)
    : ex_(ex), client_(client), events_(events), metrics_(metrics), caches_(caches), store_(store), opts_(opts),
      queue_(ex, opts.rate, nullptr) {}

void ResizeExecutor::set_capabilities(const core::Capabilities& caps) { caps_ = caps; }
void ResizeExecutor::set_instant_query(InstantQueryFn query) { query_ = std::move(query); }
void ResizeExecutor::on_ledger_change(std::function<void(const std::string&, const std::string&)> cb) {
    ledger_changed_ = std::move(cb);
}

kube::Informer::Handler ResizeExecutor::on_pod_change() {
    return [this](const kube::ObjectCache::Delta& d) {
        nodes_.apply(d);
        const auto& obj = d.new_object ? d.new_object : d.old_object;
        if (!obj) return;
        const std::string uid(kube::meta_string(*obj, "uid"));
        if (d.what == kube::ObjectCache::Delta::Kind::Deleted) {
            // The pod is gone: what we followed for it settles here, with no I/O.
            if (auto f = in_flight_.find(uid); f != in_flight_.end()) {
                cycles_.settle(f->second.policy_key, uid, false);
                in_flight_.erase(f);
            }
            reverted_.erase(uid);
            refused_.erase(uid);
            reported_holds_.erase(uid);
            followed_.erase(uid);
        }
        auto key = pod_workload_key(*obj, caches_.views.replicasets, caches_.views.jobs);
        if (!key) return;
        // Only workloads the executor has business with: a recommendation, a
        // resize in flight, or a pod under safety watch or boost.
        // The cheap lookups first: the label and annotation maps are copied
        // only for pods of workloads without a recommendation.
        if (store_.get(*key) || in_flight_.contains(uid) || resized_pods_.contains(key->str())) {
            queue_.add(key->str());
            return;
        }
        if (core::labels_of(*obj).contains(core::kTrackedLabel) ||
            core::annotations_of(*obj).contains(core::kStartupBoostAtAnnotation))
            queue_.add(key->str());
    };
}

void ResizeExecutor::on_recommendation_change(const ObjectKey& workload) { queue_.add(workload.str()); }

void ResizeExecutor::enqueue_all() {
    if (!caches_.views.pods) return;
    // Resizes, boosts and safety watches found on the pods (a restart or a
    // failover): their workloads pass, and follow() adopts what is in flight.
    // One pod parsed at a time: all() would hold every pod as a tree at
    // once (80 MB at 10,000 pods, kept by the allocator afterwards).
    caches_.views.pods->for_each([this](const boost::json::value& p) {
        const auto labels = core::labels_of(p);
        const auto ann = core::annotations_of(p);
        if (!labels.contains(core::kTrackedLabel) && !ann.contains(core::kStartupBoostAtAnnotation)) return;
        if (auto key = pod_workload_key(p, caches_.views.replicasets, caches_.views.jobs)) queue_.add(key->str());
    });
}

asio::awaitable<void> ResizeExecutor::run_worker() {
    for (;;) {
        auto key = co_await queue_.get();
        if (!key) co_return;
        auto k = parse_object_key(*key);
        if (!k) {
            queue_.done(*key);
            continue;
        }
        try {
            co_await process(*k);
        } catch (...) {
            queue_.done(*key);
            queue_.add_rate_limited(*key);
            throw;  // the spawn site logs, counts and restarts this worker
        }
        queue_.done(*key);
    }
}

void ResizeExecutor::shut_down() {
    stopping_ = true;
    queue_.shut_down();
}

core::ResizeGateInputs ResizeExecutor::gate_inputs(PassContext& c, const core::Pod& pod, const core::NodeFacts* node) {
    auto g = core::policy_gate_inputs(*c.policy, c.book->history, cooldown_anchor(c), c.now);
    core::apply_cycle(g, cycles_.view(c.policy_key));
    if (!g.schedule.windows.empty()) g.zone = zones_.get(g.schedule.timezone);
    if (node) {
        g.node = *node;
        g.node_others_requests = nodes_.others(pod.node_name, pod.namespace_ + "/" + pod.name);
    }
    g.limit_ranges = c.snap.limit_ranges;
    g.quotas = c.snap.quotas;
    return g;
}

asio::awaitable<void> ResizeExecutor::process(ObjectKey key) {
    if (stopping_) co_return;
    auto snap = take_executor_snapshot(caches_, key);
    if (!snap) co_return;  // deleted: its pods' deletions settle what was in flight
    const auto* stored = store_.get(key);
    if (snap->report.selected_by.empty() || !stored || stored->policy != snap->report.selected_by.front() ||
        !stored->effective) {
        // Nobody manages it, or it has no recommendation (yet): nothing to
        // carry out. What was in flight for it is followed no more.
        for (const auto& p : snap->pods) {
            if (auto f = in_flight_.find(p.uid); f != in_flight_.end()) {
                cycles_.settle(f->second.policy_key, p.uid, false);
                in_flight_.erase(f);
            }
        }
        co_return;
    }
    PassContext c;
    c.now = wall_now();
    c.snap = std::move(*snap);
    c.rec_holder = std::make_shared<const StoredRecommendation>(*stored);  // the store may move on while we await
    c.rec = c.rec_holder.get();
    c.policy = c.rec->effective.get();
    c.policy_name = c.rec->policy;
    c.policy_key = key.ns + "/" + c.policy_name;
    c.regarding = kube::ObjectReference("attune.io/v1alpha1", std::string(kPolicyKind), key.ns, c.policy_name,
                                        c.snap.policy ? std::string(kube::meta_string(*c.snap.policy, "uid")) : "");
    c.book = &ledger_.get(key.ns, c.policy_name, c.snap.policy.get());
    c.targets_key = targets_key(core::resize_targets(c.rec->recommendation, *c.policy));
    const auto version_before = c.book->version;
    for (const auto& u : c.snap.undecodable)
        spdlog::warn("pod does not decode; left alone namespace={} workload={} pod=\"{}\"", key.ns, key.name, u);

    const auto mode = c.policy->update_strategy.type;
    c.acting = !c.policy->paused && c.snap.report.idle == core::IdleKind::None && core::mode_resizes(mode);
    if (c.acting && !caps_) {
        // The capability probe has not answered yet: nothing is planned without it.
        queue_.add_after(key.str(), 1s);
        co_return;
    }
    // A workload whose policy left Canary leaves status.lifecycle (and its block).
    if (mode != core::UpdateMode::Canary) ledger_.drop_lifecycle(*c.book, key.kind, key.name);
    co_await follow(c);
    if (c.acting) {
        co_await watch_safety(c);
        co_await restore_boosts(c);
        if (mode == core::UpdateMode::Canary) {
            // The lifecycle's own persistence replaces templatePersistence.
            if (!c.rec->recommendation.stale) co_await run_lifecycle(c);
        } else {
            if (!c.rec->recommendation.stale) co_await resize_pods(c);
            co_await persist(c);
        }
    } else if (!c.policy->paused && c.snap.report.idle == core::IdleKind::None && !c.rec->recommendation.stale &&
               core::mode_persists_templates(mode, c.policy->update_strategy.template_persistence.when)) {
        // Recommend with OnRecommendation: the template alone takes the recommendation.
        co_await persist(c);
    }
    refresh_pod_states(c);
    co_await close_cycle(c);
    if (c.book->version != version_before && ledger_changed_) ledger_changed_(key.ns, c.policy_name);
    if (c.requeue) queue_.add_after(key.str(), *c.requeue);
}

asio::awaitable<void> ResizeExecutor::resize_pods(PassContext& c) {
    const auto targets = core::resize_targets(c.rec->recommendation, *c.policy);
    if (targets.targets.empty()) co_return;
    const core::EligibilityContext ectx{c.snap.annotations, c.snap.namespace_annotations};
    std::vector<core::PassCandidate> candidates;
    candidates.reserve(c.snap.pods.size());
    for (const auto& pod : c.snap.pods) {
        core::PassCandidate pc;
        pc.name = pod.name;
        pc.in_flight = in_flight_.contains(pod.uid);
        const auto elig = core::check_pod_eligibility(pod, ectx);
        const bool reverted = reverted_.contains(pod.uid) && reverted_.at(pod.uid) == c.targets_key;
        const bool refused = refused_.contains(pod.uid) && refused_.at(pod.uid) == c.targets_key;
        pc.eligible = elig.eligible && !reverted && !refused;
        if (!elig.eligible && elig.reason != "not_running")
            spdlog::debug("pod not eligible namespace={} pod={} uid={} reason={} message=\"{}\"", pod.namespace_,
                          pod.name, pod.uid, elig.reason, elig.message);
        candidates.push_back(std::move(pc));
    }
    const auto sel = core::select_pass_pods(c.policy->update_strategy.type, candidates);
    int submitted = 0;
    for (const auto i : sel.pods) {
        if (sel.max_submissions >= 0 && submitted >= sel.max_submissions) break;
        if (stopping_) co_return;
        // A copy: the snapshot's pod is replaced by a re-read after a 409.
        const core::Pod pod = c.snap.pods[i];
        if (co_await resize_one(c, pod, targets.targets, targets.controlled_values, std::nullopt)) ++submitted;
    }
}

asio::awaitable<bool> ResizeExecutor::resize_one(PassContext& c, core::Pod pod,
                                                 std::vector<core::ContainerTarget> targets,
                                                 core::ControlledValues controlled, std::optional<int> max_concurrent,
                                                 bool restore) {
    const auto node = node_of(caches_, pod.node_name);
    core::PlanOptions popts;
    popts.memory_floor_headroom_percent =
        static_cast<unsigned>(std::max(0, c.policy->memory.decrease_usage_margin_percent));
    popts.node = node.probe;
    auto decide = [&](const core::Pod& p) {
        const auto n = node_of(caches_, p.node_name);
        core::PlanOptions o = popts;
        o.node = n.probe;
        auto g = gate_inputs(c, p, n.facts ? &*n.facts : nullptr);
        if (max_concurrent) g.max_concurrent_resizes = *max_concurrent;
        g.restore = restore;
        return core::decide_resize(p, targets, *caps_, controlled, o, g);
    };
    auto decision = decide(pod);
    if (auto* held = std::get_if<core::ResizeHeld>(&decision)) {
        if (held->reason == "max_concurrent_resizes") c.work_left = true;
        if (held->reason == "cooldown") c.cooldown_held = true;
        if (held->reason != "no_change" && held->reason != "paused") c.requeue_in(opts_.held_requeue);
        if (core::skip_is_reported(*held, c.rec->recommendation)) co_await report_held(c, pod, *held);
        co_return false;
    }
    auto go = std::get<core::ResizeGo>(std::move(decision));
    for (const auto& n : go.notes)
        spdlog::warn("resize note namespace={} pod={} uid={} note=\"{}\"", pod.namespace_, pod.name, pod.uid, n);
    cycles_.submit(c.policy_key, c.snap.key.str(), pod.uid, go.increase);
    ReplanFn replan = [&](const core::Pod& fresh) -> std::optional<core::ResizePlan> {
        auto again = decide(fresh);
        if (auto* g = std::get_if<core::ResizeGo>(&again)) return std::move(g->plan);
        return std::nullopt;
    };
    auto r = co_await submit(pod, go.plan, replan, true, c.snap.key.name);
    if (r.what != SubmitOutcome::Accepted) {
        cycles_.withdraw(c.policy_key, pod.uid);
        co_await report_not_sent(c, pod, r);
        co_return false;
    }
    track(c, r, core::TrackedKind::Resize, "");
    for (const auto& e : go.events) emit(c, e);
    if (r.plan.envelope)
        for (const auto& res : {core::kCpu, core::kMemory})
            if (core::find(r.plan.envelope->requests, res) || core::find(r.plan.envelope->limits, res))
                metrics_.envelope_raised
                    .Add({{"namespace", c.snap.key.ns}, {"policy", c.policy_name}, {"resource", std::string(res)}})
                    .Increment();
    if (!r.plan.memory_clamped.empty())
        metrics_.memory_limit_decrease
            .Add({{"namespace", c.snap.key.ns}, {"policy", c.policy_name}, {"result", "clamped"}})
            .Increment();
    spdlog::info("resize sent namespace={} pod={} uid={} workload={} policy={} generation={} changes=\"{}\"",
                 pod.namespace_, pod.name, pod.uid, c.snap.key.name, c.policy_name, r.generation,
                 core::describe_changes(core::container_changes(r.pod, r.plan.planned), core::NumberStyle::Exact));
    co_return true;
}

void ResizeExecutor::track(PassContext& c, const SubmitResult& r, core::TrackedKind kind, std::string reason) {
    const auto& pod = r.pod;
    const auto& plan = r.plan;
    InFlightResize f;
    f.t.kind = kind;
    f.t.pod_uid = pod.uid;
    f.t.pod_name = pod.name;
    f.t.changes = core::container_changes(pod, plan.planned);
    f.t.request.generation = r.generation;
    for (const auto& ch : f.t.changes)
        if (const auto* pc = plan.planned.find_container(ch.container))
            f.t.request.targets.emplace(ch.container, pc->resources);
    f.t.request.envelope = plan.envelope;
    f.t.stale_resource_versions = r.stale_versions;
    f.t.stale_resource_versions.push_back(pod.resource_version);
    f.t.answered_resource_version = r.resource_version;
    f.t.submitted_at = c.now;
    f.t.reason = std::move(reason);
    f.workload = c.snap.key;
    f.policy = c.policy_name;
    f.policy_key = c.policy_key;
    f.sent = std::chrono::steady_clock::now();
    followed_.insert(pod.uid);
    resized_pods_[c.snap.key.str()].insert(pod.uid);
    in_flight_.insert_or_assign(pod.uid, std::move(f));
}

void ResizeExecutor::refresh_pod_states(PassContext& c) {
    // The pods of ours this workload has (in flight, or resized and still
    // there), plus any pod the kubelet holds Deferred or Infeasible.
    std::map<std::string, core::ResizeState> states;
    auto& ours = resized_pods_[c.snap.key.str()];
    std::set<std::string> alive;
    int deferred = 0, infeasible = 0;
    for (const auto& pod : c.snap.pods) {
        alive.insert(pod.uid);
        core::ResizeStatus st;
        if (auto f = in_flight_.find(pod.uid); f != in_flight_.end()) st = core::classify_resize_state(pod, &f->second.t.request);
        else st = core::classify_current_resize(pod);
        if (st.state == core::ResizeState::Deferred) ++deferred;
        if (st.state == core::ResizeState::Infeasible) ++infeasible;
        if (ours.contains(pod.uid) || st.state == core::ResizeState::Deferred ||
            st.state == core::ResizeState::Infeasible)
            states.emplace(pod.uid, st.state);
    }
    std::erase_if(ours, [&](const std::string& uid) { return !alive.contains(uid); });
    if (ours.empty()) resized_pods_.erase(c.snap.key.str());
    ledger_.set_pods(*c.book, c.snap.key.name, std::move(states));
    // attune_pods_deferred / _infeasible: the kubelet's states over the policy's workloads.
    int d = 0, i = 0;
    for (const auto& [wl, pods] : c.book->workloads)
        for (const auto& [uid, s] : pods) {
            d += s == core::ResizeState::Deferred;
            i += s == core::ResizeState::Infeasible;
        }
    (void)deferred;
    (void)infeasible;
    metrics_.set_kubelet_states(c.snap.key.ns, c.policy_name, d, i);
}

std::optional<std::string> ResizeExecutor::cooldown_anchor(const PassContext& c) const {
    // The annotation as cached, or the one this manager wrote since, if newer
    // (the policy cache may not have seen our patch yet).
    auto cached = last_resize_time(c.snap.policy);
    const auto it = anchors_.find(c.policy_key);
    if (it == anchors_.end()) return cached;
    if (cached) {
        const auto parsed = core::parse_timestamp(*cached);
        if (parsed && parsed.value() >= it->second) return cached;
    }
    return core::format_timestamp(it->second);
}

asio::awaitable<void> ResizeExecutor::write_cooldown_anchor(PassContext& c, std::string why) {
    anchors_[c.policy_key] = c.now;
    const auto now = core::format_timestamp(c.now);
    json::object body{{"metadata", json::object{{"annotations", json::object{{core::kLastResizeTimeAnnotation, now}}}}}};
    auto r = co_await client_.patch(kube::resources::attune_policies(), c.snap.key.ns, c.policy_name,
                                    kube::PatchType::JsonMerge, json::serialize(body));
    if (r) {
        spdlog::info("cooldown anchored namespace={} policy={} last_resize_time={} why=\"{}\"", c.snap.key.ns,
                     c.policy_name, now, why);
    } else if (!r.error().is_fenced()) {
        spdlog::warn("the cooldown anchor was not written namespace={} policy={} why=\"{}\" error=\"{}\"",
                     c.snap.key.ns, c.policy_name, why, r.error().describe());
    }
    // The next cycle waits for the cooldown: look again then.
    c.requeue_in(std::chrono::duration_cast<std::chrono::milliseconds>(c.policy->update_strategy.cooldown) + 1s);
}

asio::awaitable<void> ResizeExecutor::close_cycle(PassContext& c) {
    const auto close = cycles_.pass_done(c.policy_key, c.snap.key.str(), c.work_left, c.holds_cycle);
    if (close && close->applied_any) co_await write_cooldown_anchor(c, "resize cycle closed");
    const auto anchor = cooldown_anchor(c);
    for (const auto& w : cycles_.waiting_workloads(c.policy_key))
        if (w != c.snap.key.str() && cycles_.view(c.policy_key).in_flight == 0) queue_.add(w);
    const auto state = core::cooldown_state(
        std::chrono::duration_cast<std::chrono::seconds>(c.policy->update_strategy.cooldown),
        core::count_consecutive_reverts(c.book->history));
    const bool cooldown_active = !cycles_.view(c.policy_key).open && core::check_cooldown(state, anchor, c.now).active;
    std::optional<bool> inside_window;
    if (const auto& sched = c.policy->update_strategy.schedule; sched && !sched->windows.empty()) {
        const auto schedule = core::schedule_of(*sched);
        inside_window = core::check_schedule(schedule, zones_.get(schedule.timezone), c.now).allowed;
    }
    ledger_.set_cycle(*c.book, cycles_.view(c.policy_key).open, cooldown_active || c.cooldown_held, inside_window);
}

}  // namespace attune::controller
