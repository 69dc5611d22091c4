#include "informer_catalog.hpp"

#include <attune/controller/reconcile.hpp>
#include <attune/kube/informer_registry.hpp>
#include <attune/kube/pod_protobuf.hpp>
#include <attune/kube/transforms.hpp>

#include <utility>
#include <vector>

namespace attune::manager {

void define_informers(kube::informer_registry& registry, bool watch_list, bool protobuf_lists,
                      std::function<void()> on_listed, const kube::watch_scope& scope) {
    // Every cache holds compact JSON text (parsed on read): a tree costs about
    // three times its text, and reads are one object per event.
    auto define = [&](const char* name, kube::resource_type type, kube::transform_fn transform,
                      std::function<void(kube::object_cache&)> setup = nullptr,
                      kube::protobuf_list_decoder::item_decoder protobuf_items = nullptr) {
        kube::informer_options o;
        o.type = std::move(type);
        o.transform = std::move(transform);
        o.storage = kube::cache_storage::compact_text;
        o.setup_cache = std::move(setup);
        o.on_listed = on_listed;
        o.fsm.watch_list = watch_list;
        o.protobuf_items = std::move(protobuf_items);
        if (!scope.cluster_wide()) o.targets = kube::list_watch_targets(o.type, scope);
        registry.define(name, std::move(o));
    };
    // Pods are nine tenths of what the manager lists: their pages come in
    // protobuf, decoded into what strip_pod keeps (watch events stay JSON).
    define("pods", kube::resources::pods(), kube::strip_pod, nullptr,
           protobuf_lists ? kube::protobuf_list_decoder::item_decoder(kube::pod_from_protobuf) : nullptr);
    define("deployments", kube::resources::deployments(), kube::strip_workload);
    define("statefulsets", kube::resources::statefulsets(), kube::strip_workload);
    define("daemonsets", kube::resources::daemonsets(), kube::strip_workload);
    define("replicasets", kube::resources::replicasets(), kube::strip_replicaset);
    // Jobs and CronJobs are targets too (recommendations only).
    define("jobs", kube::resources::jobs(), kube::strip_workload);
    define("cronjobs", kube::resources::cronjobs(), kube::strip_workload);
    // The core's HPA transform keeps status.conditions: ScaledToZero lives
    // there. Decoded once per change and indexed by scale target.
    define(
        "horizontalpodautoscalers", kube::resources::horizontal_pod_autoscalers(),
        kube::strip_hpa, controller::index_hpas);
    define("nodes", kube::resources::nodes(), kube::strip_node);
    define("namespaces", kube::resources::namespaces(), kube::strip_namespace);
    // Decoded once per change: every workload event selects among its
    // namespace's policies.
    define("attunepolicies", kube::resources::attune_policies(), kube::strip_generic, controller::index_policies);
    // The two defaults tiers of the merge (built-in < AttuneDefaults <
    // AttuneNamespaceDefaults < policy). Decoded once per change: the
    // webhook merges them on every review that finds a policy.
    define("attunedefaults", kube::resources::attune_defaults(), kube::strip_generic, controller::index_defaults);
    define("attunenamespacedefaults", kube::resources::attune_namespace_defaults(), kube::strip_generic,
           controller::index_defaults);
    // The executor's admission gates read LimitRanges and ResourceQuotas.
    define("limitranges", kube::resources::limit_ranges(), kube::strip_generic);
    define("resourcequotas", kube::resources::resource_quotas(), kube::strip_generic);
}

kube::informer_options vpa_informer(const kube::watch_scope& scope) {
    kube::informer_options o;
    o.type = kube::resources::vertical_pod_autoscalers();
    o.transform = kube::strip_generic;
    o.storage = kube::cache_storage::compact_text;
    if (!scope.cluster_wide()) o.targets = kube::list_watch_targets(o.type, scope);
    return o;
}

webhook::admission_caches webhook_caches(kube::informer_registry& registry) {
    using caches_t = webhook::admission_caches;
    const std::pair<const char*, const kube::object_cache* caches_t::*> reads[] = {
        {"namespaces", &caches_t::namespaces},
        {"attunepolicies", &caches_t::policies},
        {"attunedefaults", &caches_t::cluster_defaults},
        {"attunenamespacedefaults", &caches_t::namespace_defaults},
        {"deployments", &caches_t::deployments},
        {"statefulsets", &caches_t::statefulsets},
        {"daemonsets", &caches_t::daemonsets},
        {"replicasets", &caches_t::replicasets},
        {"jobs", &caches_t::jobs},
        {"cronjobs", &caches_t::cronjobs},
    };
    caches_t caches;
    std::vector<const kube::informer*> informers;
    for (const auto& [name, member] : reads) {
        const auto& i = registry.need(name);
        caches.*member = &i.cache();
        informers.push_back(&i);
    }
    caches.synced = [informers = std::move(informers)] {
        for (const auto* i : informers)
            if (!i->has_synced()) return false;
        return true;
    };
    return caches;
}

}  // namespace attune::manager
