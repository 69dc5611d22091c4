#include <attune/controller/event_keys.hpp>

#include <attune/controller/workload_key.hpp>
#include <attune/core/util/json_path.hpp>

#include <boost/json/object.hpp>

namespace attune::controller {
namespace json = boost::json;

namespace {
// "ns/name" -> "ns/Kind/name"; "" when the cache key has no namespace.
std::string workload_key(std::string_view cache_key, std::string_view kind) {
    const auto slash = cache_key.find('/');
    if (slash == std::string_view::npos) return {};
    return std::string(cache_key.substr(0, slash)) + "/" + std::string(kind) + "/" +
           std::string(cache_key.substr(slash + 1));
}

void add_hpa_target(const kube::ObjectCache::ObjectPtr& hpa, std::vector<std::string>& out) {
    if (!hpa) return;
    const auto ns = kube::meta_string(*hpa, "namespace");
    const auto kind = core::string_at(*hpa, {"spec", "scaleTargetRef", "kind"});
    const auto name = core::string_at(*hpa, {"spec", "scaleTargetRef", "name"});
    if (!is_workload_kind(kind) || ns.empty() || name.empty()) return;
    auto key = std::string(ns) + "/" + std::string(kind) + "/" + std::string(name);
    for (const auto& k : out)
        if (k == key) return;
    out.push_back(std::move(key));
}

long long generation_of(const kube::ObjectCache::ObjectPtr& obj) {
    return obj ? core::int_at(*obj, {"metadata", "generation"}).value_or(0) : 0;
}
}  // namespace

std::vector<std::string> keys_for_workload_change(std::string_view kind, const kube::ObjectCache::Delta& d) {
    auto key = workload_key(d.key, kind);
    if (key.empty()) return {};
    return {std::move(key)};
}

std::vector<std::string> keys_for_hpa_change(const kube::ObjectCache::Delta& d) {
    std::vector<std::string> out;
    add_hpa_target(d.old_object, out);
    add_hpa_target(d.new_object, out);
    return out;
}

std::vector<std::string> keys_for_pod_change(const kube::ObjectCache::Delta& d, const kube::ObjectCache* replicasets,
                                             const kube::ObjectCache* jobs) {
    using Kind = kube::ObjectCache::Delta::Kind;
    const auto& pod = d.new_object ? d.new_object : d.old_object;
    if (!pod) return {};
    if (d.what == Kind::Updated && d.old_object && d.new_object &&
        core::string_at(*d.old_object, {"status", "phase"}) == core::string_at(*d.new_object, {"status", "phase"})) {
        const auto* a = core::json_at(*d.old_object, {"spec"});
        const auto* b = core::json_at(*d.new_object, {"spec"});
        if ((a == nullptr) == (b == nullptr) && (!a || *a == *b)) return {};
    }
    auto key = pod_workload_key(*pod, replicasets, jobs);
    if (!key) return {};
    return {key->str()};
}

std::optional<ObjectKey> pod_workload_key(const boost::json::value& pod, const kube::ObjectCache* replicasets,
                                          const kube::ObjectCache* jobs) {
    const auto ns = std::string(kube::meta_string(pod, "namespace"));
    const auto* refs = core::array_at(pod, {"metadata", "ownerReferences"});
    if (ns.empty() || !refs) return std::nullopt;
    for (const auto& r : *refs) {
        if (core::bool_at(r, {"controller"}) != true) continue;
        const std::string owner_kind(core::string_at(r, {"kind"}));
        const std::string owner_name(core::string_at(r, {"name"}));
        if (owner_name.empty() || !is_workload_kind(owner_kind)) return std::nullopt;
        // A ReplicaSet or Job owned by a Deployment or CronJob is its owner's.
        const kube::ObjectCache* middle = owner_kind == "ReplicaSet" ? replicasets
                                          : owner_kind == "Job"      ? jobs
                                                                     : nullptr;
        if (middle) {
            if (auto owner = middle->get(ns + "/" + owner_name)) {
                const auto* up = core::array_at(*owner, {"metadata", "ownerReferences"});
                if (up)
                    for (const auto& u : *up) {
                        const auto k = core::string_at(u, {"kind"});
                        if (core::bool_at(u, {"controller"}) == true && (k == "Deployment" || k == "CronJob"))
                            return ObjectKey{ns, std::string(k), std::string(core::string_at(u, {"name"}))};
                    }
            }
        }
        return ObjectKey{ns, owner_kind, owner_name};
    }
    return std::nullopt;
}

std::vector<std::string> keys_for_policy_change(const kube::ObjectCache::Delta& d) {
    using Kind = kube::ObjectCache::Delta::Kind;
    if (d.what == Kind::Updated && generation_of(d.old_object) == generation_of(d.new_object)) return {};
    auto key = workload_key(d.key, kPolicyKind);
    if (key.empty()) return {};
    return {std::move(key)};
}

}  // namespace attune::controller
