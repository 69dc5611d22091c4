#include "attune/core/upgrade/upgrade_gate.hpp"

#include "upgrade_json.hpp"

#include <boost/json.hpp>

#include <algorithm>

namespace attune::core {
namespace {

using detail::at;
using detail::string_at;

GateReason reason(BlockClass c, std::string check, std::string subject, std::string message) {
    GateReason r;
    r.cls = c;
    r.check = std::move(check);
    r.subject = std::move(subject);
    r.message = std::move(message);
    return r;
}

// The row that describes a running version: the highest row at or below it.
const AddonVersionRow* row_for(const AddonSpec& spec, const DottedVersion& v) {
    const AddonVersionRow* best = nullptr;
    for (const auto& r : spec.versions)
        if (r.version <= v) best = &r;
    return best;
}


}  // namespace

AddonObservation observe_addon(const AddonSpec& spec, const boost::json::value* workload) {
    AddonObservation o;
    o.addon = spec.name;
    o.where = spec.source.kind + " " + spec.source.ns + "/" + spec.source.name;
    if (workload == nullptr) {
        o.missing = "the " + spec.source.kind + " does not exist";
        return o;
    }
    if (!spec.source.label.empty()) {
        o.where += ", label " + spec.source.label;
        const auto* labels = at(workload, {"metadata", "labels"});
        const auto* v = labels && labels->is_object() ? labels->get_object().if_contains(spec.source.label) : nullptr;
        if (v == nullptr || !v->is_string()) {
            o.missing = "the " + spec.source.kind + " has no label " + spec.source.label;
            return o;
        }
        o.found = true;
        o.raw = std::string(v->get_string());
        return o;
    }
    o.where += ", container " + spec.source.container;
    const auto* containers = at(workload, {"spec", "template", "spec", "containers"});
    if (containers != nullptr && containers->is_array()) {
        for (const auto& c : containers->get_array()) {
            if (string_at(&c, {"name"}) != spec.source.container) continue;
            o.found = true;
            o.raw = string_at(&c, {"image"});
            return o;
        }
    }
    o.missing = "the " + spec.source.kind + " has no container " + spec.source.container;
    return o;
}

Result<std::vector<NodeRuntime>> node_runtimes_from(const boost::json::array& items) {
    std::vector<NodeRuntime> out;
    for (const auto& n : items) {
        NodeRuntime r;
        r.node = string_at(&n, {"metadata", "name"});
        if (!n.is_object() || r.node.empty()) return make_error("invalid_object", "a Node in the list has no name");
        r.runtime_version = string_at(&n, {"status", "nodeInfo", "containerRuntimeVersion"});
        if (const auto* conds = at(&n, {"status", "conditions"}); conds && conds->is_array())
            for (const auto& c : conds->get_array())
                if (string_at(&c, {"type"}) == "Ready") r.ready = string_at(&c, {"status"}) == "True";
        out.push_back(std::move(r));
    }
    return out;
}

std::optional<GateReason> classify_addon(const AddonSpec& spec, const AddonObservation& seen, KubeMinor target) {
    const auto& name = spec.name;
    // Fail-safe: whatever keeps us from knowing the version needs a human.
    if (!seen.found)
        return reason(BlockClass::Actionable, "addon", name,
                      "cannot find its running version: " + seen.missing + " (" + seen.where +
                          "); fix the matrix source or remove the addon from the matrix");
    std::optional<DottedVersion> running;
    if (spec.source.container.empty()) {
        running = parse_dotted_version(seen.raw);
        if (!running)
            return reason(BlockClass::Actionable, "addon", name,
                          "cannot read a version from label " + spec.source.label + "=\"" + seen.raw + "\" (" +
                              seen.where + ")");
    } else {
        auto tag = image_tag(seen.raw);
        if (tag) running = parse_dotted_version(*tag);
        if (!running)
            return reason(BlockClass::Actionable, "addon", name,
                          "cannot read a version from image " + seen.raw + " (" + seen.where + ")");
    }
    const AddonVersionRow* row = row_for(spec, *running);
    if (row == nullptr)
        return reason(BlockClass::Actionable, "addon", name,
                      "running " + running->text + " is older than every version in the matrix (lowest " +
                          spec.versions.front().version.text + "); a human must check it");
    if (row->max_k8s >= target) return std::nullopt;

    const std::string supports =
        "running " + running->text + " supports Kubernetes up to " + row->max_k8s.str();
    // Among later versions, the lowest that supports the target.
    const AddonVersionRow* fix = nullptr;
    for (const auto& r : spec.versions)
        if (r.version > row->version && r.max_k8s >= target) {
            fix = &r;
            break;
        }
    if (spec.pinned) {
        std::string msg = "pinned: " + spec.pin_reason + " (" + supports;
        if (fix) msg += "; " + fix->version.text + " would support " + target.str();
        return reason(BlockClass::Pinned, "addon", name, msg + ")");
    }
    if (fix)
        return reason(BlockClass::Actionable, "addon", name,
                      "upgrade " + name + " to >= " + fix->version.text + " (" + supports + ")");
    return reason(BlockClass::Waiting, "addon", name,
                  "no released " + name + " supports Kubernetes " + target.str() + " yet (" + supports + ")");
}

std::vector<GateReason> containerd_reasons(const UpgradeMatrix& m, KubeMinor target, const std::vector<NodeRuntime>& nodes) {
    std::vector<GateReason> out;
    const auto* min = containerd_minimum_for(m, target);
    if (min == nullptr) return out;
    constexpr std::string_view kPrefix = "containerd://";
    for (const auto& n : nodes) {
        const std::string_view rv = n.runtime_version;
        if (rv.empty()) {
            out.push_back(reason(BlockClass::Actionable, "containerd", n.node,
                                 "the node reports no containerRuntimeVersion; Kubernetes " + target.str() +
                                     " needs containerd >= " + min->min.text));
            continue;
        }
        if (rv.substr(0, kPrefix.size()) != kPrefix) continue;  // another runtime: the matrix has no minimum for it
        auto v = parse_dotted_version(rv.substr(kPrefix.size()));
        if (!v) {
            out.push_back(reason(BlockClass::Actionable, "containerd", n.node,
                                 "cannot read the containerd version \"" + n.runtime_version + "\"; Kubernetes " +
                                     target.str() + " needs >= " + min->min.text));
        } else if (*v < min->min) {
            out.push_back(reason(BlockClass::Actionable, "containerd", n.node,
                                 "upgrade containerd " + v->text + " to >= " + min->min.text +
                                     ", the minimum for Kubernetes " + target.str()));
        }
    }
    return out;
}

std::string_view to_string(GateVerdict v) {
    switch (v) {
        case GateVerdict::Safe: return "safe";
        case GateVerdict::Actionable: return "actionable";
        case GateVerdict::Held: return "held";
    }
    return "safe";
}

Result<GateResult> evaluate_upgrade_gate(const UpgradeMatrix& m, const GateInputs& in) {
    if (in.target < in.current)
        return make_error("gate_error", "target " + in.target.str() + " is older than the cluster's " +
                                            in.current.str() + ": the gate does not judge downgrades");
    GateResult r;
    for (const auto& spec : m.addons) {
        auto it = std::find_if(in.addons.begin(), in.addons.end(),
                               [&](const AddonObservation& o) { return o.addon == spec.name; });
        if (it == in.addons.end()) return make_error("gate_error", "no observation of addon " + spec.name);
        if (auto why = classify_addon(spec, *it, in.target)) r.reasons.push_back(std::move(*why));
    }
    for (auto& x : removed_api_reasons(m, in.target, in.requested_deprecated, in.served)) r.reasons.push_back(std::move(x));
    for (auto& x : containerd_reasons(m, in.target, in.nodes)) r.reasons.push_back(std::move(x));
    r.exit_code = gate_exit_code(r.reasons);
    r.verdict = r.exit_code == kGateSafe   ? GateVerdict::Safe
                : r.exit_code == kGateHeld ? GateVerdict::Held
                                           : GateVerdict::Actionable;
    return r;
}

boost::json::object gate_result_json(const GateInputs& in, const GateResult& r) {
    boost::json::object o;
    o["serverVersion"] = in.server_version;
    o["target"] = in.target.str();
    o["verdict"] = std::string(to_string(r.verdict));
    o["exitCode"] = r.exit_code;
    boost::json::array reasons;
    for (const auto& x : r.reasons) {
        boost::json::object e;
        e["class"] = std::string(tag_of(x.cls));
        e["check"] = x.check;
        e["subject"] = x.subject;
        e["message"] = x.message;
        e["line"] = x.line();
        reasons.push_back(std::move(e));
    }
    o["reasons"] = std::move(reasons);
    return o;
}

boost::json::object gate_error_json(std::string_view target, std::string_view error) {
    boost::json::object o;
    o["target"] = std::string(target);
    o["verdict"] = "error";
    o["exitCode"] = kGateError;
    o["error"] = std::string(error);
    o["reasons"] = boost::json::array();
    return o;
}

}  // namespace attune::core
