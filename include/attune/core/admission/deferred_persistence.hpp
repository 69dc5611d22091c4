#pragma once
// Deferred persistence (docs/webhook.md, persistence.mode
// AdmissionOnNextPodTemplateChange): the validated candidate reaches the
// workload's pod template on the next Deployment/StatefulSet UPDATE that
// already changes the template, so Attune never starts a rollout of its
// own. Pure: the caller found the candidate in the policy's lifecycle
// status (phase ValidatedAwaitingPersistence).
#include <boost/json/array.hpp>
#include <boost/json/value.hpp>
#include <string>
#include <string_view>
#include <vector>

#include "attune/core/lifecycle/lifecycle_status.hpp"  // the entry, and the revision annotations
#include "attune/core/policy/overlay.hpp"              // ContainerResourceMap

namespace attune::core {

struct PersistenceCandidate {
    std::string policy;              // the policy's name
    std::string validated_revision;  // status.lifecycle.workloads[].validatedRevision
    ContainerResourceMap containers;  // candidate.containers
};

// The candidate of a lifecycle entry that awaits admission-time persistence
// (phase ValidatedAwaitingPersistence with a validated revision), else
// nullopt: any other phase means the webhook has nothing to inject (the
// reconciler moves the phase to clear webhook eligibility).
std::optional<PersistenceCandidate> persistence_candidate(const LifecycleStatusEntry& entry, std::string_view policy);

struct TemplateUpdateInput {
    const boost::json::value* object = nullptr;      // the Deployment/StatefulSet being written
    const boost::json::value* old_object = nullptr;  // as stored before this update
    const PersistenceCandidate* candidate = nullptr;  // nullptr: nothing awaits persistence
    bool pod_level_resources_field = false;
};

struct TemplatePersistence {
    // Empty when the candidate was injected. Otherwise "no_candidate",
    // "template_unchanged" (labels, replicas, ... only: left alone),
    // "already_persisted" (the workload carries this revision),
    // "invalid_object", "no_matching_container".
    std::string skip_reason;
    boost::json::array patch;  // RFC 6902 against `object`
    std::vector<std::string> injected_containers;
    bool envelope_raised = false;
    std::vector<std::string> warnings;

    bool injected() const { return skip_reason.empty(); }
};

// When the update changes spec.template: each candidate container's
// resources are laid over the template container of the same name (the
// candidate's keys win, other keys stay); a container whose resources this
// very update changes keeps the user's values (a warning says so); a
// template envelope (spec.template.spec.resources, when the field exists)
// is raised to cover the result, never invented; then
// attune.io/persisted-revision and attune.io/persisted-policy on the
// workload and attune.io/revision on the template. Idempotent under
// reinvocation.
TemplatePersistence persist_on_template_change(const TemplateUpdateInput& in);

}  // namespace attune::core
