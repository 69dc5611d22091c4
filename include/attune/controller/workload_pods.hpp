#pragma once
// A workload's pods through the controller chain the informer caches hold
// (Deployment -> ReplicaSets -> pods, CronJob -> Jobs -> pods, the other
// kinds directly), and the way back from a pod to the workload key that
// manages it. Reads caches only: no I/O.
#include <attune/controller/reconcile.hpp>
#include <attune/controller/workload_key.hpp>
#include <attune/kube/object_cache.hpp>

#include <optional>
#include <string_view>
#include <vector>

namespace attune::controller {

// Pods controlled by the workload `kind` with uid `workload_uid`.
std::vector<kube::object_cache::object_ptr> workload_pods(const cache_views& caches, const kube::object_cache& pods,
                                                          std::string_view kind, std::string_view workload_uid);

// The key of the workload the pod belongs to: its controller, or the
// controller's controller for a Deployment's ReplicaSet and a CronJob's Job.
// nullopt for a bare pod or another controller.
std::optional<object_key> pod_workload(const cache_views& caches, const boost::json::value& pod);

}  // namespace attune::controller
