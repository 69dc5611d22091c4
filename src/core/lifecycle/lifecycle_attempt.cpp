#include "attune/core/lifecycle/lifecycle_attempt.hpp"

#include <algorithm>

#include "attune/core/resize/resize_state.hpp"
#include "attune/core/lifecycle/selection.hpp"

namespace attune::core {
namespace {

// The pods in StableHash order (workload UID + pod UID).
std::vector<const Pod*> stable_order(const WorkloadIdentity& w, std::span<const Pod> pods) {
    std::vector<std::string> uids;
    uids.reserve(pods.size());
    for (const auto& p : pods) uids.push_back(p.uid);
    std::vector<const Pod*> out;
    out.reserve(pods.size());
    for (std::size_t i : selection_order(w.uid, uids)) out.push_back(&pods[i]);
    return out;
}

// The live baseline of a new attempt (see plan_attempt in the header).
ContainerResourceMap fresh_baseline(const std::vector<const Pod*>& ordered, const LifecycleStatusEntry* prev) {
    if (prev && !prev->candidate.empty()) {
        const bool after_validation = !is_validating(prev->phase) && prev->phase != LifecyclePhase::Failed;
        for (const Pod* p : ordered)
            if (pod_carries(*p, prev->candidate) == after_validation) return freeze_baseline(*p).containers;
        if (!after_validation) return prev->baseline;
    }
    if (!ordered.empty()) return freeze_baseline(*ordered.front()).containers;
    return prev ? prev->baseline : ContainerResourceMap{};
}

std::vector<ContainerResources> as_list(const ContainerResourceMap& m) {
    std::vector<ContainerResources> out;
    out.reserve(m.size());
    for (const auto& [name, rr] : m) out.push_back({name, rr});
    return out;
}

}  // namespace

std::string_view attempt_start_name(AttemptStart s) noexcept {
    switch (s) {
        case AttemptStart::Continue: return "Continue";
        case AttemptStart::First: return "First";
        case AttemptStart::NewRevision: return "NewRevision";
        case AttemptStart::Superseded: return "Superseded";
        case AttemptStart::Revalidation: return "Revalidation";
    }
    return "Continue";
}

bool pod_carries(const Pod& pod, const ContainerResourceMap& resources) {
    ResizeRequest request;
    for (const auto& [name, rr] : resources) request.targets.emplace(name, rr);
    return classify_resize_state(pod, &request).state != ResizeState::Pending;
}

Result<AttemptPlan> plan_attempt(const AttemptInputs& in) {
    const LifecycleStatusEntry* prev = in.previous;
    if (in.pods.empty() && !prev)
        return make_error("no_pods", "no live pod of " + in.workload.kind + " " + in.workload.name + " to take a baseline from");
    const auto ordered = stable_order(in.workload, in.pods);

    AttemptPlan plan;
    plan.source = in.recommendation.source;
    auto overlay_on = [&](ContainerResourceMap baseline) -> Result<bool> {
        auto candidate = apply_manual_overlay(FrozenBaseline{baseline}, in.recommendation.containers);
        if (!candidate.ok()) return candidate.error();
        plan.baseline = std::move(baseline);
        plan.candidate = std::move(candidate).value();
        plan.revision = revision_fingerprint(in.workload, as_list(plan.candidate));
        return true;
    };
    auto keep_previous = [&] {
        plan.start = AttemptStart::Continue;
        plan.source = prev->source.value_or(in.recommendation.source);
        plan.revision = prev->current_revision;
        plan.baseline = prev->baseline;
        plan.candidate = prev->candidate;
        return plan;
    };

    if (!prev) {
        plan.start = AttemptStart::First;
        plan.reason = "first validation of this workload";
    } else if (!in.revalidation_token.empty() && in.revalidation_token != prev->handled_revalidation_token) {
        plan.start = AttemptStart::Revalidation;
        plan.reason = "spec.lifecycle.revalidationToken \"" + in.revalidation_token + "\" asks for a fresh attempt";
    } else if (in.recommendation.source == RecommendationSource::Vpa && is_validating(prev->phase)) {
        // Captured at the attempt's start: the VPA recommender moves every
        // minute, and superseding on each move would never validate.
        return keep_previous();
    } else {
        if (auto r = overlay_on(prev->baseline); !r.ok()) return r.error();
        if (plan.revision == prev->current_revision) return keep_previous();
        if (is_validating(prev->phase)) {
            plan.start = AttemptStart::Superseded;
            plan.reason = "the recommendation changed during validation: " + plan.revision + " supersedes " +
                          prev->current_revision;
        } else {
            plan.start = AttemptStart::NewRevision;
            plan.reason = "the recommendation changed after " + prev->current_revision + " was " +
                          std::string(lifecycle_phase_name(prev->phase));
        }
    }
    if (plan.start != AttemptStart::Superseded) {
        if (auto r = overlay_on(fresh_baseline(ordered, prev)); !r.ok()) return r.error();
    }
    if (plan.start != AttemptStart::Revalidation && prev) {
        const auto& failed = prev->failed_revisions;
        plan.denied = std::find(failed.begin(), failed.end(), plan.revision) != failed.end();
        if (plan.denied) plan.reason = "revision " + plan.revision + " failed validation before (failedRevisions)";
    }
    return plan;
}

}  // namespace attune::core
