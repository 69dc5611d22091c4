#include "attune/core/followups/template_persistence.hpp"

#include <boost/json.hpp>

#include "attune/core/policy/annotations.hpp"
#include "attune/core/resize/envelope.hpp"
#include "attune/core/model/qos.hpp"
#include "../util/json_decode.hpp"

namespace attune::core {

Result<RolloutStatus> decode_rollout_status(std::string_view kind, const boost::json::value& json) {
    using namespace detail;
    try {
        const auto& root = as_object(json, "workload");
        RolloutStatus s;
        s.kind = std::string(kind);
        if (const auto* md = opt_object(root, "metadata", "workload"))
            s.generation = opt_int(*md, "generation", "metadata").value_or(0);
        if (const auto* spec = opt_object(root, "spec", "workload"))
            s.spec_replicas = static_cast<std::int32_t>(opt_int(*spec, "replicas", "spec").value_or(1));
        if (const auto* st = opt_object(root, "status", "workload")) {
            s.observed_generation = opt_int(*st, "observedGeneration", "status").value_or(0);
            s.replicas = static_cast<std::int32_t>(opt_int(*st, "replicas", "status").value_or(0));
            s.updated_replicas = static_cast<std::int32_t>(opt_int(*st, "updatedReplicas", "status").value_or(0));
            s.ready_replicas = static_cast<std::int32_t>(opt_int(*st, "readyReplicas", "status").value_or(0));
            s.available_replicas = static_cast<std::int32_t>(opt_int(*st, "availableReplicas", "status").value_or(0));
            s.current_revision = opt_string(*st, "currentRevision", "status");
            s.update_revision = opt_string(*st, "updateRevision", "status");
        }
        return s;
    } catch (const DecodeFailure& e) {
        return make_error("invalid_workload", e.what());
    }
}

bool mode_persists_templates(UpdateMode mode, PersistWhen when) noexcept {
    switch (mode) {
        case UpdateMode::OneShot:
        case UpdateMode::Auto: return true;
        case UpdateMode::Recommend: return when == PersistWhen::OnRecommendation;
        case UpdateMode::Observe:
        case UpdateMode::Canary: return false;
    }
    return false;
}

std::optional<std::string> rollout_in_progress(const RolloutStatus& s) {
    auto n = [](std::int64_t v) { return std::to_string(v); };
    if (s.observed_generation < s.generation)
        return "the controller has not observed generation " + n(s.generation) + " yet (observed " + n(s.observed_generation) + ")";
    if (s.updated_replicas < s.spec_replicas)
        return n(s.updated_replicas) + " of " + n(s.spec_replicas) + " replicas updated";
    if (s.kind == "StatefulSet") {
        if (!s.update_revision.empty() && s.current_revision != s.update_revision)
            return "currentRevision " + s.current_revision + " is not updateRevision " + s.update_revision;
        if (s.ready_replicas < s.spec_replicas) return n(s.ready_replicas) + " of " + n(s.spec_replicas) + " replicas ready";
        return std::nullopt;
    }
    if (s.replicas > s.updated_replicas) return n(s.replicas - s.updated_replicas) + " old replica(s) still running";
    if (s.available_replicas < s.updated_replicas)
        return n(s.available_replicas) + " of " + n(s.updated_replicas) + " updated replicas available";
    return std::nullopt;
}

TemplateDecision plan_template_patch(const Pod& tmpl, const RolloutStatus& rollout, const TemplatePersistInputs& in) {
    if (!in.enabled) return TemplateSkip{"disabled", "templatePersistence is not enabled"};
    const bool wanted = in.when == PersistWhen::OnRecommendation ? in.trigger == PersistTrigger::Recommendation
                                                                 : in.trigger == PersistTrigger::ResizeApplied;
    if (!wanted)
        return TemplateSkip{"not_triggered", "templatePersistence.when is " + std::string(to_string(in.when))};
    if (in.kind != "Deployment" && in.kind != "StatefulSet")
        return TemplateSkip{"unsupported_kind", in.kind + " templates are not persisted (Deployment and StatefulSet only)"};
    if (!in.live_pods_listed)
        return TemplateSkip{"live_pods_unknown", "listing the live pods failed; persisting now could drop their envelope"};
    if (auto why = rollout_in_progress(rollout))
        return TemplateSkip{"rollout_in_progress", "another rollout is in progress: " + *why};
    return template_patch(tmpl, in);
}

TemplateDecision template_patch(const Pod& tmpl, const TemplatePersistInputs& in) {
    Pod after = tmpl;
    TemplatePatch out;
    boost::json::array containers, init_containers;
    for (const auto& [name, want] : in.resources) {
        Container* c = after.find_container(name);
        if (!c) return TemplateSkip{"container_not_found", "the pod template has no container " + name};
        ResourceRequirements next = apply_target(c->resources, want, in.controlled_values);
        out.containers.emplace(name, next);
        if (next == c->resources) continue;
        c->resources = next;
        boost::json::object entry{{"name", name}, {"resources", requirements_json(next)}};
        (c->is_native_sidecar() ? init_containers : containers).push_back(std::move(entry));
    }
    // Raise the template's own envelope from the post-overlay
    // spec; none is invented when the template has none.
    if (auto raise = raise_envelope(tmpl.pod_resources, after, compute_pod_qos(after, true)); raise && raise->raised)
        out.envelope = raise->next;
    if (containers.empty() && init_containers.empty() && !out.envelope)
        return TemplateSkip{"unchanged", "the pod template already has these resources"};

    boost::json::object spec;
    if (!containers.empty()) spec["containers"] = std::move(containers);
    if (!init_containers.empty()) spec["initContainers"] = std::move(init_containers);
    if (out.envelope) spec["resources"] = requirements_json(*out.envelope);
    boost::json::object template_obj{{"spec", std::move(spec)}};
    if (!in.revision.empty())
        template_obj["metadata"] = boost::json::object{{"annotations", boost::json::object{{kRevisionAnnotation, in.revision}}}};
    out.body["spec"] = boost::json::object{{"template", std::move(template_obj)}};
    if (!in.revision.empty())
        out.body["metadata"] = boost::json::object{
            {"annotations", boost::json::object{{kPersistedRevisionAnnotation, in.revision}, {kPersistedPolicyAnnotation, in.policy}}}};
    return out;
}

HistoryEntry template_history_entry(const TemplatePatch& patch, const Pod& tmpl, std::string workload, PersistWhen when,
                                    Timestamp now) {
    HistoryEntry e;
    e.timestamp = now;
    e.workload = std::move(workload);
    std::string names, from, to;
    for (const auto& [name, rr] : patch.containers) {
        const Container* c = tmpl.find_container(name);
        names += (names.empty() ? "" : ",") + name;
        from += (from.empty() ? "" : "; ") + name + ": " +
                describe_resources(c ? c->resources : ResourceRequirements{}, HistoryResource::Template);
        to += (to.empty() ? "" : "; ") + name + ": " + describe_resources(rr, HistoryResource::Template);
    }
    e.container = names;
    e.from = from;
    e.to = to;
    e.resource = HistoryResource::Template;
    e.method = HistoryMethod::TemplatePersistence;
    e.result = HistoryResult::TemplatePatched;
    e.reason = std::string(to_string(when));
    return e;
}

}  // namespace attune::core
