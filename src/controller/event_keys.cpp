#include <attune/controller/event_keys.hpp>

#include <attune/controller/workload_key.hpp>
#include <attune/core/json_path.hpp>

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

void add_hpa_target(const kube::object_cache::object_ptr& hpa, std::vector<std::string>& out) {
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

long long generation_of(const kube::object_cache::object_ptr& obj) {
    return obj ? core::int_at(*obj, {"metadata", "generation"}).value_or(0) : 0;
}
}  // namespace

std::vector<std::string> keys_for_workload_change(std::string_view kind, const kube::object_cache::delta& d) {
    auto key = workload_key(d.key, kind);
    if (key.empty()) return {};
    return {std::move(key)};
}

std::vector<std::string> keys_for_hpa_change(const kube::object_cache::delta& d) {
    std::vector<std::string> out;
    add_hpa_target(d.old_object, out);
    add_hpa_target(d.new_object, out);
    return out;
}

std::vector<std::string> keys_for_policy_change(const kube::object_cache::delta& d) {
    using kind = kube::object_cache::delta::kind;
    if (d.what == kind::updated && generation_of(d.old_object) == generation_of(d.new_object)) return {};
    auto key = workload_key(d.key, kPolicyKind);
    if (key.empty()) return {};
    return {std::move(key)};
}

}  // namespace attune::controller
