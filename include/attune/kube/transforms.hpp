#pragma once
// Informer transforms: drop what Attune never reads before an object enters
// the cache, so 10k pods stay small. Pure functions over a JSON object.
#include <boost/json/object.hpp>

#include <functional>

namespace attune::kube {

using transform_fn = std::function<void(boost::json::object&)>;

// Every object: metadata.managedFields and the last-applied annotation.
void strip_common(boost::json::object& obj);

// A PodSpec: keeps containers/initContainers reduced to name, resources,
// resizePolicy and restartPolicy, plus spec.resources and nodeName.
void strip_pod_spec(boost::json::object& spec);

// A Pod: common + pod spec + the status fields the resize and idle logic read
// (phase, qosClass, resize, observedGeneration, the PodResizePending /
// PodResizeInProgress / Ready conditions without timestamps, container
// statuses reduced to name/resources/allocatedResources/ready/restartCount,
// pod-level resources). Owner references are kept (apiVersion, kind, name,
// uid, controller); only attune.io/ annotations are kept.
void strip_pod(boost::json::object& obj);

// Workloads (Deployment, StatefulSet, ReplicaSet, DaemonSet, Job, CronJob):
// common + the pod template's spec (a CronJob's under spec.jobTemplate)
// stripped as a pod spec; status kept.
void strip_workload(boost::json::object& obj);

// Node: common + status.declaredFeatures, capacity/allocatable, nodeInfo
// versions; images and volumes dropped.
void strip_node(boost::json::object& obj);

// HPAs and everything else: common only. HPA status.conditions (ScaledToZero) survive.
inline void strip_generic(boost::json::object& obj) { strip_common(obj); }

}  // namespace attune::kube
