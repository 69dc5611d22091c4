#include "attune/core/model/capabilities.hpp"

#include "attune/core/util/json_path.hpp"

#include <algorithm>
#include <charconv>

namespace attune::core {
namespace {

std::optional<unsigned> leading_number(std::string_view& s) {
    unsigned v = 0;
    auto [ptr, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
    if (ec != std::errc{} || ptr == s.data()) return std::nullopt;
    s.remove_prefix(static_cast<std::size_t>(ptr - s.data()));
    return v;
}

bool version_at_least(unsigned major, unsigned minor, unsigned want_major, unsigned want_minor) {
    return major > want_major || (major == want_major && minor >= want_minor);
}

}  // namespace

Capabilities safe_defaults() { return Capabilities{}; }

boost::json::object capabilities_json(const Capabilities& c) {
    return boost::json::object{
        {"git_version", c.git_version},
        {"major", c.major},
        {"minor", c.minor},
        {"pods_resize", c.pods_resize},
        {"pod_level_resources_field", c.pod_level_resources_field},
        {"in_place_pod_level_resources", c.in_place_pod_level_resources},
        {"declared_features_reported", c.declared_features_reported},
        {"hpa_scale_to_zero", c.hpa_scale_to_zero},
        {"allow_in_place_memory_limit_decrease", c.allow_in_place_memory_limit_decrease},
        {"in_place_sidecar_resize", c.in_place_sidecar_resize},
        {"scheduler_resize_preemption", c.scheduler_resize_preemption},
        {"memory_backed_volume_resize", c.memory_backed_volume_resize},
        {"exclusive_cpu_in_place", c.exclusive_cpu_in_place},
    };
}

std::optional<std::pair<unsigned, unsigned>> parse_git_version(std::string_view v) {
    if (!v.empty() && v.front() == 'v') v.remove_prefix(1);
    auto mm = parse_major_minor(v);
    if (!mm || mm->first == 0) return std::nullopt;
    return mm;
}

std::optional<std::pair<unsigned, unsigned>> parse_major_minor(std::string_view v) {
    auto major = leading_number(v);
    if (!major || v.empty() || v.front() != '.') return std::nullopt;
    v.remove_prefix(1);
    auto minor = leading_number(v);
    if (!minor) return std::nullopt;
    // Whatever follows the minor (".4+k3s1", ".5-gke.1234", ".0-150-generic")
    // is the patch and the distribution's build, irrelevant here.
    if (!v.empty() && v.front() != '.' && v.front() != '+' && v.front() != '-') return std::nullopt;
    return std::pair{*major, *minor};
}

// InPlacePodLevelResources from Ready nodes' status.declaredFeatures.
//
// Three-way, never "name absent => off" on its own:
//  1. any Ready node lists the feature                      => true;
//  2. any Ready node has a non-empty list without the name  => false
//     (the gate is off on that cluster);
//  3. every Ready node has a nil/empty list, or the list
//     call failed                                          => git version >= 1.36
//     (k3s/kind not reporting, or kubelets older than NodeDeclaredFeatures).
//
// Case 2 is right only while the feature is not GA: once it GAs, kubelets
// stop listing the name and the control plane treats it as universally
// available (the feature's MaxVersion). On 1.36 MaxVersion() is nil (Beta).
// When a later Kubernetes sets it, "omitted" plus a git version at or past
// that MaxVersion must read as true: revisit this rule then rather than
// freezing "name absent => false".
bool decide_in_place_pod_level_resources(const NodeListProbe& node_list, unsigned major, unsigned minor) {
    const bool fallback = version_at_least(major, minor, 1, 36);
    if (!node_list.error.empty()) return fallback;
    bool any_nonempty_without = false;
    for (const auto& n : node_list.nodes) {
        if (!n.ready || !n.declared_features || n.declared_features->empty()) continue;
        const auto& f = *n.declared_features;
        if (std::find(f.begin(), f.end(), kInPlacePodLevelResourcesFeature) != f.end()) return true;
        any_nonempty_without = true;
    }
    return any_nonempty_without ? false : fallback;
}

Result<Capabilities> decide_capabilities(const ServerVersionProbe& server_version,
                                         const ApiResourcesProbe& api_resources, const OpenApiProbe& openapi,
                                         const NodeListProbe& node_list) {
    if (!server_version.error.empty()) {
        return make_error("server_version_unusable", "server version probe failed: " + server_version.error);
    }
    const auto mm = parse_git_version(server_version.git_version);
    if (!mm) {
        return make_error("server_version_unusable",
                          "cannot parse server gitVersion \"" + server_version.git_version + "\"");
    }
    Capabilities c;
    c.git_version = server_version.git_version;
    c.major = mm->first;
    c.minor = mm->second;

    if (api_resources.error.empty()) {
        const auto& r = api_resources.core_v1_resources;
        c.pods_resize = std::find(r.begin(), r.end(), "pods/resize") != r.end();
    }
    c.pod_level_resources_field = openapi.error.empty() ? openapi.pod_spec_has_resources : c.at_least(1, 34);
    c.in_place_pod_level_resources = decide_in_place_pod_level_resources(node_list, c.major, c.minor);
    if (node_list.error.empty()) {
        c.declared_features_reported = std::any_of(node_list.nodes.begin(), node_list.nodes.end(), [](const NodeProbe& n) {
            return n.ready && n.declared_features && !n.declared_features->empty();
        });
    }
    c.hpa_scale_to_zero = (openapi.error.empty() && openapi.hpa_conditions_have_scaled_to_zero) || c.at_least(1, 37);
    // Version-locked on purpose: an OpenAPI or node-list failure must not
    // bring the 1.33 clamp back on a healthy 1.34+ cluster.
    c.allow_in_place_memory_limit_decrease = c.at_least(1, 34);
    c.in_place_sidecar_resize = c.at_least(1, 33);
    return c;
}

// Tolerant on purpose: a probe never fails on one odd Node; what cannot be
// read counts as not Ready / not reported.
NodeProbe decode_node_probe(const boost::json::value& node) {
    NodeProbe p;
    if (const auto* conds = array_at(node, {"status", "conditions"})) {
        for (const auto& c : *conds)
            if (string_at(c, {"type"}) == "Ready") p.ready = string_at(c, {"status"}) == "True";
    }
    if (const auto* df = array_at(node, {"status", "declaredFeatures"})) {
        std::vector<std::string> names;
        for (const auto& f : *df)
            if (f.is_string()) names.emplace_back(f.get_string());
        p.declared_features = std::move(names);
    }
    p.name = string_at(node, {"metadata", "name"});
    p.kernel_version = string_at(node, {"status", "nodeInfo", "kernelVersion"});
    p.kernel_config_cgroup_v2 = string_at(node, {"metadata", "labels", kNfdKernelConfigCgroupV2Label}) == "true";
    return p;
}

bool node_allows_pod_level_resize(const Capabilities& caps, const NodeProbe& node) {
    if (!caps.in_place_pod_level_resources) return false;
    if (node.declared_features && !node.declared_features->empty()) {
        const auto& f = *node.declared_features;
        return std::find(f.begin(), f.end(), kInPlacePodLevelResourcesFeature) != f.end();
    }
    return !caps.declared_features_reported;
}

}  // namespace attune::core
