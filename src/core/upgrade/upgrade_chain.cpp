#include "attune/core/upgrade/upgrade_chain.hpp"

#include "upgrade_json.hpp"

#include <boost/json.hpp>

#include <algorithm>
#include <cstdio>

namespace attune::core {
namespace {

using detail::at;
using detail::string_at;


std::string format_value(double v) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%g", v);
    return buf;
}

std::string escape_label(std::string_view v) {
    std::string out;
    for (char c : v) {
        if (c == '\\' || c == '"') out += '\\';
        if (c == '\n') {
            out += "\\n";
            continue;
        }
        out += c;
    }
    return out;
}

}  // namespace

std::optional<ChainPhase> parse_chain_phase(std::string_view s) {
    if (s == "preflight") return ChainPhase::Preflight;
    if (s == "upgrade") return ChainPhase::Upgrade;
    if (s == "postflight") return ChainPhase::Postflight;
    return std::nullopt;
}

std::string_view to_string(ChainPhase p) {
    switch (p) {
        case ChainPhase::Preflight: return "preflight";
        case ChainPhase::Upgrade: return "upgrade";
        case ChainPhase::Postflight: return "postflight";
    }
    return "preflight";
}

PreflightRoute route_preflight(int gate_exit) {
    switch (gate_exit) {
        case kGateSafe: return {0, 0, true, "safe: proceeding to the upgrade"};
        case kGateActionable: return {1, 0, false, "actionable block: halting the chain (K8sUpgradeBlocked fires)"};
        case kGateHeld: return {0, 1, false, "held (waiting on upstream or pinned): halting the chain quietly"};
        default: return {1, 0, false, "gate error, counted as blocked (fail-safe): halting the chain"};
    }
}

std::vector<std::string> unready_nodes(const std::vector<NodeRuntime>& nodes) {
    std::vector<std::string> out;
    for (const auto& n : nodes)
        if (!n.ready) out.push_back(n.node);
    return out;
}

std::string render_push_body(const std::vector<PushedGauge>& gauges) {
    std::string out;
    for (const auto& g : gauges) {
        out += "# HELP " + g.name + " " + g.help + "\n";
        out += "# TYPE " + g.name + " gauge\n";
        out += g.name + "{target=\"" + escape_label(g.target) + "\"} " + format_value(g.value) + "\n";
    }
    return out;
}

std::vector<PushedGauge> verdict_gauges(const std::string& target, int blocked, int held) {
    return {
        {"k8s_upgrade_blocked", "1 when the upgrade gate refused the target for actionable reasons or could not evaluate it",
         target, static_cast<double>(blocked)},
        {"k8s_upgrade_held", "1 when the target is held: waiting on upstream or pinned on purpose (no alert)", target,
         static_cast<double>(held)},
    };
}

std::vector<PushedGauge> available_gauge(const std::string& target, bool available) {
    return {{"k8s_upgrade_available", "1 when a newer Kubernetes minor than the cluster's is the chain's target", target,
             available ? 1.0 : 0.0}};
}

Result<ChainJob> chain_job_from(const boost::json::value& job) {
    ChainJob j;
    j.name = string_at(&job, {"metadata", "name"});
    if (j.name.empty()) return make_error("invalid_object", "a Job without metadata.name");
    const auto* labels = at(&job, {"metadata", "labels"});
    j.phase = string_at(labels, {kUpgradePhaseLabel});
    j.target = string_at(labels, {kUpgradeTargetLabel});
    j.created = string_at(&job, {"metadata", "creationTimestamp"});
    if (const auto* conds = at(&job, {"status", "conditions"}); conds && conds->is_array()) {
        for (const auto& c : conds->get_array()) {
            if (string_at(&c, {"status"}) != "True") continue;
            const auto type = string_at(&c, {"type"});
            if (type == "Complete") j.state = JobState::Complete;
            if (type == "Failed") j.state = JobState::Failed;
        }
    }
    return j;
}

std::string_view to_string(DetectorAction a) {
    switch (a) {
        case DetectorAction::None: return "none";
        case DetectorAction::Spawn: return "spawn";
        case DetectorAction::RespawnRefused: return "respawn-refused";
        case DetectorAction::RespawnFailed: return "respawn-failed";
    }
    return "none";
}

DetectorDecision decide_detector(const std::string& target, const std::vector<ChainJob>& jobs) {
    const ChainJob* last = nullptr;
    bool upgrade_exists = false;
    for (const auto& j : jobs) {
        if (j.target != target) continue;
        if (j.phase == "upgrade") upgrade_exists = true;
        if (j.phase != "preflight") continue;
        // RFC 3339 in UTC sorts as text; the name breaks a same-second tie.
        if (last == nullptr || std::tie(j.created, j.name) > std::tie(last->created, last->name)) last = &j;
    }
    if (last == nullptr) return {DetectorAction::Spawn, true, "no preflight for " + target + " yet"};
    switch (last->state) {
        case JobState::Active: return {DetectorAction::None, false, "preflight " + last->name + " is still running"};
        case JobState::Failed:
            return {DetectorAction::RespawnFailed, true, "preflight " + last->name + " failed; trying again"};
        case JobState::Complete:
            if (upgrade_exists)
                return {DetectorAction::None, false, "preflight " + last->name + " passed and the chain went on"};
            return {DetectorAction::RespawnRefused, false,
                    "preflight " + last->name + " refused " + target + "; re-evaluating the refusal"};
    }
    return {};
}

std::string chain_job_name(ChainPhase phase, KubeMinor target, std::uint64_t unix_seconds) {
    std::string id;
    do {
        id.insert(id.begin(), "0123456789abcdefghijklmnopqrstuvwxyz"[unix_seconds % 36]);
        unix_seconds /= 36;
    } while (unix_seconds > 0);
    return "attune-upgrade-" + std::string(to_string(phase)) + "-" + std::to_string(target.major) + "-" +
           std::to_string(target.minor) + "-" + id;
}

Result<boost::json::value> build_chain_job(const boost::json::value& job_template, ChainPhase phase, KubeMinor target,
                                           const std::string& name) {
    auto bad = [](std::string why) { return make_error("invalid_template", "Job template: " + why); };
    if (string_at(&job_template, {"apiVersion"}) != "batch/v1" || string_at(&job_template, {"kind"}) != "Job")
        return bad("expected apiVersion batch/v1 and kind Job");
    boost::json::value job = job_template;
    auto& md = job.as_object()["metadata"];
    if (!md.is_object()) md = boost::json::object();
    auto& mdo = md.as_object();
    for (auto k : {"generateName", "resourceVersion", "uid", "creationTimestamp", "namespace"}) mdo.erase(k);
    mdo["name"] = name;
    job.as_object().erase("status");

    auto set_labels = [&](boost::json::object& meta) {
        auto& l = meta["labels"];
        if (!l.is_object()) l = boost::json::object();
        l.as_object()[kChainNameLabel] = kChainNameValue;
        l.as_object()[kUpgradePhaseLabel] = std::string(to_string(phase));
        l.as_object()[kUpgradeTargetLabel] = target.str();
    };
    set_labels(mdo);

    auto* spec = job.as_object().if_contains("spec");
    auto* tmpl = spec && spec->is_object() ? spec->as_object().if_contains("template") : nullptr;
    if (tmpl == nullptr || !tmpl->is_object()) return bad("no spec.template");
    auto& tmd = tmpl->as_object()["metadata"];
    if (!tmd.is_object()) tmd = boost::json::object();
    set_labels(tmd.as_object());
    auto* pod_spec = tmpl->as_object().if_contains("spec");
    auto* containers = pod_spec && pod_spec->is_object() ? pod_spec->as_object().if_contains("containers") : nullptr;
    if (containers == nullptr || !containers->is_array() || containers->as_array().empty())
        return bad("no spec.template.spec.containers");
    auto& cs = containers->as_array();
    boost::json::value* step = nullptr;
    for (auto& c : cs)
        if (string_at(&c, {"name"}) == "step") step = &c;
    if (step == nullptr) {
        if (cs.size() != 1) return bad("several containers and none named \"step\"");
        step = &cs[0];
    }
    if (!step->is_object()) return bad("a container is not an object");
    auto& args = step->as_object()["args"];
    if (args.is_null()) args = boost::json::array();
    if (!args.is_array()) return bad("the step container's args is not a list");
    for (const auto& a : args.as_array()) {
        if (!a.is_string()) return bad("the step container's args must be strings");
        const std::string_view s = a.get_string();
        if (s.substr(0, 7) == "--phase" || s.substr(0, 8) == "--target" || s == "--detect")
            return bad("the step container's args must not set --phase, --target or --detect (the chain adds them)");
    }
    args.as_array().emplace_back("--phase=" + std::string(to_string(phase)));
    args.as_array().emplace_back("--target=" + target.str());
    return job;
}

std::string upgrade_command_for(std::string_view command_template, KubeMinor target) {
    std::string out;
    constexpr std::string_view kPlaceholder = "{target}";
    while (true) {
        const auto at = command_template.find(kPlaceholder);
        out += command_template.substr(0, at);
        if (at == std::string_view::npos) break;
        out += target.str();
        command_template.remove_prefix(at + kPlaceholder.size());
    }
    return out;
}

}  // namespace attune::core
