#include "attune/core/admission/policy_admission.hpp"

#include <boost/json.hpp>

#include "attune/core/util/json_patch.hpp"

namespace attune::core {
namespace json = boost::json;

std::optional<PolicyKind> parse_policy_kind(std::string_view kind) noexcept {
    if (kind == "AttunePolicy") return PolicyKind::AttunePolicy;
    if (kind == "AttuneDefaults") return PolicyKind::AttuneDefaults;
    if (kind == "AttuneNamespaceDefaults") return PolicyKind::AttuneNamespaceDefaults;
    return std::nullopt;
}

std::string_view to_string(PolicyKind k) noexcept {
    switch (k) {
        case PolicyKind::AttunePolicy: return "AttunePolicy";
        case PolicyKind::AttuneDefaults: return "AttuneDefaults";
        case PolicyKind::AttuneNamespaceDefaults: return "AttuneNamespaceDefaults";
    }
    return "";
}

namespace {

PolicyAdmission refused(std::string message) {
    PolicyAdmission out;
    out.allowed = false;
    out.message = std::move(message);
    return out;
}

// The decoders need metadata.name and .namespace, which a CREATE by
// generateName, or a client that leaves the namespace to the URL, may not
// carry yet: the request's namespace (and a stand-in name) fill them.
json::value with_identity(const json::value& object, const std::string& ns) {
    json::value copy = object;
    auto* root = copy.if_object();
    if (!root) return copy;
    auto& meta = (*root)["metadata"];
    if (!meta.is_object()) return copy;  // the decoder says what is wrong
    auto& m = meta.as_object();
    const auto* name = m.if_contains("name");
    if (!name || (name->is_string() && name->get_string().empty())) m["name"] = "(generated)";
    const auto* stored_ns = m.if_contains("namespace");
    if (!ns.empty() && (!stored_ns || (stored_ns->is_string() && stored_ns->get_string().empty()))) m["namespace"] = ns;
    return copy;
}

std::string zone_refusal(const PolicyAdmissionInput& in, const std::optional<ScheduleSpec>& schedule) {
    if (!schedule || schedule->timezone.empty() || !in.check_time_zone) return "";
    const auto why = in.check_time_zone(schedule->timezone);
    if (why.empty()) return "";
    return "spec.updateStrategy.schedule.timezone \"" + schedule->timezone +
           "\" is not a time zone of the zone database: " + why;
}

// The defaults object alone, as the controller merges it into a policy that
// sets nothing: the rules of validate_effective_policy on its own values.
std::optional<std::string> defaults_refusal(const PolicyAdmissionInput& in, const AttuneDefaults& d) {
    AttunePolicy blank;
    blank.meta.namespace_ = in.namespace_;
    blank.meta.name = "(any policy)";
    const DefaultsInput self{d.meta.name, &d, ""};
    PolicyResolutionInput r;
    r.policy = &blank;
    (in.kind == PolicyKind::AttuneDefaults ? r.cluster_defaults : r.namespace_defaults) = std::span(&self, 1);
    r.validation = in.validation;
    auto resolved = resolve_effective_policy(r);
    if (resolved.ok()) return std::nullopt;
    return resolved.message;
}

PolicyAdmission admit_policy(const PolicyAdmissionInput& in, const json::value& object) {
    auto decoded = decode_attune_policy(object);
    if (!decoded) return refused(decoded.error().message);
    const AttunePolicy& policy = decoded.value();
    // On its own first: a refusal must not depend on what a cache holds.
    PolicyResolutionInput alone;
    alone.policy = &policy;
    alone.validation = in.validation;
    const auto own = resolve_effective_policy(alone);
    if (!own.ok()) return refused(own.message);
    if (auto why = zone_refusal(in, policy.spec.update_strategy.schedule); !why.empty()) return refused(why);

    PolicyAdmission out;
    UpdateMode mode = own.effective->update_strategy.type;
    if (in.defaults_synced) {
        PolicyResolutionInput merged = alone;
        merged.cluster_defaults = in.cluster_defaults;
        merged.namespace_defaults = in.namespace_defaults;
        const auto with_tiers = resolve_effective_policy(merged);
        if (!with_tiers.ok()) {
            out.warnings.push_back(
                "the controller will report this policy InvalidConfig with the defaults it merges: " +
                with_tiers.message);
        } else {
            mode = with_tiers.effective->update_strategy.type;
            const auto& s = with_tiers.effective->update_strategy.schedule;
            // A tier's schedule, stored before this webhook checked it.
            if (s && !policy.spec.update_strategy.schedule && in.check_time_zone) {
                if (auto why = in.check_time_zone(s->timezone); !why.empty())
                    out.warnings.push_back("the schedule this policy inherits has timezone \"" + s->timezone +
                                           "\", which is not in the zone database (" + why +
                                           "); the schedule fails open");
            }
        }
    }
    auto go = policy_warnings(policy.spec, mode);
    out.warnings.insert(out.warnings.begin(), go.begin(), go.end());
    return out;
}

PolicyAdmission admit_defaults(const PolicyAdmissionInput& in, const json::value& object) {
    auto decoded = decode_attune_defaults(object);
    if (!decoded) return refused(decoded.error().message);
    const AttuneDefaults& d = decoded.value();
    if (auto why = defaults_refusal(in, d)) return refused(*why);
    if (auto why = zone_refusal(in, d.spec.update_strategy.schedule); !why.empty()) return refused(why);
    PolicyAdmission out;
    out.warnings = defaults_warnings(d.spec);
    return out;
}

bool is_set(const std::optional<bool>& b) { return b && *b; }

}  // namespace

PolicyAdmission admit_policy_object(const PolicyAdmissionInput& in) {
    if (!in.object || !in.object->is_object())
        return refused("the request carries no " + std::string(to_string(in.kind)) + " object");
    if (const auto* meta = in.object->as_object().if_contains("metadata"); meta && meta->is_object()) {
        if (const auto* d = meta->as_object().if_contains("deletionTimestamp"); d && !d->is_null()) return {};
    }
    auto judge = [&in](const json::value& o) {
        const auto object = with_identity(o, in.namespace_);
        return in.kind == PolicyKind::AttunePolicy ? admit_policy(in, object) : admit_defaults(in, object);
    };
    auto out = judge(*in.object);
    if (out.allowed || !in.old_object || !in.old_object->is_object()) return out;
    if (judge(*in.old_object).message != out.message) return out;
    PolicyAdmission kept;
    kept.warnings.push_back("admitted because the stored object breaks the same rule; fix it: " + out.message);
    return kept;
}

json::array default_policy_object(PolicyKind kind, const json::value& object) {
    if (kind != PolicyKind::AttunePolicy || !object.is_object()) return {};
    const auto* spec = object.as_object().if_contains("spec");
    if (!spec || !spec->is_object()) return {};
    const auto* weight = spec->as_object().if_contains("weight");
    const bool unset = !weight || weight->is_null() || (weight->is_int64() && weight->get_int64() == 0) ||
                       (weight->is_uint64() && weight->get_uint64() == 0) ||
                       (weight->is_double() && weight->get_double() == 0);
    if (!unset) return {};
    json::value edited = object;
    edited.as_object()["spec"].as_object()["weight"] = kDefaultPolicyWeight;
    return json_patch_diff(object, edited);
}

std::vector<std::string> policy_warnings(const AttunePolicySpec& spec, UpdateMode mode) {
    std::vector<std::string> w;
    const auto& us = spec.update_strategy;
    const std::string m(to_string(mode));
    if (spec.memory.startup_boost) w.emplace_back("memory.startupBoost is ignored: the startup boost raises CPU only");
    if (us.canary && us.canary->observation_period == Duration::zero())
        w.emplace_back("updateStrategy.canary.observationPeriod 0 means the default period");
    if (is_set(spec.memory.allow_decrease))
        w.emplace_back(
            "memory.allowDecrease lowers memory in place, which can OOM-kill a container whose usage grows back");
    if (is_set(spec.paused) && mode_resizes(mode))
        w.push_back("spec.paused is set: this " + m + " policy queries and resizes nothing until it is cleared");

    const bool resizes = mode_resizes(mode);
    if (!resizes) {
        if (is_set(us.initial_sizing))
            w.push_back("initialSizing does nothing under " + m + ": only Auto, OneShot and Canary size pods");
        if (is_set(us.auto_revert))
            w.push_back("autoRevert does nothing under " + m + ": nothing is resized, so nothing is reverted");
        if (!us.slo_guardrails.empty())
            w.push_back("sloGuardrails do nothing under " + m + ": nothing is resized, so nothing is guarded");
        if (us.schedule) w.push_back("schedule does nothing under " + m + ": nothing is resized");
        if (us.resize_method) w.push_back("resizeMethod does nothing under " + m + ": nothing is resized");
        if (us.max_total_cpu_increase)
            w.push_back("maxTotalCpuIncrease does nothing under " + m + ": nothing is resized");
        if (us.max_total_memory_increase)
            w.push_back("maxTotalMemoryIncrease does nothing under " + m + ": nothing is resized");
    }
    if (mode == UpdateMode::Observe && us.export_) {
        if (us.export_->config_map)
            w.emplace_back("export.configMap does nothing under Observe: no recommendation is computed");
        if (us.export_->pull_request && is_set(us.export_->pull_request->enabled))
            w.emplace_back("export.pullRequest does nothing under Observe: no recommendation is computed");
    }
    if (const auto& tp = us.template_persistence; tp && is_set(tp->enabled)) {
        const auto when = tp->when.value_or(TemplatePersistenceWhen::AfterSuccessfulResize);
        if (when == TemplatePersistenceWhen::AfterSuccessfulResize && !resizes)
            w.push_back("templatePersistence.when AfterSuccessfulResize never fires under " + m +
                        ": nothing is resized; use OnRecommendation, or a mode that resizes");
        if (mode == UpdateMode::Observe)
            w.emplace_back("templatePersistence does nothing under Observe: no recommendation is computed");
    }
    if (us.canary && mode != UpdateMode::Canary)
        w.push_back("updateStrategy.canary does nothing under " + m + ": it applies to Canary only");
    if (!us.slo_guardrails.empty() && resizes && us.auto_revert && !*us.auto_revert)
        w.emplace_back("sloGuardrails with autoRevert false: a breach is reported, and nothing is reverted");
    if (!us.slo_guardrails.empty() && spec.metrics_source.vpa)
        w.emplace_back("sloGuardrails are PromQL, which a VPA source cannot answer: they are not evaluated");
    // Explicit allowDecrease wins over the profile in the merge
    // (docs/api.md#the-defaults-merge), against the profile's advice.
    if (spec.runtime_profile && is_set(spec.memory.allow_decrease) &&
        (*spec.runtime_profile == RuntimeProfile::Java || *spec.runtime_profile == RuntimeProfile::Python ||
         *spec.runtime_profile == RuntimeProfile::Nodejs))
        w.push_back("runtimeProfile " + std::string(to_string(*spec.runtime_profile)) +
                    " advises against lowering memory in place (its runtime may keep a heap sized for the old "
                    "limit); consider allowDecrease false, or a memory resizePolicy of RestartContainer");
    if (mode == UpdateMode::OneShot && us.max_concurrent_resizes.value_or(1) > 1)
        w.emplace_back("maxConcurrentResizes above 1 does nothing under OneShot: it resizes one pod per cycle");
    if (spec.memory.memory_from_cpu_ratio) {
        if (spec.memory.percentile)
            w.emplace_back("memory.percentile is ignored with memoryFromCpuRatio: memory follows CPU");
        if (spec.memory.overhead_percent)
            w.emplace_back("memory.overhead is ignored with memoryFromCpuRatio: memory follows CPU");
    }
    return w;
}

std::vector<std::string> defaults_warnings(const DefaultsSpec& spec) {
    std::vector<std::string> w;
    if (spec.memory.startup_boost) w.emplace_back("memory.startupBoost is ignored: the startup boost raises CPU only");
    return w;
}

}  // namespace attune::core
