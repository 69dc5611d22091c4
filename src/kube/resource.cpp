#include <attune/kube/resource.hpp>

namespace attune::kube {

namespace resources {
ResourceType pods() { return {"", "v1", "pods", "Pod", true}; }
ResourceType nodes() { return {"", "v1", "nodes", "Node", false}; }
ResourceType namespaces() { return {"", "v1", "namespaces", "Namespace", false}; }
ResourceType deployments() { return {"apps", "v1", "deployments", "Deployment", true}; }
ResourceType statefulsets() { return {"apps", "v1", "statefulsets", "StatefulSet", true}; }
ResourceType replicasets() { return {"apps", "v1", "replicasets", "ReplicaSet", true}; }
ResourceType daemonsets() { return {"apps", "v1", "daemonsets", "DaemonSet", true}; }
ResourceType jobs() { return {"batch", "v1", "jobs", "Job", true}; }
ResourceType cronjobs() { return {"batch", "v1", "cronjobs", "CronJob", true}; }
ResourceType horizontal_pod_autoscalers() {
    return {"autoscaling", "v2", "horizontalpodautoscalers", "HorizontalPodAutoscaler", true};
}
ResourceType limit_ranges() { return {"", "v1", "limitranges", "LimitRange", true}; }
ResourceType resource_quotas() { return {"", "v1", "resourcequotas", "ResourceQuota", true}; }
ResourceType leases() { return {"coordination.k8s.io", "v1", "leases", "Lease", true}; }
ResourceType events() { return {"events.k8s.io", "v1", "events", "Event", true}; }
ResourceType attune_policies() { return {"attune.io", "v1alpha1", "attunepolicies", "AttunePolicy", true}; }
ResourceType attune_defaults() { return {"attune.io", "v1alpha1", "attunedefaults", "AttuneDefaults", false}; }
ResourceType attune_namespace_defaults() {
    return {"attune.io", "v1alpha1", "attunenamespacedefaults", "AttuneNamespaceDefaults", true};
}
ResourceType config_maps() { return {"", "v1", "configmaps", "ConfigMap", true}; }
ResourceType services() { return {"", "v1", "services", "Service", true}; }
ResourceType prometheuses() { return {"monitoring.coreos.com", "v1", "prometheuses", "Prometheus", true}; }
ResourceType secrets() { return {"", "v1", "secrets", "Secret", true}; }
ResourceType vertical_pod_autoscalers() {
    return {"autoscaling.k8s.io", "v1", "verticalpodautoscalers", "VerticalPodAutoscaler", true};
}
ResourceType mutating_webhook_configurations() {
    return {"admissionregistration.k8s.io", "v1", "mutatingwebhookconfigurations", "MutatingWebhookConfiguration", false};
}
ResourceType validating_webhook_configurations() {
    return {"admissionregistration.k8s.io", "v1", "validatingwebhookconfigurations", "ValidatingWebhookConfiguration",
            false};
}
}  // namespace resources

core::Result<ResourceType> workload_resource(std::string_view kind) {
    for (auto rt : {resources::deployments(), resources::statefulsets(), resources::daemonsets(),
                    resources::replicasets(), resources::jobs(), resources::cronjobs()})
        if (rt.kind == kind) return rt;
    return core::make_error("unknown_kind", "unknown workload kind \"" + std::string(kind) +
                                                "\" (Deployment, StatefulSet, DaemonSet, ReplicaSet, Job or CronJob)");
}

std::string collection_path(const ResourceType& rt, std::string_view ns) {
    std::string p = rt.group.empty() ? "/api/" + rt.version : "/apis/" + rt.group + "/" + rt.version;
    if (rt.namespaced && !ns.empty()) {
        p += "/namespaces/";
        p += percent_encode(ns);
    }
    p += "/";
    p += rt.plural;
    return p;
}

std::string object_path(const ResourceType& rt, std::string_view ns, std::string_view name,
                        std::string_view subresource) {
    std::string p = collection_path(rt, ns);
    p += "/";
    p += percent_encode(name);
    if (!subresource.empty()) {
        p += "/";
        p += subresource;
    }
    return p;
}

std::string percent_encode(std::string_view s) {
    static constexpr char kHex[] = "0123456789ABCDEF";
    std::string out;
    out.reserve(s.size());
    for (unsigned char c : s) {
        if ((c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-' || c == '.' ||
            c == '_' || c == '~') {
            out.push_back(static_cast<char>(c));
        } else {
            out.push_back('%');
            out.push_back(kHex[c >> 4]);
            out.push_back(kHex[c & 15]);
        }
    }
    return out;
}

Query& Query::add(std::string_view key, std::string_view value) {
    if (!value.empty()) params_.emplace_back(std::string(key), std::string(value));
    return *this;
}

Query& Query::add(std::string_view key, long long value) { return add(key, std::string_view(std::to_string(value))); }

std::string Query::encode() const {
    std::string out;
    for (const auto& [k, v] : params_) {
        out += out.empty() ? '?' : '&';
        out += percent_encode(k);
        out += '=';
        out += percent_encode(v);
    }
    return out;
}

}  // namespace attune::kube
