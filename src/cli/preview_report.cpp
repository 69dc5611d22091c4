#include "preview_report.hpp"

#include <attune/core/model/label_selector.hpp>
#include <attune/core/model/readable_units.hpp>
#include <attune/core/recommend/recommendation_status.hpp>
#include <attune/core/resize/node_fit.hpp>
#include <attune/core/resize/pod_eligibility.hpp>
#include <attune/core/resize/resize_gate_inputs.hpp>
#include <attune/core/resize/resize_history.hpp>
#include <attune/core/resize/resize_pass.hpp>
#include <attune/core/resize/resize_targets.hpp>
#include <attune/core/util/json_path.hpp>

#include <boost/json.hpp>

#include <algorithm>
#include <set>

namespace attune::cli {
namespace json = boost::json;

namespace {

// The usage floor on a memory-limit decrease reads the memory chain's raw
// percentile (core/resize/resize_targets.hpp); the status decoder leaves the
// explanation out, so it is read here from the same entry when the status
// carries it (includeExplanationsInStatus).
void add_observed_usage(core::StatusRecommendation& rec, const json::value& entry) {
    const auto* containers = core::array_at(entry, {"containers"});
    if (containers == nullptr) return;
    for (auto& c : rec.recommendation.containers)
        for (const auto& j : *containers)
            if (core::string_at(j, {"name"}) == c.name)
                if (auto q = core::Quantity::parse(core::string_at(j, {"explanation", "memory", "rawPercentile"}))) {
                    core::ResourceExplanation e;
                    e.raw_percentile = q.value();
                    c.memory = e;
                }
}

const json::value* status_entry(const json::value& policy, const core::StatusRecommendation& rec) {
    if (const auto* recs = core::array_at(policy, {"status", "recommendations"}))
        for (const auto& e : *recs)
            if (core::string_at(e, {"kind"}) == rec.kind && core::string_at(e, {"workload"}) == rec.workload) return &e;
    return nullptr;
}

json::value quantity_or_null(const core::ResourceList& list, std::string_view r) {
    const auto* q = core::find(list, r);
    return q ? json::value(q->to_string()) : json::value(nullptr);
}

json::object values_json(const core::ResourceRequirements& r) {
    return {{"cpuRequest", quantity_or_null(r.requests, core::kCpu)},
            {"cpuLimit", quantity_or_null(r.limits, core::kCpu)},
            {"memoryRequest", quantity_or_null(r.requests, core::kMemory)},
            {"memoryLimit", quantity_or_null(r.limits, core::kMemory)}};
}

// "256Mi/512Mi": request/limit as people read them, "-" for an absent one.
std::string side_text(const core::ResourceRequirements& r, std::string_view res) {
    auto text = [&](const core::Quantity* q) -> std::string {
        if (!q) return "-";
        return res == core::kCpu ? core::readable_cpu(*q) : core::readable_memory(*q);
    };
    return text(core::find(r.requests, res)) + "/" + text(core::find(r.limits, res));
}

std::string change_text(const core::ResourceRequirements& from, const core::ResourceRequirements& to,
                        std::string_view res) {
    const auto a = side_text(from, res), b = side_text(to, res);
    return a == b ? a : a + " -> " + b;
}

struct Verdict {
    std::string action, reason, message;
    json::array dropped;
    std::vector<std::string> unavailable;
};

// An ineligible pod: the executor leaves it this pass (core/resize/pod_eligibility.hpp).
Verdict ineligible(const core::Eligibility& e) {
    Verdict v;
    v.reason = e.reason;
    v.message = e.message;
    if (e.reason == "not_running" || e.reason == "deleting") v.action = "skip";
    else if (e.reason == "resize_in_progress" || e.reason == "resize_deferred" || e.reason == "startup_boost")
        v.action = "defer";
    else v.action = "hold";
    return v;
}

// Gates whose input the CLI may lack, by the input.
bool node_gate(std::string_view gate) { return gate.rfind("node_", 0) == 0; }

}  // namespace

core::Result<PreviewResult> preview_policy(const PreviewInputs& in) {
    PreviewResult out;
    const std::string ns(core::string_at(in.policy, {"metadata", "namespace"}));
    const std::string name(core::string_at(in.policy, {"metadata", "name"}));
    auto recs = core::decode_status_recommendations(in.policy);
    if (!recs) return recs.error();
    std::vector<core::HistoryEntry> history;
    if (const auto* h = core::json_at(in.policy, {"status", "resizeHistory"})) {
        auto decoded = core::decode_history(*h);
        if (!decoded) return decoded.error();
        history = std::move(decoded).value();
    }
    if (!in.effective) {
        out.notes.push_back("policy " + name +
                            " has no valid settings, so the executor resizes nothing: " + in.config_error);
        return out;
    }
    if (recs.value().empty()) {
        out.notes.push_back("policy " + name + " has no recommendations yet: nothing to preview");
        return out;
    }
    if (!in.caps_error.empty())
        out.notes.push_back("the cluster's capabilities could not be probed (" + in.caps_error +
                            "); the preview plans with the safe defaults the manager starts from");
    // What Auto would do: the policy as it is, with the mode switched.
    core::EffectivePolicy policy = *in.effective;
    policy.update_strategy.type = core::UpdateMode::Auto;
    const auto annotations = core::annotations_of(in.policy);
    std::optional<std::string> anchor;
    if (const auto it = annotations.find(core::kLastResizeTimeAnnotation); it != annotations.end()) anchor = it->second;
    std::set<std::string> idle;
    if (const auto* iw = core::array_at(in.policy, {"status", "idleWorkloads"}))
        for (const auto& w : *iw)
            idle.insert(std::string(core::string_at(w, {"kind"})) + "/" +
                        std::string(core::string_at(w, {"workload"})));

    // One pass over every workload, as if each ran before any resize
    // settled: the cycle this pass opens counts every resize it would send.
    const std::string policy_key = ns + "/" + name;
    core::ResizeCycleBook book;
    const core::Pod no_pod;
    for (auto& rec : recs.value()) {
        if (const auto* e = status_entry(in.policy, rec)) add_observed_usage(rec, *e);
        const std::string wkey = rec.kind + "/" + rec.workload;
        const auto targets = core::resize_targets(rec.recommendation, policy);
        auto row_base = [&](const core::Pod& pod) {
            json::object r;
            r["namespace"] = ns;
            r["policy"] = name;
            r["kind"] = rec.kind;
            r["workload"] = rec.workload;
            r["target"] = wkey;
            r["pod"] = pod.name.empty() ? json::value(nullptr) : json::value(pod.name);
            r["node"] = pod.node_name.empty() ? json::value(nullptr) : json::value(pod.node_name);
            return r;
        };
        // One row per targeted container the pod has; a pod without any (or
        // no pod) gets one row that says why.
        auto emit = [&](const core::Pod& pod, const core::Pod& planned, const Verdict& v) {
            json::object verdict = row_base(pod);
            verdict["container"] = nullptr;
            verdict["action"] = v.action;
            verdict["reason"] = v.reason.empty() ? json::value(nullptr) : json::value(v.reason);
            verdict["message"] = v.message.empty() ? json::value(nullptr) : json::value(v.message);
            for (const char* k : {"current", "proposed", "cpu", "memory"}) verdict[k] = nullptr;
            verdict["dropped"] = v.dropped;
            json::array un;
            for (const auto& u : v.unavailable) un.emplace_back(u);
            verdict["unavailable"] = std::move(un);
            bool any = false;
            for (const auto& t : targets.targets) {
                const auto* live = pod.find_container(t.name);
                if (!live) continue;
                const auto* next = planned.find_container(t.name);
                const auto& to = next ? next->resources : live->resources;
                json::object r = verdict;
                r["container"] = t.name;
                r["current"] = values_json(live->resources);
                r["proposed"] = values_json(to);
                r["cpu"] = change_text(live->resources, to, core::kCpu);
                r["memory"] = change_text(live->resources, to, core::kMemory);
                out.rows.push_back(std::move(r));
                any = true;
            }
            if (!any) out.rows.push_back(std::move(verdict));
        };

        const auto wit = in.workloads.find(wkey);
        if (wit == in.workloads.end() || !wit->second.object.value || !wit->second.pods.value) {
            const std::string why = wit == in.workloads.end()   ? "not read"
                                    : !wit->second.object.value ? wit->second.object.error
                                                                : wit->second.pods.error;
            emit(no_pod, no_pod, {"unknown", "workload_unread", wkey + ": " + why, {}, {wkey + ": " + why}});
            continue;
        }
        std::vector<core::Pod> pods;
        for (const auto& pj : *wit->second.pods.value) {
            auto p = core::decode_pod(pj);
            if (p) pods.push_back(std::move(p).value());
            else
                out.notes.push_back(wkey +
                                    ": a pod does not decode, and the executor leaves it alone: " + p.error().message);
        }
        std::sort(pods.begin(), pods.end(), [](const core::Pod& a, const core::Pod& b) { return a.name < b.name; });
        if (pods.empty()) {
            emit(no_pod, no_pod, {"none", "no_pods", wkey + " has no pods", {}, {}});
            continue;
        }
        core::PlanOptions base_opts;
        base_opts.memory_floor_headroom_percent =
            static_cast<unsigned>(std::max(0, policy.memory.decrease_usage_margin_percent));
        // The values a pod would get once nothing holds it (plan_resize alone).
        auto plan_of = [&](const core::Pod& pod, const core::PlanOptions& opts) {
            auto plan = core::plan_resize(pod, targets.targets, in.caps, targets.controlled_values, opts);
            if (auto* p = std::get_if<core::ResizePlan>(&plan)) return p->planned;
            return pod;
        };
        // The workload's own holds, before any pod is looked at (the executor's process()).
        std::optional<Verdict> workload_hold;
        if (policy.paused) workload_hold = Verdict{"hold", "paused", "the policy is paused (spec.paused)", {}, {}};
        else if (idle.contains(wkey))
            workload_hold = Verdict{"hold",
                                    "idle",
                                    wkey + " is idle (status.idleWorkloads): idle workloads are not resized",
                                    {},
                                    {}};
        else if (rec.recommendation.stale)
            workload_hold =
                Verdict{"hold", "stale", "the recommendation is stale: the executor resizes nothing on it", {}, {}};
        else if (targets.targets.empty())
            workload_hold = Verdict{"none", "no_target", "the recommendation targets no container", {}, {}};
        if (workload_hold) {
            for (const auto& p : pods) emit(p, plan_of(p, base_opts), *workload_hold);
            continue;
        }

        core::EligibilityContext ectx;
        ectx.workload_annotations = core::annotations_of(*wit->second.object.value);
        ectx.namespace_annotations = in.namespace_annotations.value;
        std::vector<core::PassCandidate> candidates;
        std::vector<core::Eligibility> eligibility;
        for (const auto& p : pods) {
            auto e = core::check_pod_eligibility(p, ectx);
            candidates.push_back({p.name, e.eligible, false});
            eligibility.push_back(std::move(e));
        }
        // Each pod's verdict and values, emitted in pod order at the end.
        std::vector<std::pair<core::Pod, Verdict>> decided(pods.size());
        for (std::size_t i = 0; i < pods.size(); ++i) {
            Verdict v = ineligible(eligibility[i]);
            if (v.reason == "namespace_unknown" && !in.namespace_annotations.value) {
                v.action = "unknown";
                v.unavailable.push_back("namespace " + ns + ": " + in.namespace_annotations.error);
            }
            decided[i] = {pods[i], std::move(v)};
        }
        const auto sel = core::select_pass_pods(policy.update_strategy.type, candidates);
        for (const auto i : sel.pods) {
            const core::Pod& pod = pods[i];
            Verdict v;
            core::ResizeGateInputs g = core::policy_gate_inputs(policy, history, anchor, in.now);
            core::apply_cycle(g, book.view(policy_key));
            if (!g.schedule.windows.empty()) g.zone = in.zone;
            core::PlanOptions opts = base_opts;
            bool headroom_unknown = false;
            if (const auto nit = in.nodes.find(pod.node_name); nit != in.nodes.end() && nit->second.object.value) {
                opts.node = core::decode_node_probe(*nit->second.object.value);
                if (auto facts = core::decode_node_facts(*nit->second.object.value)) g.node = std::move(facts).value();
                else v.unavailable.push_back("node " + pod.node_name + ": " + facts.error().message);
                if (nit->second.pods.value) {
                    std::vector<core::Pod> others;
                    for (const auto& pj : *nit->second.pods.value)
                        if (auto p = core::decode_pod(pj)) others.push_back(std::move(p).value());
                    g.node_others_requests = core::sum_pod_requests(others, pod.uid);
                } else {
                    headroom_unknown = true;
                    v.unavailable.push_back("node " + pod.node_name +
                                            " headroom (its pods could not be listed: " + nit->second.pods.error + ")");
                }
            } else {
                v.unavailable.push_back("node " + pod.node_name + ": " +
                                        (nit == in.nodes.end() ? std::string("not read") : nit->second.object.error));
            }
            if (in.limit_ranges.value) g.limit_ranges = *in.limit_ranges.value;
            else v.unavailable.push_back("LimitRanges in " + ns + ": " + in.limit_ranges.error);
            if (in.quotas.value) g.quotas = *in.quotas.value;
            else v.unavailable.push_back("ResourceQuotas in " + ns + ": " + in.quotas.error);

            auto decision = core::decide_resize(pod, targets.targets, in.caps, targets.controlled_values, opts, g);
            core::Pod planned = pod;
            if (auto* go = std::get_if<core::ResizeGo>(&decision)) {
                // It takes a slot and budget, as the executor counts it before its PATCH.
                book.submit(policy_key, wkey, pod.uid, go->increase);
                planned = go->plan.planned;
                v.action = "resize";
                for (const auto& d : go->dropped)
                    v.dropped.push_back(
                        json::object{{"gate", d.gate}, {"resource", d.resource}, {"message", d.message}});
                // Room was checked without the other pods the CLI could not count,
                // or admission limits it could not read.
                if ((!go->increase.empty() && (headroom_unknown || !g.node)) || !in.limit_ranges.value ||
                    !in.quotas.value)
                    v.action = "unknown";
            } else {
                const auto& held = std::get<core::ResizeHeld>(decision);
                v.reason = held.reason;
                v.message = held.message;
                if (held.reason == "no_change") v.action = "none";
                else if (held.reason == "max_concurrent_resizes") v.action = "defer";
                else v.action = "hold";
                planned = plan_of(pod, opts);
                const bool gate_unread = (node_gate(held.reason) && (!g.node || headroom_unknown)) ||
                                         (held.reason == "limit_range" && !in.limit_ranges.value) ||
                                         (held.reason == "resource_quota" && !in.quotas.value);
                if (gate_unread) v.action = "unknown";
            }
            decided[i] = {std::move(planned), std::move(v)};
        }
        for (std::size_t i = 0; i < pods.size(); ++i) emit(pods[i], decided[i].first, decided[i].second);
    }
    out.notes.push_back(
        "the preview starts from no open resize cycle: resizes the manager has in flight, the budget they used and "
        "pods it reverted or the apiserver refused at these values are in the manager's memory, not in the API");
    return out;
}

std::vector<Column> preview_columns(bool all_namespaces) {
    std::vector<Column> c;
    if (all_namespaces) c.push_back({"NAMESPACE", "namespace"});
    c.insert(c.end(), {{"POLICY", "policy"},
                       {"WORKLOAD", "target"},
                       {"POD", "pod"},
                       {"CONTAINER", "container"},
                       {"NODE", "node", true},
                       {"CPU", "cpu"},
                       {"MEMORY", "memory"},
                       {"ACTION", "action"},
                       {"REASON", "reason"},
                       {"MESSAGE", "message"},
                       {"UNAVAILABLE", "unavailable", true}});
    return c;
}

}  // namespace attune::cli
