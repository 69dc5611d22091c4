#pragma once
// templatePersistence{enabled, when} (docs/api.md#attunepolicy-spec) for Deployments
// and StatefulSets: the strategic-merge patch that writes the applied
// resources onto the pod template, with the envelope rules of docs/core.md:
//  - the template envelope is raised from the post-overlay template spec
//    (raise_envelope), never invented when the template has none, never shrunk;
//  - nothing is persisted when listing the live pods failed (an error must
//    not read as "no envelope");
//  - never while another rollout is in progress (rollout_in_progress):
//    Deployment: observedGeneration < generation, updatedReplicas <
//    spec.replicas, replicas > updatedReplicas (old pods still there), or
//    availableReplicas < updatedReplicas; StatefulSet: observedGeneration <
//    generation, currentRevision != updateRevision, or updated/ready
//    replicas < spec.replicas.
// History: TemplatePatched (resource template, method TemplatePersistence).
#include <boost/json/object.hpp>
#include <boost/json/value.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <variant>

#include "attune/core/policy/overlay.hpp"
#include "attune/core/resize/plan_resize.hpp"
#include "attune/core/policy/policy.hpp"  // TemplatePersistenceWhen
#include "attune/core/resize/resize_history.hpp"
#include "attune/core/util/result.hpp"

namespace attune::core {

// templatePersistence.when as the policy model decodes it (to_string names it).
using PersistWhen = TemplatePersistenceWhen;

struct RolloutStatus {
    std::string kind;
    std::int64_t generation = 0;
    std::int64_t observed_generation = 0;
    std::int32_t spec_replicas = 1;  // absent: the API default 1
    std::int32_t replicas = 0, updated_replicas = 0, ready_replicas = 0, available_replicas = 0;
    std::string current_revision, update_revision;  // StatefulSet
};

// A Deployment or StatefulSet. Error "invalid_workload".
Result<RolloutStatus> decode_rollout_status(std::string_view kind, const boost::json::value& workload);
// Why a rollout is in progress; nullopt when none is.
std::optional<std::string> rollout_in_progress(const RolloutStatus& s);

// Whether a policy in `mode` persists templates for `when` at all. Observe
// changes nothing, and under Canary the lifecycle's own persistence replaces
// templatePersistence (docs/lifecycle.md). Recommend resizes no pod, so there
// only OnRecommendation applies: the template takes the recommendation and
// the pods of the rollout it starts are created at it (docs/resize.md).
bool mode_persists_templates(UpdateMode mode, PersistWhen when) noexcept;

// The template itself is read with decode_pod_template(kind, workload)
// (workload_baseline.hpp).

enum class PersistTrigger { ResizeApplied, Recommendation };

struct TemplatePersistInputs {
    bool enabled = false;
    PersistWhen when = PersistWhen::AfterSuccessfulResize;
    PersistTrigger trigger = PersistTrigger::ResizeApplied;
    std::string kind;  // Deployment | StatefulSet; anything else is skipped
    bool live_pods_listed = false;  // listing the workload's live pods succeeded
    ControlledValues controlled_values = ControlledValues::RequestsOnly;
    // Per container: what to persist (the values the /resize applied, or
    // the recommendation for OnRecommendation).
    ContainerResourceMap resources;
    // Optional: TemplatePatch persistence of a validated
    // lifecycle revision writes attune.io/persisted-revision/-policy on the
    // workload and attune.io/revision on the template.
    std::string revision;
    std::string policy;
};

struct TemplatePatch {
    boost::json::object body;  // strategic-merge patch for the workload
    ContainerResourceMap containers;               // the post-overlay template resources written
    std::optional<ResourceRequirements> envelope;  // the raised template envelope, when written
};

struct TemplateSkip {
    // disabled | not_triggered | unsupported_kind | live_pods_unknown |
    // rollout_in_progress | unchanged | container_not_found
    std::string reason;
    std::string message;
};

using TemplateDecision = std::variant<TemplatePatch, TemplateSkip>;

TemplateDecision plan_template_patch(const Pod& pod_template, const RolloutStatus& rollout,
                                     const TemplatePersistInputs& in);

// What persisting in.resources writes onto the template, past the gates of
// plan_template_patch (enabled, trigger, kind, live pods, rollout): per
// container apply_target under in.controlled_values, then the raised
// envelope. plan_template_patch ends with it, and kubectl attune diff and
// export show it, so both write the same values. Skips: container_not_found,
// unchanged.
TemplateDecision template_patch(const Pod& pod_template, const TemplatePersistInputs& in);

// The TemplatePatched history entry for a patch that was written.
HistoryEntry template_history_entry(const TemplatePatch& patch, const Pod& pod_template, std::string workload,
                                    PersistWhen when, Timestamp now);

}  // namespace attune::core
