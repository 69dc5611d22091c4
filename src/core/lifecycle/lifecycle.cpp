#include "attune/core/lifecycle/lifecycle.hpp"

#include <algorithm>

#include "attune/core/util/duration.hpp"
#include "attune/core/resize/qos_compat.hpp"
#include "attune/core/lifecycle/selection.hpp"

namespace attune::core {
namespace {

std::string plural(std::size_t n, std::string_view word) {
    return std::to_string(n) + " " + std::string(word) + (n == 1 ? "" : "s");
}

std::string duration_text(Seconds s) { return format_duration(s); }

// What to change when a resize would move the QoS class: check_qos_compatibility
// already explains the resource-less BestEffort case.
std::string qos_hint(const QosCompatibility& q) {
    if (q.current == QosClass::BestEffort) return "";
    if (q.after == QosClass::Guaranteed)
        return "; keep at least one cpu or memory request below its limit in the recommendation, or change the "
               "template's resources and recreate the pods";
    if (q.current == QosClass::Guaranteed)
        return "; keep every container's cpu and memory requests equal to its limits in the recommendation, or "
               "change the template's resources and recreate the pods";
    return "; keep a cpu or memory request in the recommendation, or change the template's resources and recreate "
           "the pods";
}

class Machine {
public:
    explicit Machine(const LifecycleInputs& in) : in_(in), e_(d_.status) {}

    LifecycleDecision run() {
        const AttemptPlan& plan = in_.attempt;
        if (plan.start == AttemptStart::Continue && in_.previous) {
            e_ = *in_.previous;
        } else if (!start_attempt()) {
            return std::move(d_);
        }
        e_.workload = in_.workload.name;
        e_.kind = in_.workload.kind;
        switch (e_.phase) {
            case LifecyclePhase::ValidationRunning: run_steps(); break;
            case LifecyclePhase::PausedAtStep: resume_from_hold(); break;
            case LifecyclePhase::ValidatedAwaitingPersistence:
            case LifecyclePhase::ValidatedWithoutPersistence: persist(); break;
            case LifecyclePhase::Persisted: break;
            case LifecyclePhase::Failed: roll_back(""); break;
        }
        return std::move(d_);
    }

private:
    const LifecycleInputs& in_;
    LifecycleDecision d_;
    LifecycleStatusEntry& e_;

    const std::vector<LifecycleStep>& steps() const { return in_.spec.steps; }

    void event(bool warning, std::string reason, std::string message) {
        d_.actions.emplace_back(EmitEvent{warning, std::move(reason), std::move(message)});
    }

    void requeue(Timestamp t) {
        if (!d_.requeue_at || t < *d_.requeue_at) d_.requeue_at = t;
    }

    // The pods in StableHash order (workload UID + pod UID).
    std::vector<const LifecyclePod*> ordered() const {
        std::vector<const LifecyclePod*> live;
        std::vector<std::string> uids;
        for (const auto& p : in_.pods) {
            if (!p.pod) continue;
            live.push_back(&p);
            uids.push_back(p.pod->uid);
        }
        std::vector<const LifecyclePod*> out;
        out.reserve(live.size());
        for (std::size_t i : selection_order(in_.workload.uid, uids)) out.push_back(live[i]);
        return out;
    }

    static PodRef ref(const Pod& p) { return {p.name, p.uid}; }

    std::string step_label(std::size_t k) const {
        return "step " + std::to_string(k + 1) + "/" + std::to_string(steps().size()) + " (" +
               std::to_string(steps()[k].percent) + "%)";
    }

    // ---- a new attempt ----

    // Builds the new entry; false when the attempt is not run (denied).
    bool start_attempt() {
        const AttemptPlan& plan = in_.attempt;
        const LifecycleStatusEntry* prev = in_.previous;
        LifecycleStatusEntry n;
        n.workload = in_.workload.name;
        n.kind = in_.workload.kind;
        if (prev) {
            n.failed_revisions = prev->failed_revisions;
            n.handled_revalidation_token = prev->handled_revalidation_token;
            n.attempt = prev->attempt;
        }
        if (!prev || plan.start == AttemptStart::Revalidation) n.handled_revalidation_token = in_.spec.revalidation_token;
        n.current_revision = plan.revision;
        n.baseline = plan.baseline;
        n.candidate = plan.candidate;
        n.source = plan.source;
        if (prev) leave_previous(*prev);
        e_ = std::move(n);
        if (plan.denied) {
            e_.phase = LifecyclePhase::Failed;
            e_.message = plan.reason + "; change spec.lifecycle.revalidationToken to retry it";
            event(true, "RevisionDenied", e_.message);
            return false;
        }
        e_.attempt += 1;
        e_.phase = LifecyclePhase::ValidationRunning;
        e_.step = 0;
        e_.step_started_at = in_.now;
        e_.attempt_started_at = in_.now;
        const char* reason = plan.start == AttemptStart::Superseded     ? "ValidationSuperseded"
                             : plan.start == AttemptStart::Revalidation ? "RevalidationStarted"
                                                                        : "ValidationStarted";
        e_.message = "revision " + plan.revision + ", attempt " + std::to_string(e_.attempt) + ": " + plan.reason;
        event(false, reason, e_.message);
        return true;
    }

    // What the previous attempt leaves behind: webhook eligibility, and
    // pods it resized that the new attempt's first step does not cover.
    void leave_previous(const LifecycleStatusEntry& prev) {
        if (prev.phase == LifecyclePhase::ValidatedAwaitingPersistence && !prev.validated_revision.empty())
            d_.actions.emplace_back(ClearWebhookEligibility{prev.validated_revision});
        if (!is_validating(prev.phase) || prev.candidate == prev.baseline) return;
        const auto pods = ordered();
        const std::size_t kept =
            in_.attempt.denied || steps().empty() ? 0 : desired_pod_count(steps().front().percent, pods.size());
        RollbackPods strays{{}, prev.baseline, prev.current_revision};
        for (std::size_t i = kept; i < pods.size(); ++i)
            if (pod_carries(*pods[i]->pod, prev.candidate)) strays.pods.push_back(ref(*pods[i]->pod));
        if (!strays.pods.empty()) d_.actions.emplace_back(std::move(strays));
    }

    // ---- steps ----

    void record_pods(std::span<const LifecyclePod* const> selected) {
        std::vector<LifecyclePodStatus> out;
        for (const LifecyclePod* p : selected) {
            if (out.size() == kMaxLifecyclePods) break;
            const auto old = std::find_if(e_.pods.begin(), e_.pods.end(), [&](const LifecyclePodStatus& s) {
                return s.name == p->pod->name && s.uid == p->pod->uid;
            });
            const bool same = old != e_.pods.end() && old->state == p->resize.state;
            out.push_back({p->pod->name, p->pod->uid, p->resize.state, same ? old->since : in_.now});
        }
        e_.pods = std::move(out);
    }

    // The QoS class is fixed at creation: check every pod that still has
    // to be resized before resizing any (docs/lifecycle.md).
    bool blocked_by_qos(const std::vector<const LifecyclePod*>& pods) {
        for (const LifecyclePod* p : pods) {
            if (p->resize.state != ResizeState::Pending) continue;
            const auto q = check_qos_compatibility(*p->pod, e_.candidate, in_.pod_level_resources_gate);
            if (q.compatible) continue;
            const std::string message = "pod " + p->pod->name + ": " + q.message + qos_hint(q);
            d_.actions.emplace_back(SetResizeBlocked{q.reason, message});
            e_.message = "blocked before any resize: " + message;
            return true;
        }
        return false;
    }

    bool candidate_limits_cpu() const {
        return std::any_of(e_.candidate.begin(), e_.candidate.end(),
                           [](const auto& c) { return find_positive(c.second.limits, kCpu) != nullptr; });
    }

    void run_steps() {
        if (steps().empty()) return;
        const auto pods = ordered();
        // Each pass either returns or completes a step; bounded by the steps.
        for (std::size_t pass = 0; pass <= steps().size(); ++pass) {
            e_.step = std::min(e_.step, steps().size() - 1);
            const std::size_t k = e_.step;
            const LifecycleStep& step = steps()[k];
            const std::span<const LifecyclePod* const> selected(pods.data(), desired_pod_count(step.percent, pods.size()));
            record_pods(selected);
            if (blocked_by_qos(pods)) return;
            const std::string label = step_label(k);

            if (k == 0 && in_.spec.initial_delay > Seconds{0}) {
                const Timestamp until = e_.attempt_started_at.value_or(in_.now) + in_.spec.initial_delay;
                const bool started = std::any_of(selected.begin(), selected.end(),
                                                 [](const LifecyclePod* p) { return p->resize.state != ResizeState::Pending; });
                if (in_.now < until && !started) {
                    e_.message = label + ": initialDelay until " + format_timestamp(until);
                    requeue(until);
                    return;
                }
            }

            std::vector<const LifecyclePod*> pending, in_flight;
            std::size_t applied = 0;
            std::string deferred;
            for (const LifecyclePod* p : selected) {
                switch (p->resize.state) {
                    case ResizeState::Infeasible:
                        fail(label + ": pod " + p->pod->name + " is Infeasible" +
                             (p->resize.message.empty() ? "" : " (" + p->resize.message + ")"));
                        return;
                    case ResizeState::Pending: pending.push_back(p); break;
                    case ResizeState::Deferred:
                        if (deferred.empty())
                            deferred = "; " + p->pod->name + " Deferred" +
                                       (p->resize.message.empty() ? "" : " (" + p->resize.message + ")");
                        [[fallthrough]];
                    case ResizeState::InProgress: in_flight.push_back(p); break;
                    case ResizeState::Applied: ++applied; break;
                }
            }
            if (!pending.empty() || !in_flight.empty()) {
                e_.step_applied_at.reset();
                e_.step_ready_at.reset();
                const std::size_t limit = static_cast<std::size_t>(std::max(in_.spec.max_concurrent_resizes, 1));
                const std::size_t room = limit > in_flight.size() ? limit - in_flight.size() : 0;
                ResizePods resize{{}, e_.candidate, e_.current_revision};
                for (std::size_t i = 0; i < pending.size() && i < room; ++i) resize.pods.push_back(ref(*pending[i]->pod));
                const std::size_t issued = resize.pods.size();
                if (issued > 0) d_.actions.emplace_back(std::move(resize));
                e_.message = label + ": " + std::to_string(applied) + " of " + plural(selected.size(), "pod") + " applied" +
                             (in_flight.size() + issued > 0 ? ", " + std::to_string(in_flight.size() + issued) + " resizing" : "") +
                             (pending.size() > issued ? ", " + std::to_string(pending.size() - issued) + " waiting" : "") +
                             deferred;
                return;
            }

            // Every pod of the step is Applied: the readiness check.
            if (!e_.step_applied_at) e_.step_applied_at = in_.now;
            std::vector<std::string> not_ready;
            for (const LifecyclePod* p : selected)
                if (!p->pod->is_ready()) not_ready.push_back(p->pod->name);
            if (!not_ready.empty()) {
                e_.step_ready_at.reset();
                const Timestamp deadline = *e_.step_applied_at + in_.spec.readiness_timeout;
                if (in_.now >= deadline) {
                    fail(label + ": pod " + not_ready.front() + " is not Ready " +
                         duration_text(in_.spec.readiness_timeout) + " after the step's pods reached the candidate");
                    return;
                }
                e_.message = label + ": all " + plural(selected.size(), "pod") + " applied; waiting for " +
                             plural(not_ready.size(), "pod") + " to be Ready (" + not_ready.front() + ")";
                requeue(deadline);
                return;
            }

            // The pause, then the settle gate: every pod at its target for
            // the analysis window before the window is evaluated.
            if (!e_.step_ready_at) e_.step_ready_at = in_.now;
            const auto& analysis = in_.spec.cpu_throttling;
            const bool analyse = analysis.enabled && candidate_limits_cpu();
            const Timestamp pause_end = *e_.step_ready_at + step.pause;
            const Timestamp settled = *e_.step_applied_at + analysis.window;
            const Timestamp due = analyse ? std::max(pause_end, settled) : pause_end;
            if (in_.now < due) {
                e_.message = label + ": all " + plural(selected.size(), "pod") + " applied and Ready; " +
                             (in_.now < pause_end ? "pausing until " + format_timestamp(pause_end)
                                                  : "settle gate: every pod at the candidate for " +
                                                        duration_text(analysis.window) + " by " + format_timestamp(settled));
                requeue(due);
                return;
            }

            std::string analysis_note;
            if (analyse) {
                if (!in_.analysis || in_.analysis->revision != e_.current_revision || in_.analysis->step != k) {
                    RunThrottlingAnalysis run{{}, analysis.window, e_.current_revision, k};
                    for (const LifecyclePod* p : selected) run.pods.push_back(p->pod->name);
                    d_.actions.emplace_back(std::move(run));
                    e_.message = label + ": analysing CPU throttling over " + duration_text(analysis.window);
                    return;
                }
                std::vector<std::string> names;
                for (const LifecyclePod* p : selected) names.push_back(p->pod->name);
                const auto verdict = evaluate_throttling(analysis, names, in_.analysis->measurement);
                e_.last_analysis = LifecycleAnalysisStatus{k, verdict.passed, verdict.explanation, in_.now};
                if (!verdict.passed) {
                    fail(label + ": CPU throttling analysis failed: " + verdict.explanation);
                    return;
                }
                analysis_note = "; " + verdict.explanation;
            } else if (analysis.enabled) {
                const std::string why = "not run: the candidate sets no CPU limit, so CFS cannot throttle it";
                e_.last_analysis = LifecycleAnalysisStatus{k, true, why, in_.now};
                analysis_note = "; throttling analysis " + why;
            }
            event(false, "StepCompleted",
                  "revision " + e_.current_revision + " " + label + " passed on " + plural(selected.size(), "pod") +
                      analysis_note);

            if (step.hold) {
                e_.phase = LifecyclePhase::PausedAtStep;
                e_.message = label + " passed; holding because updateStrategy.canary.autoPromote is false: set it "
                                     "to true to roll out the rest";
                event(false, "PausedAtStep", e_.message);
                return;
            }
            if (!advance()) return;
        }
    }

    // Moves to the next step; false once the last step passed (validated).
    bool advance() {
        if (e_.step + 1 >= steps().size()) {
            validated();
            return false;
        }
        e_.step += 1;
        e_.step_started_at = in_.now;
        e_.step_applied_at.reset();
        e_.step_ready_at.reset();
        return true;
    }

    void resume_from_hold() {
        if (steps().empty()) return;
        e_.step = std::min(e_.step, steps().size() - 1);
        if (steps()[e_.step].hold) return;
        e_.phase = LifecyclePhase::ValidationRunning;
        if (advance()) run_steps();
    }

    // ---- the end of an attempt ----

    void validated() {
        e_.validated_revision = e_.current_revision;
        std::erase(e_.failed_revisions, e_.current_revision);
        e_.step_applied_at.reset();
        e_.step_ready_at.reset();
        event(false, "Validated",
              "revision " + e_.current_revision + " validated over " + plural(steps().size(), "step") + " on " +
                  plural(in_.pods.size(), "pod"));
        persist();
    }

    void persist() {
        if (!in_.persisted_revision.empty() && in_.persisted_revision == e_.validated_revision) {
            if (e_.phase != LifecyclePhase::Persisted)
                event(false, "Persisted", "the pod template carries validated revision " + e_.validated_revision);
            e_.phase = LifecyclePhase::Persisted;
            e_.message = "persisted: the workload carries " + std::string(kPersistedRevisionAnnotation) + "=" +
                         e_.validated_revision;
            return;
        }
        const bool persistable = e_.kind == "Deployment" || e_.kind == "StatefulSet";
        if (in_.spec.persistence == PersistenceMode::Disabled || !persistable) {
            if (e_.phase == LifecyclePhase::ValidatedAwaitingPersistence)
                d_.actions.emplace_back(ClearWebhookEligibility{e_.validated_revision});
            e_.phase = LifecyclePhase::ValidatedWithoutPersistence;
            e_.message = persistable ? "validated; persistence.mode is Disabled, so the template is left as it is"
                                     : "validated; a " + e_.kind + " template is not persisted (Deployments and "
                                                                     "StatefulSets only)";
            return;
        }
        e_.phase = LifecyclePhase::ValidatedAwaitingPersistence;
        if (in_.spec.persistence == PersistenceMode::TemplatePatch) {
            d_.actions.emplace_back(PatchTemplate{e_.candidate, e_.validated_revision});
            e_.message = "validated; patching the pod template (persistence.mode TemplatePatch)";
        } else {
            e_.message = "validated; the webhook injects it into the next update that changes the pod template";
        }
    }

    void fail(const std::string& why) {
        e_.phase = LifecyclePhase::Failed;
        add_failed_revision(e_.failed_revisions, e_.current_revision);
        e_.step_applied_at.reset();
        e_.step_ready_at.reset();
        e_.message = why + "; revision " + e_.current_revision + " is on failedRevisions";
        roll_back(why);
    }

    // Best effort, and repeated while a pod still carries the failed
    // candidate (a rollback the shell could not make is retried).
    void roll_back(const std::string& why) {
        RollbackPods rollback{{}, e_.baseline, e_.current_revision};
        if (e_.candidate != e_.baseline) {
            for (const LifecyclePod* p : ordered())
                if (p->resize.state != ResizeState::Pending) rollback.pods.push_back(ref(*p->pod));
        }
        const std::size_t n = rollback.pods.size();
        if (n > 0) d_.actions.emplace_back(std::move(rollback));
        if (why.empty()) return;
        if (n > 0) e_.message += "; rolling " + plural(n, "pod") + " back to the baseline";
        event(true, "ValidationFailed", e_.message);
    }
};

}  // namespace

LifecycleDecision step_lifecycle(const LifecycleInputs& in) { return Machine(in).run(); }

}  // namespace attune::core
