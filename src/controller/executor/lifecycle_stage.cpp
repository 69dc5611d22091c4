// Step 5 of a pass for updateStrategy.type Canary (docs/lifecycle.md): the
// progressive validation lifecycle. Every decision is the core's
// (plan_attempt, step_lifecycle, evaluate_throttling); this file gathers
// their inputs from the pass's snapshot and carries the actions out, in
// order, through the executor's one resize path (resize_one). What the
// machine remembers goes into the ledger's status.lifecycle entry, which the
// status aggregator writes; a restart seeds the ledger from the policy's
// status, so it resumes where it stood.
#include <attune/controller/executor/resize_executor.hpp>

#include <attune/controller/recommendation_store.hpp>
#include <attune/core/lifecycle/lifecycle_source.hpp>
#include <attune/core/recommend/promql.hpp>
#include <attune/core/recommend/workload_baseline.hpp>

#include <boost/json/serialize.hpp>

#include <spdlog/spdlog.h>

namespace attune::controller {
namespace asio = boost::asio;
namespace json = boost::json;
using namespace std::chrono_literals;

namespace {

std::vector<core::ContainerTarget> targets_of(const core::ContainerResourceMap& resources) {
    std::vector<core::ContainerTarget> out;
    for (const auto& [name, r] : resources) out.push_back({name, r, std::nullopt});
    return out;
}

// A limit anywhere: the pod is planned RequestsAndLimits, else RequestsOnly
// (as resize_targets decides for the executor).
core::ControlledValues controlled_of(const core::ContainerResourceMap& resources) {
    for (const auto& [name, r] : resources)
        if (!r.limits.empty()) return core::ControlledValues::RequestsAndLimits;
    return core::ControlledValues::RequestsOnly;
}

const core::Pod* pod_by_uid(const std::vector<core::Pod>& pods, const std::string& uid) {
    for (const auto& p : pods)
        if (p.uid == uid) return &p;
    return nullptr;
}

}  // namespace

asio::awaitable<core::ThrottlingMeasurement> ResizeExecutor::measure_throttling(PassContext& c,
                                                                                std::vector<std::string> pods,
                                                                                std::chrono::seconds window) {
    core::ThrottlingMeasurement m;
    if (!query_ || !c.policy->metrics.prometheus) {
        m.query_failed = true;
        m.error = "the policy has no Prometheus (metricsSource.prometheus, or a defaults object's)";
        co_return m;
    }
    // Two instant queries per pod; no answer (no series, or a failed query)
    // leaves that number unavailable, which onMetricsUnavailable judges.
    for (const auto& pod : pods) {
        core::PodThrottlingSample s;
        s.pod = pod;
        s.throttled_periods = co_await query_(c.rec->effective, core::cfs_periods_increase_query(c.snap.key.ns, pod, window, true));
        s.periods = co_await query_(c.rec->effective, core::cfs_periods_increase_query(c.snap.key.ns, pod, window, false));
        m.pods.push_back(std::move(s));
    }
    co_return m;
}

asio::awaitable<bool> ResizeExecutor::write_lifecycle_status(PassContext& c) {
    json::object body{
        {"status",
         json::object{{"lifecycle", core::encode_lifecycle_status(ResizeLedger::lifecycle_entries(*c.book))}}}};
    auto r = co_await client_.patch(kube::resources::attune_policies(), c.snap.key.ns, c.policy_name,
                                    kube::PatchType::JsonMerge, json::serialize(body), "status");
    if (!r && !r.error().is_fenced())
        spdlog::warn("status.lifecycle was not written namespace={} policy={} error=\"{}\"", c.snap.key.ns,
                     c.policy_name, r.error().describe());
    co_return static_cast<bool>(r);
}

asio::awaitable<void> ResizeExecutor::patch_lifecycle_template(PassContext& c, core::ContainerResourceMap resources,
                                                               std::string revision) {
    auto tmpl = core::decode_pod_template(c.snap.key.kind, *c.snap.workload);
    auto rollout = core::decode_rollout_status(c.snap.key.kind, *c.snap.workload);
    if (!tmpl || !rollout) {
        spdlog::warn("workload template does not decode; not persisted namespace={} workload={} error=\"{}\"",
                     c.snap.key.ns, c.snap.key.name, (!tmpl ? tmpl.error() : rollout.error()).message);
        co_return;
    }
    core::TemplatePersistInputs in;
    in.enabled = true;
    in.when = core::PersistWhen::OnRecommendation;
    in.trigger = core::PersistTrigger::Recommendation;
    in.kind = c.snap.key.kind;
    in.live_pods_listed = true;  // the informer has synced before any worker runs
    in.controlled_values = controlled_of(resources);
    in.resources = std::move(resources);
    in.revision = std::move(revision);
    in.policy = c.policy_name;
    const auto decision = core::plan_template_patch(tmpl.value(), rollout.value(), in);
    if (const auto* skip = std::get_if<core::TemplateSkip>(&decision)) {
        // step_lifecycle asks again on every pass until the annotation shows.
        c.requeue_in(opts_.held_requeue);
        spdlog::info("lifecycle template not patched yet namespace={} workload={} reason={} message=\"{}\"",
                     c.snap.key.ns, c.snap.key.name, skip->reason, skip->message);
        co_return;
    }
    co_await write_template_patch(c, std::get<core::TemplatePatch>(decision), tmpl.value(), in.when);
}

asio::awaitable<void> ResizeExecutor::run_lifecycle(PassContext& c) {
    const auto& spec = c.policy->lifecycle;
    const auto& key = c.snap.key;
    // The workload's Running pods that are not being deleted (docs/lifecycle.md).
    std::vector<core::Pod> live;
    for (const auto& p : c.snap.pods)
        if (p.phase == "Running" && p.deletion_timestamp.empty()) live.push_back(p);
    const core::WorkloadIdentity workload{c.snap.report.api_version, key.kind, key.ns, key.name, c.snap.uid};
    // A copy: the ledger's entry is replaced below, and other passes of this
    // policy may move the ledger while this one awaits.
    std::optional<core::LifecycleStatusEntry> previous;
    if (const auto* e = ResizeLedger::lifecycle_entry(*c.book, key.kind, key.name)) previous = *e;

    core::AttemptInputs ai;
    ai.workload = workload;
    ai.pods = live;
    ai.recommendation = core::lifecycle_recommendation(*c.policy, c.rec->recommendation);
    ai.revalidation_token = spec.revalidation_token;
    ai.previous = previous ? &*previous : nullptr;
    auto plan = core::plan_attempt(ai);
    if (!plan) {
        spdlog::warn("lifecycle attempt not planned namespace={} workload={} reason={} message=\"{}\"", key.ns, key.name,
                     plan.error().code, plan.error().message);
        c.requeue_in(opts_.held_requeue);
        co_return;
    }
    core::ResizeRequest toward;
    toward.targets = plan.value().candidate;
    std::vector<core::LifecyclePod> pods;
    pods.reserve(live.size());
    for (const auto& p : live) pods.push_back({&p, core::classify_resize_state(p, &toward)});

    core::LifecycleInputs in;
    in.workload = workload;
    if (auto it = c.snap.annotations.find(core::kPersistedRevisionAnnotation); it != c.snap.annotations.end())
        in.persisted_revision = it->second;
    in.attempt = plan.value();
    in.pods = pods;
    in.spec = spec;
    in.previous = ai.previous;
    in.pod_level_resources_gate = caps_->in_place_pod_level_resources;
    in.now = c.now;
    auto d = core::step_lifecycle(in);
    // RunThrottlingAnalysis: query, then decide again with the measurement.
    for (const auto& a : d.actions) {
        const auto* run = std::get_if<core::RunThrottlingAnalysis>(&a);
        if (!run) continue;
        core::LifecycleAnalysisInput analysis;
        analysis.revision = run->revision;
        analysis.step = run->step;
        analysis.measurement = co_await measure_throttling(c, run->pods, run->window);
        spdlog::info("lifecycle throttling measured namespace={} workload={} revision={} step={} pods={} failed={}",
                     key.ns, key.name, run->revision, run->step, run->pods.size(), analysis.measurement.query_failed);
        in.analysis = std::move(analysis);
        d = core::step_lifecycle(in);
        break;
    }

    std::optional<std::pair<std::string, std::string>> blocked;
    for (const auto& a : d.actions)
        if (const auto* b = std::get_if<core::SetResizeBlocked>(&a)) blocked = std::pair{b->reason, b->message};
    const bool changed = !previous || !(*previous == d.status);
    if (changed)
        spdlog::info("lifecycle namespace={} workload={} uid={} phase={} revision={} step={} message=\"{}\"", key.ns,
                     key.name, c.snap.uid, core::lifecycle_phase_name(d.status.phase), d.status.current_revision,
                     d.status.step, d.status.message);
    ledger_.set_lifecycle(*c.book, d.status, blocked);
    // The webhook must stop offering the revision before anything else moves.
    for (const auto& a : d.actions)
        if (std::holds_alternative<core::ClearWebhookEligibility>(a)) {
            if (!co_await write_lifecycle_status(c)) {
                c.requeue_in(1s);
                co_return;  // nothing else happens until the webhook cannot inject it
            }
            break;
        }

    const kube::ObjectReference on_workload(c.snap.report.api_version, key.kind, key.ns, key.name, c.snap.uid);
    for (const auto& a : d.actions) {
        if (stopping_) co_return;
        if (const auto* r = std::get_if<core::ResizePods>(&a)) {
            for (const auto& ref : r->pods) {
                const auto* pod = pod_by_uid(c.snap.pods, ref.uid);
                if (!pod || in_flight_.contains(ref.uid)) continue;
                co_await resize_one(c, *pod, targets_of(r->target), controlled_of(r->target), spec.max_concurrent_resizes);
            }
        } else if (const auto* rb = std::get_if<core::RollbackPods>(&a)) {
            for (const auto& ref : rb->pods) {
                const auto* pod = pod_by_uid(c.snap.pods, ref.uid);
                if (!pod || in_flight_.contains(ref.uid)) continue;
                spdlog::info("lifecycle rollback namespace={} pod={} uid={} revision={}", key.ns, ref.name, ref.uid,
                             rb->revision);
                // Best effort: a rollback the gates hold is asked for again next pass. A
                // rollback returns to the baseline, so the window and the cooldown let it through.
                co_await resize_one(c, *pod, targets_of(rb->baseline), controlled_of(rb->baseline), std::nullopt, true);
            }
        } else if (const auto* t = std::get_if<core::PatchTemplate>(&a)) {
            co_await patch_lifecycle_template(c, t->resources, t->revision);
        } else if (const auto* e = std::get_if<core::EmitEvent>(&a)) {
            core::EventIntent ev{e->warning ? "Warning" : "Normal", e->reason, "lifecycle", e->message, false};
            emit(c, ev, &on_workload);
        }
    }
    // The attempt is one resize cycle: it stays open between steps, so the
    // cooldown paces attempts, not the steps of one.
    c.holds_cycle = core::is_validating(d.status.phase);
    if (d.requeue_at) {
        const auto in_ms = std::chrono::duration_cast<std::chrono::milliseconds>(*d.requeue_at - c.now);
        c.requeue_in(std::max<std::chrono::milliseconds>(in_ms, 1s));
    }
    // Pod changes bring passes sooner; this is the floor while it validates.
    if (core::is_validating(d.status.phase) || d.status.phase == core::LifecyclePhase::ValidatedAwaitingPersistence)
        c.requeue_in(opts_.held_requeue);
}

}  // namespace attune::controller
