#pragma once
// Which workqueue keys an informer change enqueues. Pure.
#include <attune/kube/object_cache.hpp>

#include <string>
#include <string_view>
#include <vector>

namespace attune::controller {

// A Deployment/StatefulSet/ReplicaSet/DaemonSet change: its own key.
std::vector<std::string> keys_for_workload_change(std::string_view kind, const kube::object_cache::delta& d);

// An HPA change: the workload(s) it targets, before and after (the target may
// have moved). Targets of other kinds are ignored.
std::vector<std::string> keys_for_hpa_change(const kube::object_cache::delta& d);

// A pod change that moves its workload's baseline or pod names: added,
// deleted, its phase or its spec (resources) changed. The key of the
// workload that owns it (a Deployment through its ReplicaSet, a CronJob
// through its Job, read from those caches); nothing for bare pods.
std::vector<std::string> keys_for_pod_change(const kube::object_cache::delta& d, const kube::object_cache* replicasets,
                                             const kube::object_cache* jobs);

// An AttunePolicy change: its key when it was added or deleted or its
// metadata.generation moved. Our own status writes do not move the
// generation, so they do not start a new pass (no write loop).
std::vector<std::string> keys_for_policy_change(const kube::object_cache::delta& d);

}  // namespace attune::controller
