#pragma once
// Resource types and the apiserver URL paths built from them. Pure.
#include <attune/core/util/result.hpp>

#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace attune::kube {

struct ResourceType {
    // Not an aggregate on purpose (GCC 12 coroutine bug, see client.hpp).
    ResourceType() = default;
    ResourceType(std::string g, std::string v, std::string p, std::string k, bool ns)
        : group(std::move(g)), version(std::move(v)), plural(std::move(p)), kind(std::move(k)), namespaced(ns) {}

    std::string group;    // "" for the core group
    std::string version;  // "v1"
    std::string plural;   // "pods"
    std::string kind;     // "Pod"
    bool namespaced = true;

    std::string api_version() const { return group.empty() ? version : group + "/" + version; }
    // "pods" or "deployments.apps": a stable, low-cardinality metric label.
    std::string label() const { return group.empty() ? plural : plural + "." + group; }
};

namespace resources {
ResourceType pods();
ResourceType nodes();
ResourceType namespaces();
ResourceType deployments();
ResourceType statefulsets();
ResourceType replicasets();
ResourceType daemonsets();
ResourceType jobs();      // batch/v1
ResourceType cronjobs();  // batch/v1
ResourceType limit_ranges();
ResourceType resource_quotas();
ResourceType horizontal_pod_autoscalers();         // autoscaling/v2
ResourceType leases();                             // coordination.k8s.io/v1
ResourceType events();                             // events.k8s.io/v1
ResourceType attune_policies();                    // attune.io/v1alpha1
ResourceType attune_defaults();                    // attune.io/v1alpha1, cluster-scoped
ResourceType attune_namespace_defaults();          // attune.io/v1alpha1
ResourceType config_maps();                        // v1; updateStrategy.export.configMap
ResourceType services();                           // v1; Prometheus auto-discovery
ResourceType prometheuses();                       // monitoring.coreos.com/v1 (the Prometheus Operator's)
ResourceType secrets();                            // v1; read only with --allow-secret-reads
ResourceType vertical_pod_autoscalers();           // autoscaling.k8s.io/v1 (served only when the VPA CRD is installed)
ResourceType mutating_webhook_configurations();    // admissionregistration.k8s.io/v1
ResourceType validating_webhook_configurations();  // admissionregistration.k8s.io/v1
}  // namespace resources

// The resource of a workload kind an AttunePolicy can target
// (spec.targetRef.kind, docs/api.md): Deployment, StatefulSet, DaemonSet,
// ReplicaSet, Job or CronJob, spelled as the Kind. Any other kind is the
// error "unknown_kind", never a guess: reading another kind's object of the
// same name would answer for the wrong workload.
core::Result<ResourceType> workload_resource(std::string_view kind);

// /api/v1[/namespaces/{ns}]/{plural} or /apis/{g}/{v}[/namespaces/{ns}]/{plural}.
// An empty namespace on a namespaced type means "all namespaces".
std::string collection_path(const ResourceType& rt, std::string_view ns);
// .../{plural}/{name}[/{subresource}]
std::string object_path(const ResourceType& rt, std::string_view ns, std::string_view name,
                        std::string_view subresource = {});

// Percent-encodes a query component (RFC 3986 unreserved characters kept).
std::string percent_encode(std::string_view s);

// Ordered query parameters; empty values are skipped.
class Query {
public:
    Query& add(std::string_view key, std::string_view value);
    Query& add(std::string_view key, long long value);
    std::string encode() const;  // "" or "?a=b&c=d"

private:
    std::vector<std::pair<std::string, std::string>> params_;
};

}  // namespace attune::kube
