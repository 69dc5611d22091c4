#pragma once
// Informer caches filled by hand, and the views the controller reads them
// through: the controller tests' stand-in for the manager's informers.
#include <attune/controller/listed_pod.hpp>
#include <attune/controller/reconcile.hpp>
#include <attune/kube/object_cache.hpp>

#include <functional>
#include <string_view>

namespace attune::test {

struct FakeCaches {
    // As the manager's informer catalog sets them up.
    FakeCaches() {
        controller::index_hpas(hpas);
        policy::index_policies(policies);
        policy::index_defaults(cluster_defaults);
        policy::index_defaults(namespace_defaults);
        controller::keep_listed_pods(pods);
    }
    kube::ObjectCache deployments, statefulsets, replicasets, daemonsets, jobs, cronjobs, hpas{kube::strip_hpa},
        policies, pods, cluster_defaults, namespace_defaults, vpas;
    bool with_vpas = false;                         // the VPA API is served
    std::function<bool(std::string_view)> synced;  // null: every cache listed

    policy::CacheViews views() {
        policy::CacheViews v;
        v.deployments = &deployments;
        v.statefulsets = &statefulsets;
        v.replicasets = &replicasets;
        v.daemonsets = &daemonsets;
        v.jobs = &jobs;
        v.cronjobs = &cronjobs;
        v.hpas = &hpas;
        v.policies = &policies;
        v.pods = &pods;
        v.cluster_defaults = &cluster_defaults;
        v.namespace_defaults = &namespace_defaults;
        v.vpas = with_vpas ? &vpas : nullptr;
        v.synced = synced;
        return v;
    }
};

}  // namespace attune::test
