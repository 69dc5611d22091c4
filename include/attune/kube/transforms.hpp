#pragma once
// Informer transforms: drop what Attune never reads before an object enters
// the cache, so 10,000 pods stay small. Pure functions over a JSON object.
// What each keeps, and why, is tabled in docs/manager.md ("What each
// informer caches"); a field a feature starts to read is added here first.
#include <boost/json/object.hpp>

#include <functional>

namespace attune::kube {

using TransformFn = std::function<void(boost::json::object&)>;

// Every object: metadata.managedFields and the last-applied annotation.
void strip_common(boost::json::object& obj);

// A PodSpec: keeps containers/initContainers reduced to name, resources,
// resizePolicy and restartPolicy, plus spec.resources and nodeName.
void strip_pod_spec(boost::json::object& spec);

// A Pod. metadata: name, namespace, uid, resourceVersion, generation,
// creation/deletionTimestamp, labels, attune.io annotations, ownerReferences
// (apiVersion, kind, name, uid, controller). spec: strip_pod_spec. status:
// phase, qosClass, resize, observedGeneration, the PodResizePending /
// PodResizeInProgress / Ready conditions without timestamps, pod-level
// resources/allocatedResources, and container statuses reduced to name,
// resources, allocatedResources, ready, restartCount and state/lastState
// (running.startedAt, waiting.reason, terminated reason/exitCode/finishedAt:
// an OOMKilled after a resize is read there).
void strip_pod(boost::json::object& obj);

// Deployment, StatefulSet, DaemonSet, Job, CronJob: metadata as for pods;
// spec.replicas (parallelism, completions, suspend, schedule for jobs),
// selector and the template (a CronJob's under jobTemplate.spec) (its labels, attune.io annotations and a pod
// spec stripped by strip_pod_spec: names and resources, never env);
// status replica counts, observedGeneration and conditions (type, status,
// reason) so a rollout in progress can be told.
void strip_workload(boost::json::object& obj);

// ReplicaSet: ownership and labels only (metadata as for pods) plus
// spec.replicas, which a standalone ReplicaSet's idle state is read from.
void strip_replicaset(boost::json::object& obj);

// Node: name, uid, resourceVersion, labels; status capacity, allocatable,
// declaredFeatures, the Ready/MemoryPressure/DiskPressure/PIDPressure
// conditions (type, status, reason) and nodeInfo kernelVersion,
// containerRuntimeVersion and kubeletVersion; images, addresses, spec dropped.
void strip_node(boost::json::object& obj);

// HPA: common + status.currentMetrics. KEEPS status.conditions: ScaledToZero
// lives there.
void strip_hpa(boost::json::object& obj);

// Namespace: name, uid, resourceVersion, labels, annotations (common strip).
void strip_namespace(boost::json::object& obj);

// Everything else (AttunePolicies): common only.
inline void strip_generic(boost::json::object& obj) { strip_common(obj); }

}  // namespace attune::kube
