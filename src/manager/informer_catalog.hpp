#pragma once
// Every informer attune-manager may run, each with the transform, storage and
// decoded view that keep its cache lean (docs/manager.md, "What each informer
// caches"). Defining one costs nothing; features need() the ones they read.
#include <attune/kube/informer.hpp>
#include <attune/kube/watch_scope.hpp>
#include <attune/webhook/admission_handler.hpp>

#include <array>
#include <functional>
#include <string_view>

namespace attune::kube {
class InformerRegistry;
}

namespace attune::manager {

inline constexpr std::array<std::string_view, 9> kInformerNames = {
    "pods", "deployments", "statefulsets", "replicasets", "daemonsets", "horizontalpodautoscalers",
    "nodes", "namespaces", "attunepolicies"};

inline bool is_informer_name(std::string_view name) {
    for (auto n : kInformerNames)
        if (n == name) return true;
    return false;
}

// `on_listed` runs after each informer's initial state or relist completed.
// `watch_list`: try the streaming WatchList for initial state.
// `protobuf_lists`: the pod informer's LIST pages in protobuf.
// `scope` (--watch-namespaces): each informer's list/watch streams
// (kube::list_watch_targets); cluster-wide, one stream each as before.
void define_informers(kube::InformerRegistry& registry, bool watch_list, bool protobuf_lists,
                      std::function<void()> on_listed, const kube::WatchScope& scope);

// The VerticalPodAutoscaler informer, started only once its API is served.
kube::InformerOptions vpa_informer(const kube::WatchScope& scope);

// The caches the admission webhook reads (needed from the registry, which
// must hold define_informers' definitions), every one of them counted in
// `synced`: the webhook sizes nothing before all have listed.
webhook::AdmissionCaches webhook_caches(kube::InformerRegistry& registry);

}  // namespace attune::manager
