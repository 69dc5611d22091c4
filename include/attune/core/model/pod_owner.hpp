#pragma once
// Which workload a new pod belongs to, from its controller reference and
// the informer caches: a ReplicaSet maps to its Deployment, a Job to its
// CronJob. Pure: the caches are read through the lookup passed in, so the
// admission hot path makes no API call.
#include <functional>
#include <optional>
#include <string>
#include <string_view>

#include "attune/core/model/pod_model.hpp"

namespace attune::core {

struct PodWorkload {
    std::string kind;  // Deployment, StatefulSet, DaemonSet, ReplicaSet, Job, CronJob, ...
    std::string name;
    friend bool operator==(const PodWorkload&, const PodWorkload&) = default;
};

struct OwnerLookup {
    // The controller reference of the cached object `kind`/`name` in the
    // pod's namespace: nullopt when the cache does not hold the object, an
    // empty optional inside when it holds it without a controller.
    std::function<std::optional<std::optional<OwnerReference>>(std::string_view kind, std::string_view name)> controller_of;
    // Whether the cache holds `kind`/`name` in the pod's namespace.
    std::function<bool(std::string_view kind, std::string_view name)> exists;
};

// nullopt for a pod without a controller (a bare pod: nothing to size from).
//  - ReplicaSet: its Deployment when the cached ReplicaSet is controlled by
//    one. A ReplicaSet a Deployment created a moment ago may not have
//    reached the cache when its first pods are admitted; its name is then
//    "<deployment>-<pod-template-hash>" with the hash the pod carries as a
//    label, so a cached Deployment of that name is taken.
//  - Job: its CronJob likewise; a CronJob's Job is "<cronjob>-<minutes>".
//  - anything else (StatefulSet, DaemonSet, ...): the controller itself.
std::optional<PodWorkload> resolve_pod_workload(const Pod& pod, const OwnerLookup& lookup);

}  // namespace attune::core
