#pragma once
// Which validation attempt a reconcile belongs to (docs/lifecycle.md):
// continue the previous one, or start a new one (first, new revision,
// superseded, revalidation), with its frozen baseline, its candidate (the
// recommendation overlaid on that baseline) and the candidate's revision.
//
// The lifecycle takes two pure calls per reconcile because the shell must
// classify every pod's resize state towards the candidate
// (classify_resize_state) before step_lifecycle can decide, and the
// candidate depends on the attempt:
//   1. plan = plan_attempt(...)      -> baseline, candidate, revision
//   2. classify each pod against plan.candidate
//   3. step_lifecycle(..., plan, ...)
#include <span>
#include <string>

#include "attune/core/policy/lifecycle_spec.hpp"
#include "attune/core/lifecycle/lifecycle_status.hpp"
#include "attune/core/policy/overlay.hpp"
#include "attune/core/model/pod_model.hpp"
#include "attune/core/util/result.hpp"
#include "attune/core/lifecycle/revision.hpp"

namespace attune::core {

struct LifecycleRecommendation {
    RecommendationSource source = RecommendationSource::Manual;
    // Per container: Manual gives the explicit keys of the overlay; VPA and
    // Prometheus give the recommended values. Either way they are overlaid
    // on the frozen baseline: omitted keys are inherited.
    ContainerResourceMap containers;
};

enum class AttemptStart {
    Continue,      // the previous entry's attempt goes on
    First,         // no previous entry
    NewRevision,   // the recommendation changed after validation ended (or failed)
    Superseded,    // the recommendation changed while validating
    Revalidation,  // a new spec.lifecycle.revalidationToken
};

std::string_view attempt_start_name(AttemptStart s) noexcept;

struct AttemptPlan {
    AttemptStart start = AttemptStart::Continue;
    RecommendationSource source = RecommendationSource::Manual;
    std::string revision;            // revision_fingerprint(workload, candidate)
    ContainerResourceMap baseline;   // frozen for the attempt
    ContainerResourceMap candidate;  // what the pods are resized to
    // A new revision that is on failedRevisions while no revalidation token
    // asks for it: the attempt is not run.
    bool denied = false;
    std::string reason;  // why this attempt (human text for the Event)
};

struct AttemptInputs {
    WorkloadIdentity workload;
    std::span<const Pod> pods;  // the workload's live pods (Running, not deleting)
    LifecycleRecommendation recommendation;
    std::string revalidation_token;                 // spec.lifecycle.revalidationToken
    const LifecycleStatusEntry* previous = nullptr; // this workload's entry, if any
};

// Rules (docs/lifecycle.md):
//  - a revalidation token that differs from the handled one starts a fresh
//    attempt whatever the revision, and may retry a denied revision;
//  - a VPA-backed attempt keeps the recommendation captured at its start
//    while it validates; Manual and Prometheus recommendations that change
//    supersede it;
//  - the revision is compared on the previous attempt's baseline, so the
//    rollout's own resizes never look like a new recommendation;
//  - the baseline of a superseding attempt stays the frozen one; a fresh
//    baseline comes from the live pods in StableHash order: after
//    validation the first pod already at the validated candidate (the
//    re-baseline), while validating or after a failure the first pod not at
//    the previous candidate, else the first pod.
// Errors: "no_pods" (no live pod and no previous entry to take a baseline
// from), "unknown_container" (the recommendation names a container the
// baseline does not have).
Result<AttemptPlan> plan_attempt(const AttemptInputs& in);

// Whether `pod`'s spec carries `resources` (the cpu/memory keys each names),
// as classify_resize_state judges it: anything but Pending.
bool pod_carries(const Pod& pod, const ContainerResourceMap& resources);

}  // namespace attune::core
