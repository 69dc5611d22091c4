#include <attune/policy/policy_selection.hpp>

#include <attune/core/util/json_path.hpp>

#include <boost/json/object.hpp>

#include <algorithm>

namespace attune::policy {
namespace json = boost::json;

core::Result<PolicyView> decode_policy(const json::value& policy) {
    PolicyView out;
    out.ns = std::string(core::string_at(policy, {"metadata", "namespace"}));
    out.name = std::string(core::string_at(policy, {"metadata", "name"}));
    if (out.ns.empty() || out.name.empty())
        return core::make_error("invalid_policy", "AttunePolicy without metadata.name or metadata.namespace");
    out.uid = std::string(core::string_at(policy, {"metadata", "uid"}));
    out.generation = core::int_at(policy, {"metadata", "generation"}).value_or(0);
    auto decoded = core::decode_attune_policy(policy);
    if (!decoded) {
        out.error = decoded.error().message;
        return out;
    }
    out.target = decoded.value().spec.target_ref;
    out.weight = decoded.value().spec.weight.value_or(100);
    out.spec = std::make_shared<const core::AttunePolicy>(std::move(decoded).value());
    return out;
}

std::optional<core::OwnerReference> controller_ref(const json::value& obj) {
    const auto* refs = core::array_at(obj, {"metadata", "ownerReferences"});
    if (!refs) return std::nullopt;
    for (const auto& r : *refs) {
        if (core::bool_at(r, {"controller"}) != true) continue;
        core::OwnerReference ref;
        ref.api_version = std::string(core::string_at(r, {"apiVersion"}));
        ref.kind = std::string(core::string_at(r, {"kind"}));
        ref.name = std::string(core::string_at(r, {"name"}));
        ref.uid = std::string(core::string_at(r, {"uid"}));
        ref.controller = true;
        return ref;
    }
    return std::nullopt;
}

std::string controller_kind(const json::value& obj) {
    auto ref = controller_ref(obj);
    return ref ? std::move(ref->kind) : std::string();
}

WorkloadRef workload_ref_from(std::string kind, const json::value& workload) {
    WorkloadRef w;
    w.ns = std::string(core::string_at(workload, {"metadata", "namespace"}));
    w.kind = std::move(kind);
    w.name = std::string(core::string_at(workload, {"metadata", "name"}));
    w.labels = core::labels_of(workload);
    const auto owner = controller_kind(workload);
    w.owned_by_workload = (w.kind == "ReplicaSet" && owner == "Deployment") || (w.kind == "Job" && owner == "CronJob");
    if (const auto* ann = core::object_at(workload, {"metadata", "annotations"}))
        w.opted_out = core::string_at(*ann, {core::kSkipAnnotation}) == "true";
    return w;
}

bool policy_matches(const PolicyView& policy, const WorkloadRef& workload) {
    if (!policy.error.empty()) return false;
    if (workload.ns != policy.ns || workload.name.empty() || workload.owned_by_workload) return false;
    if (workload.kind != core::to_string(policy.target.kind)) return false;
    if (policy.target.name) return workload.name == *policy.target.name;
    return policy.target.selector && policy.target.selector->matches(workload.labels);
}

std::vector<std::string> select_targets(const PolicyView& policy, std::span<const WorkloadRef> workloads) {
    std::vector<std::string> out;
    for (const auto& w : workloads)
        if (policy_matches(policy, w)) out.push_back(w.key());
    std::sort(out.begin(), out.end());
    out.erase(std::unique(out.begin(), out.end()), out.end());
    return out;
}

bool outranks(const PolicyView& a, const PolicyView& b) noexcept {
    if (a.weight != b.weight) return a.weight > b.weight;
    return a.name < b.name;
}

WorkloadSelection select_policy(std::span<const PolicyView> policies, const WorkloadRef& workload) {
    WorkloadSelection out;
    const PolicyView* best = nullptr;
    std::vector<std::string> matched;
    for (const auto& p : policies) {
        if (!policy_matches(p, workload)) continue;
        matched.push_back(p.name);
        if (!best || outranks(p, *best)) best = &p;
    }
    std::sort(matched.begin(), matched.end());
    if (workload.opted_out) {
        out.opted_out_of = std::move(matched);
        return out;
    }
    if (!best) return out;
    out.winner = best->name;
    for (auto& m : matched)
        if (m != out.winner) out.losers.push_back(std::move(m));
    return out;
}

}  // namespace attune::policy
