#pragma once
// Which namespaces the manager lists, watches and writes in
// (--watch-namespaces, docs/manager.md). Pure: the flag's value, the
// list/watch streams one resource needs in a scope, and the namespace a
// request path names (the client refuses paths outside the scope).
#include <attune/core/util/result.hpp>
#include <attune/kube/resource.hpp>

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace attune::kube {

// "a,b" -> {"a", "b"}, in the given order. An empty value is an empty list
// (cluster-wide). Errors (code "bad_namespace_list"): an empty element
// ("a,,b", a trailing comma), an invalid name, a name given twice.
core::Result<std::vector<std::string>> parse_namespace_list(std::string_view value);

class WatchScope {
public:
    WatchScope() = default;  // cluster-wide
    explicit WatchScope(std::vector<std::string> namespaces) : namespaces_(std::move(namespaces)) {}

    bool cluster_wide() const noexcept { return namespaces_.empty(); }
    const std::vector<std::string>& namespaces() const noexcept { return namespaces_; }
    // Cluster-wide: every namespace.
    bool contains(std::string_view ns) const noexcept;

private:
    std::vector<std::string> namespaces_;
};

// One list+watch stream of a resource: the namespace of its collection path
// ("" : the cluster-wide collection) and its field selector.
struct ListWatchTarget {
    // Not an aggregate on purpose (GCC 12 coroutine bug, see client.hpp).
    ListWatchTarget() = default;
    ListWatchTarget(std::string n, std::string f) : ns(std::move(n)), field_selector(std::move(f)) {}
    std::string ns;
    std::string field_selector;
    bool operator==(const ListWatchTarget&) const = default;
};

// The streams that cover `rt` within `scope`, each carrying `field_selector`:
//  - cluster-wide: one, on the cluster-wide collection;
//  - a namespaced resource: one per watched namespace, under
//    /namespaces/<ns>/ (what a Role in that namespace grants);
//  - Namespaces themselves: one per watched namespace on the cluster
//    collection with fieldSelector metadata.name=<ns> (RBAC can restrict
//    that to those names with resourceNames, but only in a ClusterRole);
//  - any other cluster-scoped resource (nodes, AttuneDefaults): one,
//    cluster-wide, in every scope.
std::vector<ListWatchTarget> list_watch_targets(const ResourceType& rt, const WatchScope& scope,
                                                std::string_view field_selector = {});

// The watched namespace a stream covers, for logs and metrics: its
// collection's namespace, or the name a Namespace stream selects; "" for a
// cluster-wide stream.
std::string watched_namespace_of(const ListWatchTarget& t);

// The namespace a request path names: "/api/v1/namespaces/a/pods/p" and
// "/apis/apps/v1/namespaces/a/deployments" -> "a", and the Namespace object
// itself, "/api/v1/namespaces/a" -> "a". Nothing for paths that name none
// (cluster-scoped objects, cluster-wide collections, discovery). The query
// is ignored.
std::optional<std::string> namespace_of_path(std::string_view path);

}  // namespace attune::kube
