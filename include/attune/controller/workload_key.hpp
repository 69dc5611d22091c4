#pragma once
// Workqueue keys: "namespace/Kind/name". The kind is part of the key because
// a Deployment and a StatefulSet may share a name; names and namespaces never
// contain '/', so the split is unambiguous. Pure.
#include <optional>
#include <string>
#include <string_view>

namespace attune::controller {

struct ObjectKey {
    std::string ns;
    std::string kind;  // Deployment | StatefulSet | ReplicaSet | DaemonSet | Job | CronJob | AttunePolicy
    std::string name;

    std::string str() const { return ns + "/" + kind + "/" + name; }
    // "ns/name", the informer cache key.
    std::string cache_key() const { return ns + "/" + name; }
    bool operator==(const ObjectKey&) const = default;
};

inline constexpr std::string_view kPolicyKind = "AttunePolicy";

// nullopt for anything that is not exactly three non-empty parts.
std::optional<ObjectKey> parse_object_key(std::string_view key);

// The workload kinds a policy can target.
bool is_workload_kind(std::string_view kind) noexcept;

}  // namespace attune::controller
