#include <attune/controller/policy_selection.hpp>

#include <boost/json/object.hpp>

#include <algorithm>

namespace attune::controller {
namespace json = boost::json;

namespace {
const json::object* metadata_of(const json::value& obj) {
    const auto* o = obj.if_object();
    if (!o) return nullptr;
    const auto* md = o->if_contains("metadata");
    return md ? md->if_object() : nullptr;
}

std::string string_field(const json::object* o, std::string_view key) {
    if (!o) return {};
    const auto* v = o->if_contains(key);
    return v && v->is_string() ? std::string(v->get_string()) : std::string();
}
}  // namespace

core::result<policy_view> decode_policy(const json::value& policy) {
    const auto* md = metadata_of(policy);
    policy_view out;
    out.ns = string_field(md, "namespace");
    out.name = string_field(md, "name");
    if (out.ns.empty() || out.name.empty())
        return core::make_error("invalid_policy", "AttunePolicy without metadata.name or metadata.namespace");
    out.uid = string_field(md, "uid");
    if (const auto* g = md->if_contains("generation"); g && g->is_int64()) out.generation = g->get_int64();
    const json::value* selector = nullptr;
    if (const auto* spec = policy.get_object().if_contains("spec"); spec && spec->is_object())
        selector = spec->get_object().if_contains("selector");
    auto sel = core::parse_label_selector(selector);
    if (sel) out.selector = std::move(sel).value();
    else out.selector_error = sel.error().message;
    return out;
}

bool controlled_by_deployment(const json::value& obj) {
    const auto* md = metadata_of(obj);
    if (!md) return false;
    const auto* refs = md->if_contains("ownerReferences");
    if (!refs || !refs->is_array()) return false;
    for (const auto& r : refs->get_array()) {
        const auto* o = r.if_object();
        if (!o) continue;
        const auto* controller = o->if_contains("controller");
        if (controller && controller->is_bool() && controller->get_bool() && string_field(o, "kind") == "Deployment")
            return true;
    }
    return false;
}

workload_ref workload_ref_from(std::string kind, const json::value& workload) {
    const auto* md = metadata_of(workload);
    workload_ref w;
    w.ns = string_field(md, "namespace");
    w.kind = std::move(kind);
    w.name = string_field(md, "name");
    w.labels = core::labels_of(workload);
    w.controlled_by_deployment = w.kind == "ReplicaSet" && controlled_by_deployment(workload);
    return w;
}

bool policy_selects(const policy_view& policy, const workload_ref& workload) {
    if (!policy.selector_error.empty()) return false;
    if (workload.ns != policy.ns || workload.name.empty()) return false;
    if (workload.controlled_by_deployment) return false;
    return policy.selector.matches(workload.labels);
}

std::vector<std::string> select_targets(const policy_view& policy, std::span<const workload_ref> workloads) {
    std::vector<std::string> out;
    for (const auto& w : workloads)
        if (policy_selects(policy, w)) out.push_back(w.key());
    std::sort(out.begin(), out.end());
    out.erase(std::unique(out.begin(), out.end()), out.end());
    return out;
}

std::vector<std::string> policies_selecting(std::span<const policy_view> policies, const workload_ref& workload) {
    std::vector<std::string> out;
    for (const auto& p : policies)
        if (policy_selects(p, workload)) out.push_back(p.name);
    std::sort(out.begin(), out.end());
    return out;
}

}  // namespace attune::controller
