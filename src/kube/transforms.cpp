#include <attune/kube/transforms.hpp>

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
    strip_common(obj);
    if (auto* md = object_at(obj, "metadata")) {
        md->erase("generateName");
        // Pods carry many third-party annotations; Attune reads only its own.
        if (auto* ann = object_at(*md, "annotations")) {
            for (auto it = ann->begin(); it != ann->end();) {
                if (std::string_view(it->key()).find("attune.io/") == std::string_view::npos) it = ann->erase(it); else ++it;
            }
            if (ann->empty()) md->erase("annotations");
        }
        if (auto* refs = array_at(*md, "ownerReferences")) {
            for (auto& r : *refs)
                if (r.is_object()) keep_only(r.get_object(), {"apiVersion", "kind", "name", "uid", "controller"});
        }
    }
    if (auto* spec = object_at(obj, "spec")) strip_pod_spec(*spec);
    if (auto* st = object_at(obj, "status")) {
        keep_only(*st, {"phase", "qosClass", "resize", "observedGeneration", "conditions", "containerStatuses",
                        "initContainerStatuses", "resources", "allocatedResources"});
        if (auto* conds = array_at(*st, "conditions")) {
            // Only the resize conditions and readiness feed decisions.
            auto keep = [](const json::value& c) {
                if (!c.is_object()) return false;
                auto* t = c.get_object().if_contains("type");
                if (!t || !t->is_string()) return false;
                const std::string_view type = t->get_string();
                return type == "PodResizePending" || type == "PodResizeInProgress" || type == "Ready";
            };
            for (auto it = conds->begin(); it != conds->end();) {
                if (keep(*it)) {
                    keep_only(it->get_object(), {"type", "status", "reason", "message", "observedGeneration"});
                    ++it;
                } else {
                    it = conds->erase(it);
                }
            }
        }
        for (auto key : {"containerStatuses", "initContainerStatuses"}) {
            if (auto* cs = array_at(*st, key)) {
                for (auto& c : *cs)
                    if (c.is_object())
                        keep_only(c.get_object(), {"name", "resources", "allocatedResources", "ready", "restartCount"});
            }
        }
    }
}

void strip_workload(json::object& obj) {
    strip_common(obj);
    auto strip_template = [](json::object& spec) {
        if (auto* tmpl = object_at(spec, "template")) {
            if (auto* tspec = object_at(*tmpl, "spec")) strip_pod_spec(*tspec);
        }
    };
    if (auto* spec = object_at(obj, "spec")) {
        strip_template(*spec);
        // A CronJob's pods come from spec.jobTemplate.spec.template.
        if (auto* job = object_at(*spec, "jobTemplate")) {
            if (auto* jspec = object_at(*job, "spec")) strip_template(*jspec);
        }
    }
}

void strip_node(json::object& obj) {
    strip_common(obj);
    obj.erase("spec");
    if (auto* st = object_at(obj, "status")) {
        keep_only(*st, {"declaredFeatures", "capacity", "allocatable", "nodeInfo", "conditions"});
        if (auto* info = object_at(*st, "nodeInfo")) keep_only(*info, {"kubeletVersion", "containerRuntimeVersion"});
        if (auto* conds = array_at(*st, "conditions")) {
            for (auto& c : *conds)
                if (c.is_object()) keep_only(c.get_object(), {"type", "status", "reason"});
        }
    }
}

}  // namespace attune::kube
