#pragma once
// Which workqueue keys an informer change enqueues. Pure.
#include <attune/controller/workload_key.hpp>
#include <attune/kube/object_cache.hpp>

#include <optional>

#include <string>
#include <string_view>
#include <vector>

namespace attune::controller {

// A Deployment/StatefulSet/ReplicaSet/DaemonSet change: its own key.
std::vector<std::string> keys_for_workload_change(std::string_view kind, const kube::ObjectCache::Delta& d);

// An HPA change: the workload(s) it targets, before and after (the target may
// have moved). Targets of other kinds are ignored.
std::vector<std::string> keys_for_hpa_change(const kube::ObjectCache::Delta& d);

// The workload a pod belongs to: its controller, or the controller's
// controller for a Deployment's ReplicaSet and a CronJob's Job (read from
// those caches). nullopt for a bare pod or another controller's.
std::optional<ObjectKey> pod_workload_key(const boost::json::value& pod, const kube::ObjectCache* replicasets,
                                          const kube::ObjectCache* jobs);

// A pod change that moves its workload's baseline or pod names: added,
// deleted, its phase or its spec (resources) changed. The key of the
// workload that owns it (a Deployment through its ReplicaSet, a CronJob
// through its Job, read from those caches); nothing for bare pods.
std::vector<std::string> keys_for_pod_change(const kube::ObjectCache::Delta& d, const kube::ObjectCache* replicasets,
                                             const kube::ObjectCache* jobs);

// An AttunePolicy change: its key when it was added or deleted or its
// metadata.generation moved. Our own status writes do not move the
// generation, so they do not start a new pass (no write loop).
std::vector<std::string> keys_for_policy_change(const kube::ObjectCache::Delta& d);

}  // namespace attune::controller
