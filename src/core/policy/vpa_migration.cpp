// VPA -> AttunePolicy: docs/cli.md "migrate" is the table this implements;
// every field not listed there becomes a note rather than being dropped.
#include "attune/core/policy/vpa_migration.hpp"

#include <boost/json.hpp>

#include <array>
#include <string_view>

namespace attune::core {
namespace json = boost::json;

namespace {

// docs/api.md targetRef.kind: the kinds a policy can manage.
constexpr std::array<std::string_view, 6> kSupportedKinds = {"Deployment", "StatefulSet", "DaemonSet",
                                                             "CronJob",    "Job",         "ReplicaSet"};

std::string string_at(const json::object& o, std::string_view key) {
    const auto* v = o.if_contains(key);
    return v != nullptr && v->is_string() ? std::string(v->as_string()) : std::string();
}

// A quantity written as a bare number (cpu: 1) is still a quantity.
std::optional<json::value> quantity_of(const json::value& v) {
    if (v.is_string()) return v;
    if (v.is_int64()) return json::value(std::to_string(v.as_int64()));
    if (v.is_uint64()) return json::value(std::to_string(v.as_uint64()));
    return std::nullopt;
}

struct Builder {
    json::object spec;
    std::vector<VpaMigrationNote> notes;

    void note(std::string path, std::string why) { notes.push_back({std::move(path), std::move(why)}); }
    json::object& resource(std::string_view r) { return spec[r].as_object(); }

    void update_policy(const json::value* up) {
        json::object strategy;
        std::string mode = "Auto";  // the VPA default when updateMode is unset
        if (up != nullptr && up->is_object()) {
            for (const auto& [k, v] : up->as_object()) {
                const std::string path = "spec.updatePolicy." + std::string(k);
                if (k == "updateMode") {
                    mode = v.is_string() ? std::string(v.as_string()) : "";
                } else if (k == "minReplicas") {
                    note(path, "no equivalent: Attune resizes in place and keeps every replica running");
                } else if (k == "evictionRequirements") {
                    note(path, "no equivalent: Attune does not evict pods to resize them");
                } else {
                    note(path, "no equivalent in AttunePolicy");
                }
            }
        }
        if (mode == "Off") {
            strategy["type"] = "Recommend";
        } else if (mode == "Initial") {
            strategy["type"] = "Recommend";
            strategy["initialSizing"] = true;
        } else if (mode == "Auto" || mode == "Recreate") {
            strategy["type"] = "Auto";
            if (mode == "Recreate")
                note("spec.updatePolicy.updateMode",
                     "Recreate becomes Auto, which resizes in place: pods are not evicted");
        } else if (mode == "InPlaceOrRecreate") {
            strategy["type"] = "Auto";
            strategy["resizeMethod"] = "InPlaceOrRecreate";
        } else {
            strategy["type"] = "Recommend";
            note("spec.updatePolicy.updateMode", "unknown mode \"" + mode + "\": the policy only recommends");
        }
        spec["updateStrategy"] = std::move(strategy);
    }

    void bounds(const json::object& cp, std::string_view key, std::string_view ours, const std::string& path) {
        const auto* b = cp.if_contains(key);
        if (b == nullptr) return;
        if (!b->is_object()) {
            note(path + "." + std::string(key), "not an object");
            return;
        }
        for (const auto& [r, q] : b->as_object()) {
            const std::string rpath = path + "." + std::string(key) + "." + std::string(r);
            if (r != "cpu" && r != "memory") {
                note(rpath, "AttunePolicy sizes cpu and memory only");
                continue;
            }
            auto qty = quantity_of(q);
            if (!qty) {
                note(rpath, "not a quantity");
                continue;
            }
            resource(r)[ours] = std::move(*qty);
        }
    }

    void all_containers(const json::object& cp, const std::string& path) {
        for (const auto& [k, v] : cp) {
            const std::string fpath = path + "." + std::string(k);
            if (k == "containerName") continue;
            if (k == "minAllowed" || k == "maxAllowed") {
                bounds(cp, k, k, path);
            } else if (k == "controlledValues") {
                const std::string cv = v.is_string() ? std::string(v.as_string()) : "";
                if (cv == "RequestsOnly" || cv == "RequestsAndLimits") {
                    resource("cpu")["controlledValues"] = cv;
                    resource("memory")["controlledValues"] = cv;
                } else {
                    note(fpath, "unknown value: AttunePolicy takes RequestsOnly or RequestsAndLimits");
                }
            } else if (k == "controlledResources") {
                bool cpu = false;
                bool memory = false;
                if (v.is_array())
                    for (const auto& r : v.as_array()) {
                        cpu = cpu || (r.is_string() && r.as_string() == "cpu");
                        memory = memory || (r.is_string() && r.as_string() == "memory");
                    }
                if (!cpu || !memory)
                    note(fpath, "AttunePolicy always sizes both cpu and memory; it cannot leave one alone");
            } else if (k == "mode") {
                if (!(v.is_string() && v.as_string() == "Auto"))
                    note(fpath,
                         "AttunePolicy cannot switch off every container; set updateStrategy.type: Observe "
                         "or delete the policy instead");
            } else {
                note(fpath, "no equivalent in AttunePolicy");
            }
        }
    }

    void one_container(const json::object& cp, const std::string& name, const std::string& path) {
        for (const auto& [k, v] : cp) {
            const std::string fpath = path + "." + std::string(k);
            if (k == "containerName") continue;
            if (k == "mode") {
                if (v.is_string() && v.as_string() == "Off") {
                    spec["excludedContainers"].as_array().push_back(json::value(name));
                } else if (!(v.is_string() && v.as_string() == "Auto")) {
                    note(fpath, "unknown mode: container " + name + " is sized");
                }
                continue;
            }
            note(fpath, "AttunePolicy settings apply to every container: container " + name +
                            " gets the policy's (containerName \"*\")");
        }
    }

    void resource_policy(const json::value& rp) {
        if (!rp.is_object()) {
            note("spec.resourcePolicy", "not an object");
            return;
        }
        for (const auto& [k, v] : rp.as_object()) {
            if (k != "containerPolicies") {
                note("spec.resourcePolicy." + std::string(k), "no equivalent in AttunePolicy");
                continue;
            }
            if (!v.is_array()) {
                note("spec.resourcePolicy.containerPolicies", "not a list");
                continue;
            }
            for (std::size_t i = 0; i < v.as_array().size(); ++i) {
                const std::string path = "spec.resourcePolicy.containerPolicies[" + std::to_string(i) + "]";
                const auto& cp = v.as_array()[i];
                if (!cp.is_object()) {
                    note(path, "not an object");
                    continue;
                }
                const std::string name = string_at(cp.as_object(), "containerName");
                if (name.empty() || name == "*") all_containers(cp.as_object(), path);
                else one_container(cp.as_object(), name, path);
            }
        }
    }
};

}  // namespace

VpaMigration migrate_vpa(const json::value& vpa) {
    VpaMigration out;
    const auto* root = vpa.if_object();
    const auto* meta = root != nullptr ? root->if_contains("metadata") : nullptr;
    const auto* spec = root != nullptr ? root->if_contains("spec") : nullptr;
    if (meta == nullptr || !meta->is_object() || spec == nullptr || !spec->is_object()) {
        out.notes.push_back({"spec", "not a VerticalPodAutoscaler: no metadata or spec"});
        return out;
    }
    const auto& s = spec->as_object();
    const std::string name = string_at(meta->as_object(), "name");
    const std::string ns = string_at(meta->as_object(), "namespace");

    Builder b;
    const auto* tr = s.if_contains("targetRef");
    const std::string kind = tr != nullptr && tr->is_object() ? string_at(tr->as_object(), "kind") : "";
    const std::string target = tr != nullptr && tr->is_object() ? string_at(tr->as_object(), "name") : "";
    bool supported = false;
    for (auto k : kSupportedKinds) supported = supported || k == kind;
    if (!supported || target.empty()) {
        out.notes.push_back({"spec.targetRef", kind.empty() || target.empty()
                                                   ? "no kind and name: no policy written"
                                                   : "kind " + kind +
                                                         " is not one AttunePolicy manages (Deployment, "
                                                         "StatefulSet, DaemonSet, CronJob, Job, ReplicaSet): "
                                                         "no policy written"});
        return out;
    }
    b.spec["targetRef"] = json::object{{"kind", kind}, {"name", target}};
    // Reading the VPA's own recommendations keeps them flowing while both
    // objects exist; the user switches the source before deleting the VPA.
    b.spec["metricsSource"] = json::object{{"vpa", json::object{{"name", name}}}};
    b.spec["cpu"] = json::object();
    b.spec["memory"] = json::object();
    b.spec["excludedContainers"] = json::array();

    b.update_policy(s.if_contains("updatePolicy"));
    for (const auto& [k, v] : s) {
        if (k == "targetRef" || k == "updatePolicy") continue;
        if (k == "resourcePolicy") {
            b.resource_policy(v);
        } else if (k == "recommenders") {
            b.note("spec.recommenders", "no equivalent: the policy reads the default recommender's output");
        } else {
            b.note("spec." + std::string(k), "no equivalent in AttunePolicy");
        }
    }
    if (b.spec["excludedContainers"].as_array().empty()) b.spec.erase("excludedContainers");

    json::object m{{"name", name}};
    if (!ns.empty()) m["namespace"] = ns;
    out.policy = json::object{{"apiVersion", "attune.io/v1alpha1"},
                              {"kind", "AttunePolicy"},
                              {"metadata", std::move(m)},
                              {"spec", std::move(b.spec)}};
    out.notes = std::move(b.notes);
    return out;
}

}  // namespace attune::core
