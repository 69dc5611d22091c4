#include "attune/core/model/pod_model.hpp"

#include <boost/json.hpp>
#include <charconv>

#include "../util/json_decode.hpp"

namespace attune::core {
namespace {

using namespace detail;

ResourceList resource_list(const boost::json::value& v, const std::string& path) {
    ResourceList out;
    for (const auto& [k, qv] : as_object(v, path)) {
        const std::string at = path + "." + std::string(k);
        std::string text;
        // Quantities are strings on the wire; upstream's UnmarshalJSON also
        // takes a bare number, so accept integral and decimal numbers.
        if (qv.is_string()) {
            text = std::string(qv.get_string());
        } else if (qv.is_int64()) {
            text = std::to_string(qv.get_int64());
        } else if (qv.is_uint64()) {
            text = std::to_string(qv.get_uint64());
        } else if (qv.is_double()) {
            char buf[64];
            auto [end, ec] = std::to_chars(buf, buf + sizeof buf, qv.get_double());
            if (ec != std::errc{}) fail(at, "unrepresentable number");
            text.assign(buf, end);
        } else {
            fail(at, "expected a quantity string");
        }
        auto q = Quantity::parse(text);
        if (!q.ok()) fail(at, q.error().message);
        out.emplace(std::string(k), std::move(q).value());
    }
    return out;
}

ResourceRequirements requirements(const boost::json::value& v, const std::string& path) {
    const auto& o = as_object(v, path);
    ResourceRequirements rr;
    if (const auto* r = field(o, "requests")) rr.requests = resource_list(*r, path + ".requests");
    if (const auto* l = field(o, "limits")) rr.limits = resource_list(*l, path + ".limits");
    return rr;
}

std::vector<Container> containers(const boost::json::object& spec, std::string_view key, const std::string& path) {
    std::vector<Container> out;
    const auto* arr = opt_array(spec, key, path);
    if (!arr) return out;
    for (std::size_t i = 0; i < arr->size(); ++i) {
        const std::string at = path + "." + std::string(key) + "[" + std::to_string(i) + "]";
        const auto& o = as_object((*arr)[i], at);
        Container c;
        c.name = opt_string(o, "name", at);
        if (c.name.empty()) fail(at + ".name", "missing container name");
        if (const auto* r = field(o, "resources")) c.resources = requirements(*r, at + ".resources");
        if (const auto* rp = opt_array(o, "resizePolicy", at)) {
            for (std::size_t j = 0; j < rp->size(); ++j) {
                const std::string pat = at + ".resizePolicy[" + std::to_string(j) + "]";
                const auto& po = as_object((*rp)[j], pat);
                c.resize_policy.push_back({opt_string(po, "resourceName", pat), opt_string(po, "restartPolicy", pat)});
            }
        }
        if (const auto* p = field(o, "restartPolicy")) {
            if (!p->is_string()) fail(at + ".restartPolicy", "expected a string");
            c.restart_policy = std::string(p->get_string());
        }
        out.push_back(std::move(c));
    }
    return out;
}

// `key` is "state" or "lastState"; only its "terminated" member matters.
std::optional<ContainerTermination> termination(const boost::json::object& o, std::string_view key,
                                                const std::string& path) {
    const auto* st = opt_object(o, key, path);
    if (!st) return std::nullopt;
    const std::string at = path + "." + std::string(key);
    const auto* t = opt_object(*st, "terminated", at);
    if (!t) return std::nullopt;
    return ContainerTermination{opt_string(*t, "reason", at + ".terminated"),
                                opt_string(*t, "finishedAt", at + ".terminated"),
                                opt_int(*t, "exitCode", at + ".terminated")};
}

std::vector<ContainerStatus> statuses(const boost::json::object& status, std::string_view key,
                                      const std::string& path) {
    std::vector<ContainerStatus> out;
    const auto* arr = opt_array(status, key, path);
    if (!arr) return out;
    for (std::size_t i = 0; i < arr->size(); ++i) {
        const std::string at = path + "." + std::string(key) + "[" + std::to_string(i) + "]";
        const auto& o = as_object((*arr)[i], at);
        ContainerStatus s;
        s.name = opt_string(o, "name", at);
        if (const auto* r = field(o, "resources")) s.resources = requirements(*r, at + ".resources");
        if (const auto* a = field(o, "allocatedResources"))
            s.allocated_resources = resource_list(*a, at + ".allocatedResources");
        s.ready = opt_bool(o, "ready", at);
        s.restart_count = opt_int(o, "restartCount", at).value_or(0);
        s.last_terminated = termination(o, "lastState", at);
        s.terminated = termination(o, "state", at);
        out.push_back(std::move(s));
    }
    return out;
}

Pod pod(const boost::json::value& json) {
    const auto& root = as_object(json, "pod");
    Pod p;
    if (const auto* meta = opt_object(root, "metadata", "pod")) {
        const std::string at = "metadata";
        p.namespace_ = opt_string(*meta, "namespace", at);
        p.name = opt_string(*meta, "name", at);
        p.uid = opt_string(*meta, "uid", at);
        p.resource_version = opt_string(*meta, "resourceVersion", at);
        p.generation = opt_int(*meta, "generation", at).value_or(0);
        p.deletion_timestamp = opt_string(*meta, "deletionTimestamp", at);
        p.labels = opt_string_map(*meta, "labels", at);
        p.annotations = opt_string_map(*meta, "annotations", at);
        if (const auto* refs = opt_array(*meta, "ownerReferences", at)) {
            for (std::size_t i = 0; i < refs->size(); ++i) {
                const std::string rat = at + ".ownerReferences[" + std::to_string(i) + "]";
                const auto& o = as_object((*refs)[i], rat);
                p.owner_references.push_back({opt_string(o, "apiVersion", rat), opt_string(o, "kind", rat),
                                              opt_string(o, "name", rat), opt_string(o, "uid", rat),
                                              opt_bool(o, "controller", rat)});
            }
        }
    }
    const auto* spec = opt_object(root, "spec", "pod");
    if (!spec) fail("spec", "missing pod spec");
    p.node_name = opt_string(*spec, "nodeName", "spec");
    p.containers = containers(*spec, "containers", "spec");
    if (p.containers.empty()) fail("spec.containers", "a pod has at least one container");
    p.init_containers = containers(*spec, "initContainers", "spec");
    if (const auto* r = field(*spec, "resources")) p.pod_resources = requirements(*r, "spec.resources");

    if (const auto* status = opt_object(root, "status", "pod")) {
        const std::string at = "status";
        p.phase = opt_string(*status, "phase", at);
        p.qos_class = opt_string(*status, "qosClass", at);
        p.status_resize = opt_string(*status, "resize", at);
        p.observed_generation = opt_int(*status, "observedGeneration", at);
        p.container_statuses = statuses(*status, "containerStatuses", at);
        p.init_container_statuses = statuses(*status, "initContainerStatuses", at);
        if (const auto* r = field(*status, "resources")) p.status_pod_resources = requirements(*r, at + ".resources");
        if (const auto* conds = opt_array(*status, "conditions", at)) {
            for (std::size_t i = 0; i < conds->size(); ++i) {
                const std::string cat = at + ".conditions[" + std::to_string(i) + "]";
                const auto& o = as_object((*conds)[i], cat);
                p.conditions.push_back({opt_string(o, "type", cat), opt_string(o, "status", cat),
                                        opt_string(o, "reason", cat), opt_string(o, "message", cat),
                                        opt_int(o, "observedGeneration", cat)});
            }
        }
    }
    return p;
}

}  // namespace

const Quantity* find(const ResourceList& list, std::string_view name) {
    const auto it = list.find(name);
    return it == list.end() ? nullptr : &it->second;
}

const Quantity* find_positive(const ResourceList& list, std::string_view name) {
    const Quantity* q = find(list, name);
    return (q && q->sign() > 0) ? q : nullptr;
}

std::string_view Container::resize_restart_policy(std::string_view resource) const {
    for (const auto& p : resize_policy) {
        if (p.resource_name == resource) return p.restart_policy;
    }
    return "NotRequired";
}

const Container* Pod::find_container(std::string_view n) const {
    for (const auto& c : containers)
        if (c.name == n) return &c;
    for (const auto& c : init_containers)
        if (c.name == n) return &c;
    return nullptr;
}

Container* Pod::find_container(std::string_view n) {
    return const_cast<Container*>(static_cast<const Pod*>(this)->find_container(n));
}

const ContainerStatus* Pod::find_status(std::string_view n) const {
    for (const auto& s : container_statuses)
        if (s.name == n) return &s;
    for (const auto& s : init_container_statuses)
        if (s.name == n) return &s;
    return nullptr;
}

const PodCondition* Pod::find_condition(std::string_view type) const {
    for (const auto& c : conditions)
        if (c.type == type) return &c;
    return nullptr;
}

bool Pod::is_ready() const {
    const PodCondition* c = find_condition("Ready");
    return c && c->status == "True";
}

const OwnerReference* Pod::controller_ref() const {
    for (const auto& r : owner_references)
        if (r.controller) return &r;
    return nullptr;
}

Result<Pod> decode_pod(const boost::json::value& json) {
    return guarded("invalid_pod", [&] { return Result<Pod>(pod(json)); });
}

boost::json::object resource_list_json(const ResourceList& l) {
    boost::json::object o;
    for (const auto& [k, q] : l) o[k] = q.to_string();
    return o;
}

boost::json::object requirements_json(const ResourceRequirements& rr) {
    boost::json::object o;
    if (!rr.requests.empty()) o["requests"] = resource_list_json(rr.requests);
    if (!rr.limits.empty()) o["limits"] = resource_list_json(rr.limits);
    return o;
}

Result<ResourceList> decode_resource_list(const boost::json::value& json, const std::string& path) {
    return guarded("invalid_object", [&]() -> Result<ResourceList> { return resource_list(json, path); });
}

Result<ResourceRequirements> decode_requirements(const boost::json::value& json, const std::string& path) {
    return guarded("invalid_object", [&]() -> Result<ResourceRequirements> { return requirements(json, path); });
}

}  // namespace attune::core
