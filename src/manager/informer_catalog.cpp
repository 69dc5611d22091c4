#include "informer_catalog.hpp"

#include <attune/controller/executor/resize_snapshot.hpp>
#include <attune/controller/listed_pod.hpp>
#include <attune/controller/reconcile.hpp>
#include <attune/kube/informer_registry.hpp>
#include <attune/kube/pod_protobuf.hpp>
#include <attune/kube/transforms.hpp>
#include <attune/policy/cache_views.hpp>

#include <map>
#include <string_view>
#include <tuple>
#include <utility>
#include <vector>

namespace attune::manager {

void define_informers(kube::InformerRegistry& registry, bool watch_list, bool protobuf_lists,
                      std::function<void()> on_listed, const kube::WatchScope& scope) {
    // Every cache holds compact JSON text (parsed on read): a tree costs about
    // three times its text, and reads are one object per event.
    auto define = [&](const char* name, kube::ResourceType type, kube::TransformFn transform,
                      std::function<void(kube::ObjectCache&)> setup = nullptr,
                      kube::ProtobufListDecoder::ItemDecoder protobuf_items = nullptr) {
        kube::InformerOptions o;
        o.type = std::move(type);
        o.transform = std::move(transform);
        o.storage = kube::CacheStorage::CompactText;
        o.setup_cache = std::move(setup);
        o.on_listed = on_listed;
        o.fsm.watch_list = watch_list;
        o.protobuf_items = std::move(protobuf_items);
        if (!scope.cluster_wide()) o.targets = kube::list_watch_targets(o.type, scope);
        registry.define(name, std::move(o));
    };
    // Pods are nine tenths of what the manager lists: their pages come in
    // protobuf, decoded into what strip_pod keeps (watch events stay JSON).
    // Each keeps whether it may hold the baseline (controller/listed_pod.hpp),
    // so a recommendation pass decodes only its baseline pod.
    define("pods", kube::resources::pods(), kube::strip_pod, controller::keep_listed_pods,
           protobuf_lists ? kube::ProtobufListDecoder::ItemDecoder(kube::pod_from_protobuf) : nullptr);
    // A workload is read by the classification, the recommendation pass and
    // the executor in turn: the last few trees stay parsed.
    const auto remember_workloads = [](kube::ObjectCache& c) { c.remember_reads(4); };
    define("deployments", kube::resources::deployments(), kube::strip_workload, remember_workloads);
    define("statefulsets", kube::resources::statefulsets(), kube::strip_workload, remember_workloads);
    define("daemonsets", kube::resources::daemonsets(), kube::strip_workload, remember_workloads);
    define("replicasets", kube::resources::replicasets(), kube::strip_replicaset);
    // Jobs and CronJobs are targets too (recommendations only).
    define("jobs", kube::resources::jobs(), kube::strip_workload);
    define("cronjobs", kube::resources::cronjobs(), kube::strip_workload);
    // The core's HPA transform keeps status.conditions: ScaledToZero lives
    // there. Decoded once per change and indexed by scale target.
    define(
        "horizontalpodautoscalers", kube::resources::horizontal_pod_autoscalers(),
        kube::strip_hpa, controller::index_hpas);
    define("nodes", kube::resources::nodes(), kube::strip_node, controller::decode_nodes);
    define("namespaces", kube::resources::namespaces(), kube::strip_namespace);
    // Decoded once per change: every workload event selects among its
    // namespace's policies.
    // A policy (its status holds up to 100 recommendations: tens of KiB) is
    // read once per workload of its pass: the last few stay parsed.
    define("attunepolicies", kube::resources::attune_policies(), kube::strip_generic, [](kube::ObjectCache& c) {
        policy::index_policies(c);
        c.remember_reads(4);
    });
    // The two defaults tiers of the merge (built-in < AttuneDefaults <
    // AttuneNamespaceDefaults < policy). Decoded once per change: the
    // webhook merges them on every review that finds a policy.
    define("attunedefaults", kube::resources::attune_defaults(), kube::strip_generic, policy::index_defaults);
    define("attunenamespacedefaults", kube::resources::attune_namespace_defaults(), kube::strip_generic,
           policy::index_defaults);
    // The executor's admission gates read LimitRanges and ResourceQuotas.
    define("limitranges", kube::resources::limit_ranges(), kube::strip_generic);
    define("resourcequotas", kube::resources::resource_quotas(), kube::strip_generic);
}

kube::InformerOptions vpa_informer(const kube::WatchScope& scope) {
    kube::InformerOptions o;
    o.type = kube::resources::vertical_pod_autoscalers();
    o.transform = kube::strip_generic;
    o.storage = kube::CacheStorage::CompactText;
    if (!scope.cluster_wide()) o.targets = kube::list_watch_targets(o.type, scope);
    return o;
}

webhook::AdmissionCaches webhook_caches(kube::InformerRegistry& registry) {
    using Views = policy::CacheViews;
    // What the webhook reads, by the name CacheViews::has_synced asks for.
    const std::tuple<std::string_view, const char*, const kube::ObjectCache * Views::*> reads[] = {
        {"AttunePolicy", "attunepolicies", &Views::policies},
        {"AttuneDefaults", "attunedefaults", &Views::cluster_defaults},
        {"AttuneNamespaceDefaults", "attunenamespacedefaults", &Views::namespace_defaults},
        {"Deployment", "deployments", &Views::deployments},
        {"StatefulSet", "statefulsets", &Views::statefulsets},
        {"DaemonSet", "daemonsets", &Views::daemonsets},
        {"ReplicaSet", "replicasets", &Views::replicasets},
        {"Job", "jobs", &Views::jobs},
        {"CronJob", "cronjobs", &Views::cronjobs},
    };
    webhook::AdmissionCaches caches;
    std::map<std::string_view, const kube::Informer*> informers;
    const auto& ns = registry.need("namespaces");
    caches.namespaces = &ns.cache();
    informers.emplace("Namespace", &ns);
    for (const auto& [what, name, member] : reads) {
        const auto& i = registry.need(name);
        caches.views.*member = &i.cache();
        informers.emplace(what, &i);
    }
    // Only these caches: anything else the webhook asked of would be a cache
    // it does not hold, so it is never synced.
    caches.views.synced = [informers = std::move(informers)](std::string_view what) {
        auto it = informers.find(what);
        return it != informers.end() && it->second->has_synced();
    };
    return caches;
}

}  // namespace attune::manager
