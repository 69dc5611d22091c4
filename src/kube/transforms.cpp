#include <attune/kube/transforms.hpp>

#include <attune/core/policy/annotations.hpp>

#include <boost/json.hpp>

#include <algorithm>
#include <initializer_list>
#include <string_view>

namespace attune::kube {
namespace json = boost::json;

namespace {

// Erases every key not in `keep`.
void keep_only(json::object& o, std::initializer_list<std::string_view> keep) {
    for (auto it = o.begin(); it != o.end();) {
        if (std::find(keep.begin(), keep.end(), std::string_view(it->key())) == keep.end()) {
            it = o.erase(it);
        } else {
            ++it;
        }
    }
}

json::object* object_at(json::object& o, std::string_view k) {
    auto* v = o.if_contains(k);
    return v && v->is_object() ? &v->get_object() : nullptr;
}

json::array* array_at(json::object& o, std::string_view k) {
    auto* v = o.if_contains(k);
    return v && v->is_array() ? &v->get_array() : nullptr;
}

void strip_containers(json::object& spec, std::string_view key) {
    auto* arr = array_at(spec, key);
    if (!arr) return;
    for (auto& c : *arr) {
        if (c.is_object()) keep_only(c.get_object(), {"name", "resources", "resizePolicy", "restartPolicy"});
    }
}

// Third-party annotations are many and large; Attune reads only its own
// (attune.io/ and the simulator's sim.attune.io/ keys).
void keep_attune_annotations(json::object& md) {
    if (auto* ann = object_at(md, "annotations")) {
        for (auto it = ann->begin(); it != ann->end();) {
            if (std::string_view(it->key()).find(core::kKeyPrefix) == std::string_view::npos) it = ann->erase(it);
            else ++it;
        }
        if (ann->empty()) md.erase("annotations");
    }
}

// Object metadata of cached workloads and pods: identity, labels, ownership.
void strip_owned_metadata(json::object& obj) {
    auto* md = object_at(obj, "metadata");
    if (!md) return;
    keep_only(*md, {"name", "namespace", "uid", "resourceVersion", "generation", "creationTimestamp",
                    "deletionTimestamp", "labels", "annotations", "ownerReferences"});
    keep_attune_annotations(*md);
    if (auto* refs = array_at(*md, "ownerReferences")) {
        for (auto& r : *refs)
            if (r.is_object()) keep_only(r.get_object(), {"apiVersion", "kind", "name", "uid", "controller"});
    }
}

// Conditions reduced to what decisions read, optionally only some types.
void strip_conditions(json::object& status, std::initializer_list<std::string_view> types,
                      std::initializer_list<std::string_view> fields) {
    auto* conds = array_at(status, "conditions");
    if (!conds) return;
    for (auto it = conds->begin(); it != conds->end();) {
        const json::string* type = nullptr;
        if (it->is_object())
            if (auto* t = it->get_object().if_contains("type"); t && t->is_string()) type = &t->get_string();
        const bool wanted = type && (types.size() == 0 || std::find(types.begin(), types.end(), std::string_view(*type)) != types.end());
        if (!wanted) {
            it = conds->erase(it);
            continue;
        }
        keep_only(it->get_object(), fields);
        ++it;
    }
}

void strip_container_state(json::object& cs, std::string_view key) {
    auto* st = object_at(cs, key);
    if (!st) return;
    keep_only(*st, {"running", "waiting", "terminated"});
    if (auto* r = object_at(*st, "running")) keep_only(*r, {"startedAt"});
    if (auto* w = object_at(*st, "waiting")) keep_only(*w, {"reason"});
    if (auto* t = object_at(*st, "terminated")) keep_only(*t, {"reason", "exitCode", "finishedAt"});
    if (st->empty()) cs.erase(key);
}

}  // namespace

void strip_common(json::object& obj) {
    if (auto* md = object_at(obj, "metadata")) {
        md->erase("managedFields");
        if (auto* ann = object_at(*md, "annotations")) {
            ann->erase("kubectl.kubernetes.io/last-applied-configuration");
            if (ann->empty()) md->erase("annotations");
        }
    }
}

void strip_pod_spec(json::object& spec) {
    keep_only(spec, {"containers", "initContainers", "resources", "nodeName"});
    strip_containers(spec, "containers");
    strip_containers(spec, "initContainers");
}

void strip_pod(json::object& obj) {
    keep_only(obj, {"apiVersion", "kind", "metadata", "spec", "status"});
    strip_owned_metadata(obj);
    if (auto* spec = object_at(obj, "spec")) strip_pod_spec(*spec);
    if (auto* st = object_at(obj, "status")) {
        keep_only(*st, {"phase", "qosClass", "resize", "observedGeneration", "conditions", "containerStatuses",
                        "initContainerStatuses", "resources", "allocatedResources"});
        // Only the resize conditions and readiness feed decisions.
        strip_conditions(*st, {"PodResizePending", "PodResizeInProgress", "Ready"},
                         {"type", "status", "reason", "message", "observedGeneration"});
        for (auto key : {"containerStatuses", "initContainerStatuses"}) {
            if (auto* cs = array_at(*st, key)) {
                for (auto& c : *cs) {
                    if (!c.is_object()) continue;
                    auto& co = c.get_object();
                    keep_only(co, {"name", "resources", "allocatedResources", "ready", "restartCount", "state", "lastState"});
                    strip_container_state(co, "state");
                    strip_container_state(co, "lastState");
                }
            }
        }
    }
}

void strip_workload(json::object& obj) {
    keep_only(obj, {"apiVersion", "kind", "metadata", "spec", "status"});
    strip_owned_metadata(obj);
    auto strip_template = [](json::object& spec) {
        if (auto* tmpl = object_at(spec, "template")) {
            keep_only(*tmpl, {"metadata", "spec"});
            if (auto* tmd = object_at(*tmpl, "metadata")) {
                keep_only(*tmd, {"labels", "annotations"});
                keep_attune_annotations(*tmd);
            }
            if (auto* tspec = object_at(*tmpl, "spec")) strip_pod_spec(*tspec);
        }
    };
    if (auto* spec = object_at(obj, "spec")) {
        // Jobs and CronJobs (a CronJob's pods come from jobTemplate.spec.template)
        // share this transform.
        keep_only(*spec, {"replicas", "selector", "template", "jobTemplate", "parallelism", "completions", "suspend",
                          "schedule"});
        strip_template(*spec);
        if (auto* job = object_at(*spec, "jobTemplate")) {
            keep_only(*job, {"spec"});
            if (auto* jspec = object_at(*job, "spec")) {
                keep_only(*jspec, {"template", "parallelism", "completions"});
                strip_template(*jspec);
            }
        }
    }
    if (auto* st = object_at(obj, "status")) {
        keep_only(*st, {"replicas", "readyReplicas", "updatedReplicas", "availableReplicas", "currentReplicas",
                        "observedGeneration", "conditions", "currentNumberScheduled", "desiredNumberScheduled",
                        "numberReady", "updatedNumberScheduled", "numberAvailable"});
        strip_conditions(*st, {}, {"type", "status", "reason"});
    }
}

void strip_replicaset(json::object& obj) {
    keep_only(obj, {"apiVersion", "kind", "metadata", "spec"});
    strip_owned_metadata(obj);
    if (auto* spec = object_at(obj, "spec")) keep_only(*spec, {"replicas"});
}

void strip_hpa(json::object& obj) {
    strip_common(obj);
    if (auto* st = object_at(obj, "status")) st->erase("currentMetrics");
}

void strip_node(json::object& obj) {
    keep_only(obj, {"apiVersion", "kind", "metadata", "status"});
    if (auto* md = object_at(obj, "metadata")) keep_only(*md, {"name", "uid", "resourceVersion", "labels"});
    if (auto* st = object_at(obj, "status")) {
        keep_only(*st, {"declaredFeatures", "capacity", "allocatable", "nodeInfo", "conditions"});
        if (auto* info = object_at(*st, "nodeInfo"))
            keep_only(*info, {"kernelVersion", "containerRuntimeVersion", "kubeletVersion"});
        strip_conditions(*st, {"Ready", "MemoryPressure", "DiskPressure", "PIDPressure"}, {"type", "status", "reason"});
    }
}

void strip_namespace(json::object& obj) {
    strip_common(obj);
    keep_only(obj, {"apiVersion", "kind", "metadata"});
    if (auto* md = object_at(obj, "metadata")) keep_only(*md, {"name", "uid", "resourceVersion", "labels", "annotations"});
}

}  // namespace attune::kube
