#include "attune/core/admission/create_sizing.hpp"

#include <algorithm>
#include <boost/json.hpp>
#include <cmath>

#include "attune/core/resize/envelope.hpp"
#include "attune/core/util/json_patch.hpp"
#include "attune/core/model/qos.hpp"
#include "../model/pod_json.hpp"

namespace attune::core {
namespace json = boost::json;

namespace {

bool annotation_is(const std::map<std::string, std::string, std::less<>>& m, std::string_view key,
                   std::string_view value) {
    const auto it = m.find(key);
    return it != m.end() && it->second == value;
}

ControlledValues controlled(const EffectivePolicy& p, std::string_view container, std::string_view resource) {
    return p.tuning_for(container, resource == kCpu ? ResourceKind::Cpu : ResourceKind::Memory).controlled_values;
}

// The container's resources with the recommendation written on (step 1).
ResourceRequirements recommended_target(const Container& c, const ContainerRecommendation& rec,
                                        const EffectivePolicy& policy) {
    ResourceRequirements t = c.resources;
    const std::pair<std::string_view, std::pair<const Quantity*, const Quantity*>> per_resource[] = {
        {kCpu, {&rec.recommended.cpu_request, &rec.recommended.cpu_limit}},
        {kMemory, {&rec.recommended.memory_request, &rec.recommended.memory_limit}},
    };
    for (const auto& [r, values] : per_resource) {
        const auto& [request, limit] = values;
        if (request->sign() > 0) t.requests[std::string(r)] = *request;
        if (controlled(policy, c.name, r) == ControlledValues::RequestsAndLimits && limit->sign() > 0)
            t.limits[std::string(r)] = *limit;
        // Requests never exceed limits: a RequestsOnly container keeps its
        // limit, and the request stops there.
        auto req = t.requests.find(r);
        const Quantity* lim = find_positive(t.limits, r);
        if (req != t.requests.end() && lim && req->second > *lim) req->second = *lim;
    }
    return t;
}

// The resources (cpu, memory) whose envelope limit `next` raises above `current`.
std::vector<std::string_view> lifted_limits(const ResourceRequirements& current, const ResourceRequirements& next) {
    std::vector<std::string_view> out;
    for (std::string_view r : {kCpu, kMemory}) {
        const Quantity* before = find(current.limits, r);
        const Quantity* after = find(next.limits, r);
        if (before && after && *after > *before) out.push_back(r);
    }
    return out;
}

std::string describe(const std::vector<std::string_view>& resources) {
    std::string s;
    for (auto r : resources) s += (s.empty() ? "" : ", ") + std::string(r);
    return s;
}

}  // namespace

std::optional<std::string> create_sizing_gate(std::string_view pod_namespace, const std::optional<NamespaceInfo>& ns,
                                              std::string_view operator_namespace,
                                              const std::map<std::string, std::string, std::less<>>& pod_annotations) {
    if (pod_namespace == "kube-system") return "kube_system";
    if (!operator_namespace.empty() && pod_namespace == operator_namespace) return "operator_namespace";
    if (annotation_is(pod_annotations, kSkipAnnotation, "true")) return "opted_out";
    if (!ns) return "namespace_unknown";
    if (annotation_is(ns->annotations, kFreezeAnnotation, "true")) return "namespace_frozen";
    if (!annotation_is(ns->labels, kInitialSizingLabel, "enabled")) return "namespace_not_enabled";
    return std::nullopt;
}

Quantity boost_cpu(const Quantity& request, double multiplier) {
    const double milli = std::ceil(static_cast<double>(request.milli_value()) * multiplier);
    return Quantity::from_milli(static_cast<std::int64_t>(milli), request.format());
}

CreateSizing size_pod_on_create(const CreateSizingInput& in) {
    CreateSizing out;
    if (!in.pod) {
        out.skip_reason = "invalid_pod";
        return out;
    }
    auto decoded = decode_pod(*in.pod);
    if (!decoded) {
        out.skip_reason = "invalid_pod";
        out.warnings.push_back("attune: pod not sized: " + decoded.error().message);
        return out;
    }
    const Pod& pod = decoded.value();
    const EffectivePolicy* policy = in.policy;
    if (!policy) {
        out.skip_reason = "no_policy";
        return out;
    }
    if (!policy->update_strategy.initial_sizing) {
        out.skip_reason = "initial_sizing_disabled";
        return out;
    }
    if (policy->paused) {
        out.skip_reason = "policy_paused";
        return out;
    }
    if (policy->update_strategy.type == UpdateMode::Canary) {
        out.skip_reason = "canary_policy";
        return out;
    }
    const StatusRecommendation* rec = in.recommendation;
    if (!rec) {
        out.skip_reason = "no_recommendation";
        return out;
    }
    if (rec->recommendation.stale) {
        out.skip_reason = "stale_recommendation";
        return out;
    }

    // Steps 1 and 2: the per-container targets, boosted.
    std::map<std::string, ResourceRequirements, std::less<>> targets;
    auto consider = [&](const Container& c) {
        ContainerSizing cs;
        cs.name = c.name;
        cs.before = c.resources;
        cs.after = c.resources;
        const ContainerRecommendation* cr = rec->find(c.name);
        if (policy->excludes(c.name)) {
            cs.outcome = "excluded";
        } else if (!cr) {
            cs.outcome = "no_recommendation";
        } else if (!(cr->confidence >= kMinimumCreateConfidence)) {
            cs.outcome = "low_confidence";
        } else {
            ResourceRequirements t = recommended_target(c, *cr, *policy);
            const auto& boost = policy->tuning_for(c.name, ResourceKind::Cpu).startup_boost;
            if (boost && boost->multiplier > 1) {
                if (auto req = t.requests.find(kCpu); req != t.requests.end() && req->second.sign() > 0) {
                    Quantity boosted = boost_cpu(req->second, boost->multiplier);
                    if (const Quantity* lim = find_positive(t.limits, kCpu); lim && boosted > *lim) boosted = *lim;
                    if (boosted > req->second) {
                        req->second = boosted;
                        cs.boosted = true;
                    }
                }
            }
            cs.after = t;
            cs.outcome = t == c.resources ? "unchanged" : "sized";
            targets.emplace(c.name, std::move(t));
        }
        out.containers.push_back(std::move(cs));
    };
    for (const auto& c : pod.containers) consider(c);
    for (const auto& c : pod.init_containers)
        if (c.is_native_sidecar()) consider(c);

    // Step 3: the envelope, raised to cover the accepted targets.
    Pod planned = pod;
    std::optional<ResourceRequirements> envelope;
    const bool has_envelope = in.pod_level_resources_field && pod.pod_resources.has_value();
    const QosClass qos = compute_pod_qos(pod, in.pod_level_resources_field);
    for (auto& cs : out.containers) {
        auto t = targets.find(cs.name);
        if (t == targets.end()) continue;
        Pod trial = planned;
        trial.find_container(cs.name)->resources = t->second;
        if (has_envelope && qos != QosClass::Guaranteed) {
            const auto raise = raise_envelope(pod.pod_resources, trial, qos);
            std::vector<std::string_view> capped;
            for (auto r : lifted_limits(*pod.pod_resources, raise->next))
                if (controlled(*policy, cs.name, r) == ControlledValues::RequestsOnly) capped.push_back(r);
            if (!capped.empty()) {
                out.warnings.push_back("attune: container " + cs.name +
                                       " not sized: its target needs a higher pod-level " + describe(capped) +
                                       " limit, which RequestsOnly does not lift on a " +
                                       std::string(qos_name(qos)) + " pod");
                cs.outcome = "envelope_constraint";
                cs.after = cs.before;
                cs.boosted = false;
                targets.erase(t);
                continue;
            }
        }
        planned = std::move(trial);
    }
    if (has_envelope) {
        const auto raise = raise_envelope(pod.pod_resources, planned, qos);
        if (raise->raised) {
            envelope = raise->next;
            out.envelope_raised = true;
        }
    }

    const bool any_sized = std::any_of(out.containers.begin(), out.containers.end(),
                                       [](const ContainerSizing& c) { return c.outcome == "sized"; });
    if (!any_sized && !std::any_of(out.containers.begin(), out.containers.end(),
                                   [](const ContainerSizing& c) { return c.outcome == "unchanged"; })) {
        out.skip_reason = "no_container_sized";
        return out;
    }
    out.boosted = std::any_of(out.containers.begin(), out.containers.end(),
                              [](const ContainerSizing& c) { return c.boosted; });

    // Step 4: write it all onto a copy of the object and answer the difference.
    json::value after = *in.pod;
    auto& spec = after.as_object()["spec"].as_object();
    for (const auto& [name, rr] : targets) detail::write_container_resources(spec, name, rr);
    if (envelope) detail::write_resources(spec, "resources", *envelope);
    auto& annotations = detail::ensure_object(detail::ensure_object(after.as_object(), "metadata"), "annotations");
    annotations[kInitialSizingLabel] = "applied";
    annotations[kInitialSizingPolicyAnnotation] = policy->namespace_ + "/" + policy->name;
    if (out.boosted && !annotations.contains(kStartupBoostAtAnnotation)) annotations[kStartupBoostAtAnnotation] = in.now;
    out.patch = json_patch_diff(*in.pod, after);
    return out;
}

}  // namespace attune::core
