#include "attune/core/admission/deferred_persistence.hpp"

#include <boost/json.hpp>

#include "attune/core/resize/envelope.hpp"
#include "attune/core/util/json_patch.hpp"
#include "attune/core/util/json_path.hpp"
#include "attune/core/policy/overlay.hpp"
#include "attune/core/model/pod_model.hpp"
#include "attune/core/model/qos.hpp"
#include "../model/pod_json.hpp"

namespace attune::core {
namespace json = boost::json;

namespace {

const json::value* template_of(const json::value* workload) {
    return workload ? json_at(*workload, {"spec", "template"}) : nullptr;
}

}  // namespace

std::optional<PersistenceCandidate> persistence_candidate(const LifecycleStatusEntry& entry, std::string_view policy) {
    if (entry.phase != LifecyclePhase::ValidatedAwaitingPersistence || entry.validated_revision.empty() ||
        entry.candidate.empty())
        return std::nullopt;
    PersistenceCandidate c;
    c.policy = std::string(policy);
    c.validated_revision = entry.validated_revision;
    c.containers = entry.candidate;
    return c;
}

TemplatePersistence persist_on_template_change(const TemplateUpdateInput& in) {
    TemplatePersistence out;
    if (!in.candidate) {
        out.skip_reason = "no_candidate";
        return out;
    }
    const json::value* tmpl = template_of(in.object);
    const json::value* old_tmpl = template_of(in.old_object);
    if (!tmpl || !tmpl->is_object()) {
        out.skip_reason = "invalid_object";
        out.warnings.push_back("attune: validated resources not persisted: the object has no spec.template");
        return out;
    }
    if (old_tmpl && *old_tmpl == *tmpl) {
        out.skip_reason = "template_unchanged";
        return out;
    }
    if (string_at(*in.object, {"metadata", "annotations", kPersistedRevisionAnnotation}) ==
        in.candidate->validated_revision) {
        out.skip_reason = "already_persisted";
        return out;
    }
    auto decoded = decode_pod(*tmpl);
    if (!decoded) {
        out.skip_reason = "invalid_object";
        out.warnings.push_back("attune: validated resources not persisted: spec.template: " + decoded.error().message);
        return out;
    }
    std::optional<Pod> old_pod;
    if (old_tmpl) {
        if (auto o = decode_pod(*old_tmpl); o.ok()) old_pod = std::move(o).value();
    }

    Pod planned = decoded.value();
    for (const auto& [cand_name, cand_resources] : in.candidate->containers) {
        // App containers and native sidecars; a regular init container is
        // never resized, and a name this update removed is skipped.
        Container* c = nullptr;
        for (auto& x : planned.containers)
            if (x.name == cand_name) c = &x;
        for (auto& x : planned.init_containers)
            if (!c && x.name == cand_name && x.is_native_sidecar()) c = &x;
        if (!c) continue;
        if (old_pod) {
            const Container* before = old_pod->find_container(cand_name);
            if (before && !(before->resources == c->resources)) {
                out.warnings.push_back("attune: container " + cand_name +
                                       " keeps the resources this update sets; validated revision " +
                                       in.candidate->validated_revision + " was not applied to it");
                continue;
            }
        }
        c->resources = overlay_requirements(c->resources, cand_resources);
        out.injected_containers.push_back(cand_name);
    }
    if (out.injected_containers.empty()) {
        out.skip_reason = "no_matching_container";
        return out;
    }

    json::value after = *in.object;
    auto& tmpl_after = after.as_object()["spec"].as_object()["template"].as_object();
    auto& spec_after = detail::ensure_object(tmpl_after, "spec");
    for (const auto& name : out.injected_containers)
        detail::write_container_resources(spec_after, name, planned.find_container(name)->resources);
    if (in.pod_level_resources_field && planned.pod_resources) {
        const auto raise = raise_envelope(planned.pod_resources, planned, compute_pod_qos(planned, true));
        if (raise && raise->raised) {
            detail::write_resources(spec_after, "resources", raise->next);
            out.envelope_raised = true;
        }
    }
    auto& wl_ann = detail::ensure_object(detail::ensure_object(after.as_object(), "metadata"), "annotations");
    wl_ann[kPersistedRevisionAnnotation] = in.candidate->validated_revision;
    wl_ann[kPersistedPolicyAnnotation] = in.candidate->policy;
    auto& tmpl_ann = detail::ensure_object(detail::ensure_object(tmpl_after, "metadata"), "annotations");
    tmpl_ann[kRevisionAnnotation] = in.candidate->validated_revision;
    out.patch = json_patch_diff(*in.object, after);
    return out;
}

}  // namespace attune::core
