#include "explain_report.hpp"

#include "object_fields.hpp"

#include <attune/core/policy/annotations.hpp>
#include <attune/policy/policy_selection.hpp>
#include <attune/core/util/json_path.hpp>
#include <attune/core/model/label_selector.hpp>
#include <attune/core/model/readable_units.hpp>
#include <attune/core/resize/resize_history.hpp>

#include <boost/json.hpp>

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <set>

namespace attune::cli {

namespace json = boost::json;

namespace {

std::string num(double v, const char* fmt = "%g") {
    char buf[32];
    std::snprintf(buf, sizeof buf, fmt, v);
    return buf;
}

json::object attune_annotations(const json::value& obj) {
    json::object out;
    if (const auto* a = core::object_at(obj, {"metadata", "annotations"}))
        for (const auto& kv : *a)
            if (kv.key().starts_with(core::kKeyPrefix) && kv.value().is_string()) out[kv.key()] = kv.value();
    return out;
}

json::object step(std::string name, std::string_view value, std::string note = {}) {
    json::object s;
    s["step"] = std::move(name);
    s["value"] = value;
    s["note"] = str_or_null(note);
    return s;
}

// The estimator's chain for one resource, from status.recommendations[].containers[].explanation.<r>.
json::array chain_steps(const json::value& e, int percentile) {
    json::array out;
    const std::string p = percentile > 0 ? "p" + std::to_string(percentile) : "percentile";
    out.push_back(step(p + " of usage", core::string_at(e, {"rawPercentile"})));
    out.push_back(step("+" + num(number_at(e, "overhead")) + "% overhead", core::string_at(e, {"afterOverhead"})));
    const double burst = number_at(e, "burstFactor", 1);
    out.push_back(step("x" + num(burst) + " burst factor", core::string_at(e, {"afterBurst"}),
                       burst == 1 ? "no burst" : ""));
    out.push_back(step("x" + num(number_at(e, "confidenceFactor", 1)) + " for confidence " +
                           core::readable_percent(number_at(e, "confidence")),
                       core::string_at(e, {"afterConfidence"})));
    const auto applied = core::string_at(e, {"boundsApplied"});
    out.push_back(step("bounds [" + std::string(core::string_at(e, {"bounds", "min"})) + ", " +
                           std::string(core::string_at(e, {"bounds", "max"})) + "]",
                       core::string_at(e, {"afterBounds"}),
                       applied == "min" ? "raised to minAllowed" : applied == "max" ? "capped at maxAllowed" : ""));
    const auto filter = core::string_at(e, {"changeFilterApplied"});
    out.push_back(step("change filter (min " + num(number_at(e, "minChangePercent")) + "%, max " +
                           num(number_at(e, "maxChangePercent")) + "%)",
                       core::string_at(e, {"afterChangeFilter"}),
                       filter == "min_change_filtered" ? "change below the minimum: current kept"
                       : filter == "max_change_capped" ? "step capped at the maximum change"
                                                       : ""));
    out.push_back(step("final", core::string_at(e, {"final"}), std::string(core::string_at(e, {"finalAdjustment"}))));
    return out;
}

std::string resources_text(const json::value* r) {
    if (r == nullptr) return "none";
    auto one = [&](std::string_view res) {
        const auto req = core::string_at(*r, {"requests", res});
        const auto lim = core::string_at(*r, {"limits", res});
        if (req.empty() && lim.empty()) return std::string();
        return std::string(res) + " " + (req.empty() ? "-" : std::string(req)) + (lim.empty() ? "" : "/" + std::string(lim));
    };
    std::string out = one("cpu");
    const auto mem = one("memory");
    if (!mem.empty()) out += (out.empty() ? "" : ", ") + mem;
    return out.empty() ? "none" : out;
}

// 1.33+: PodResizePending / PodResizeInProgress; 1.32: status.resize.
std::string resize_state(const json::value& pod) {
    std::string pending, progress;
    if (const auto* conds = core::array_at(pod, {"status", "conditions"}))
        for (const auto& c : *conds) {
            if (core::string_at(c, {"status"}) != "True") continue;
            const auto type = core::string_at(c, {"type"});
            if (type == "PodResizePending") pending = "Pending/" + std::string(core::string_at(c, {"reason"}));
            if (type == "PodResizeInProgress") {
                progress = "InProgress";
                if (const auto reason = core::string_at(c, {"reason"}); !reason.empty())
                    progress += "/" + std::string(reason) + ": " + std::string(core::string_at(c, {"message"}));
            }
        }
    if (!pending.empty()) return pending;
    if (!progress.empty()) return progress;
    if (const auto field = core::string_at(pod, {"status", "resize"}); !field.empty()) return std::string(field);
    return "none";
}

std::optional<core::Timestamp> event_time(const json::value& ev) {
    for (auto path : {core::JsonPath{"series", "lastObservedTime"}, core::JsonPath{"eventTime"},
                      core::JsonPath{"deprecatedLastTimestamp"}, core::JsonPath{"metadata", "creationTimestamp"}}) {
        if (auto t = core::parse_timestamp(core::string_at(ev, path))) return t.value();
    }
    return std::nullopt;
}

bool is_name_char(char c) {
    return std::isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '.' || c == '_';
}

// `name` appears in `text` as a whole name (not inside "webhook" for "web").
bool names(std::string_view text, std::string_view name) {
    if (name.empty()) return false;
    for (std::size_t at = text.find(name); at != std::string_view::npos; at = text.find(name, at + 1)) {
        const bool left = at == 0 || !is_name_char(text[at - 1]);
        const std::size_t end = at + name.size();
        const bool right = end >= text.size() || !is_name_char(text[end]) ||
                           (text[end] == '.' && (end + 1 >= text.size() || !is_name_char(text[end + 1])));
        if (left && right) return true;
    }
    return false;
}

// The kubelet holds this pod's resize: Deferred or Infeasible, as either mechanism reports it.
bool kubelet_blocked(std::string_view state) {
    return state == "Pending/Deferred" || state == "Pending/Infeasible" || state == "Deferred" || state == "Infeasible";
}

json::object reason(std::string kind, std::string text) {
    json::object r;
    r["kind"] = std::move(kind);
    r["text"] = std::move(text);
    return r;
}

}  // namespace

json::object explain_report(const ExplainInputs& in) {
    json::object report;
    json::array reasons;

    // -- the workload
    json::object w;
    w["namespace"] = in.ns;
    w["kind"] = in.kind;
    w["name"] = in.name;
    w["found"] = in.workload.found();
    policy::WorkloadRef ref;
    if (in.workload.found()) {
        ref = policy::workload_ref_from(in.kind, *in.workload.object);
        w["annotations"] = attune_annotations(*in.workload.object);
    } else {
        ref.ns = in.ns;
        ref.kind = in.kind;
        ref.name = in.name;
        w["annotations"] = json::object();
    }
    w["optedOut"] = ref.opted_out;
    report["workload"] = std::move(w);

    // -- its pods (the workload's selector over the listed candidates)
    std::vector<const json::value*> own_pods;
    if (in.workload.found())
        if (auto s = core::parse_label_selector(core::json_at(*in.workload.object, {"spec", "selector"}));
            s && !s.value().selects_everything())
            for (const auto& p : in.pods)
                if (core::string_at(p, {"metadata", "namespace"}) == in.ns && s.value().matches(core::labels_of(p)))
                    own_pods.push_back(&p);
    const bool own_pod_blocked =
        std::any_of(own_pods.begin(), own_pods.end(), [](const json::value* p) { return kubelet_blocked(resize_state(*p)); });

    // -- which policy manages it: the manager's own rule
    std::vector<policy::PolicyView> views;
    std::map<std::string, const json::value*> by_name;
    for (const auto& p : in.policies) {
        auto v = policy::decode_policy(p);
        if (!v) continue;
        by_name[v.value().name] = &p;
        views.push_back(std::move(v).value());
    }
    const auto sel = policy::select_policy(views, ref);
    const json::value* policy = sel.winner.empty() ? nullptr : by_name[sel.winner];
    const core::EffectivePolicy* eff = nullptr;
    if (auto it = in.effective.find(sel.winner); it != in.effective.end()) eff = &it->second;
    std::string refusal;  // why the winner has no settings
    if (auto it = in.refused.find(sel.winner); policy != nullptr && !eff && it != in.refused.end()) refusal = it->second;

    json::array others;
    for (const auto& l : sel.losers) others.push_back(json::string(l));
    report["otherPolicies"] = std::move(others);

    if (ref.owned_by_workload)
        reasons.push_back(reason("selection", "owned by another workload (a Deployment's ReplicaSet or a CronJob's "
                                              "Job): its owner is the target, not it"));
    if (ref.opted_out) {
        std::string who;
        for (const auto& p : sel.opted_out_of) who += (who.empty() ? "" : ", ") + p;
        reasons.push_back(reason("optout", "opted out: annotated attune.io/skip=true" +
                                               (who.empty() ? std::string() : " (targeted by " + who + ")")));
    }
    for (const auto& l : sel.losers)
        reasons.push_back(reason("selection", "also targeted by policy " + l + ", outranked by " + sel.winner +
                                                  " (higher weight, then the smaller name): PolicyConflict"));
    if (policy == nullptr && !ref.opted_out && !ref.owned_by_workload)
        reasons.push_back(reason("selection", "no AttunePolicy in " + in.ns + " targets " + in.kind + "/" + in.name));

    // -- the policy and what its status says about the workload
    std::string mode = "Recommend";
    bool paused = false;
    const json::value* rec = nullptr;
    report["policy"] = nullptr;
    if (policy != nullptr) {
        if (eff) mode = std::string(core::to_string(eff->update_strategy.type));
        else if (auto m = core::string_at(*policy, {"spec", "updateStrategy", "type"}); !m.empty()) mode = std::string(m);
        paused = eff ? eff->paused : core::bool_at(*policy, {"spec", "paused"}).value_or(false);
        const auto* ready = find_condition(*policy, "Ready");
        json::object p;
        p["name"] = sel.winner;
        p["mode"] = mode;
        p["paused"] = paused;
        p["phase"] = ready ? json::value(core::string_at(*ready, {"reason"})) : json::value(nullptr);
        p["reason"] = "its spec.targetRef selects " + in.kind + "/" + in.name;
        p["configError"] = str_or_null(refusal);
        report["policy"] = std::move(p);

        if (!refusal.empty())
            reasons.push_back(reason("config", "policy " + sel.winner +
                                                   " has no valid settings, so it sizes and resizes nothing: " + refusal));

        if (paused) reasons.push_back(reason("paused", "policy " + sel.winner + " is paused (spec.paused)"));
        if (mode == "Observe" || mode == "Recommend")
            reasons.push_back(reason("mode", "mode " + mode + ": the policy " +
                                                 (mode == "Observe" ? "only observes" : "only recommends") +
                                                 ", it never resizes (use OneShot, Canary or Auto)"));
        if (ready && core::string_at(*ready, {"status"}) != "True")
            reasons.push_back(reason("condition", "Ready=False " + std::string(core::string_at(*ready, {"reason"})) +
                                                      ": " + std::string(core::string_at(*ready, {"message"}))));
        for (const char* type : {"Resizing", "ScheduleBlocked", "ResizeBlocked", "Degraded"}) {
            const auto* c = find_condition(*policy, type);
            if (c == nullptr) continue;
            const auto status = core::string_at(*c, {"status"});
            const auto why = core::string_at(*c, {"reason"});
            // Resizing=True and ScheduleBlocked=False are good news; the rest explain a wait.
            if ((std::string_view(type) == "Resizing" && (status == "True" || why == "Idle")) ||
                (std::string_view(type) != "Resizing" && status != "True"))
                continue;
            // ResizeBlocked is the policy's: it concerns this workload only when the kubelet holds
            // one of its own pods (with no pods listed, it cannot be told apart, so it is kept).
            if (std::string_view(type) == "ResizeBlocked" && !own_pods.empty() && !own_pod_blocked) continue;
            reasons.push_back(reason("condition", std::string(type) + "=" + std::string(status) + " " +
                                                      std::string(why) + ": " + std::string(core::string_at(*c, {"message"}))));
        }
        if (const auto* idle = core::array_at(*policy, {"status", "idleWorkloads"}))
            for (const auto& e : *idle)
                if (core::string_at(e, {"kind"}) == in.kind && core::string_at(e, {"workload"}) == in.name) {
                    report["idle"] = json::object{{"reason", core::string_at(e, {"reason"})}};
                    reasons.push_back(reason("idle", "idle (" + std::string(core::string_at(e, {"reason"})) +
                                                         "): Attune does not resize a workload held at zero"));
                }
        if (const auto* recs = core::array_at(*policy, {"status", "recommendations"}))
            for (const auto& r : *recs)
                if (core::string_at(r, {"kind"}) == in.kind && core::string_at(r, {"workload"}) == in.name) rec = &r;
    }
    if (!report.contains("idle")) report["idle"] = nullptr;

    // -- the recommendation, step by step
    bool all_unchanged = rec != nullptr;
    if (rec != nullptr) {
        json::object r;
        const bool stale = core::bool_at(*rec, {"stale"}).value_or(false);
        r["stale"] = stale;
        r["lastDataTime"] = str_or_null(core::string_at(*rec, {"lastDataTime"}));
        json::array containers;
        if (const auto* cs = core::array_at(*rec, {"containers"}))
            for (const auto& c : *cs) {
                const std::string cname(core::string_at(c, {"name"}));
                if (!in.container.empty() && cname != in.container) continue;
                json::object o;
                o["name"] = cname;
                o["confidence"] = number_at(c, "confidence");
                o["dataPoints"] = core::int_at(c, {"dataPoints"}).value_or(0);
                o["lastUpdated"] = str_or_null(core::string_at(c, {"lastUpdated"}));
                o["current"] = resource_values(core::json_at(c, {"current"}));
                o["recommended"] = resource_values(core::json_at(c, {"recommended"}));
                if (o["current"] != o["recommended"]) all_unchanged = false;
                json::object steps;
                for (auto [key, kind] : {std::pair{"cpu", core::ResourceKind::Cpu}, std::pair{"memory", core::ResourceKind::Memory}}) {
                    const auto* e = core::json_at(c, {"explanation", key});
                    if (e == nullptr) continue;
                    const int pct = eff ? eff->tuning_for(cname, kind).percentile : 0;
                    steps[key] = chain_steps(*e, pct);
                }
                o["steps"] = std::move(steps);
                containers.push_back(std::move(o));
            }
        r["containers"] = std::move(containers);
        report["recommendation"] = std::move(r);
        if (stale) reasons.push_back(reason("stale", "the recommendation is stale (cached data): no resize until fresh data"));
    } else {
        report["recommendation"] = nullptr;
        if (policy != nullptr && !report["idle"].is_object())
            reasons.push_back(reason("no-recommendation", "policy " + sel.winner +
                                                              " has no recommendation for it yet (status.recommendations)"));
    }
    if (rec != nullptr && all_unchanged)
        reasons.push_back(reason("unchanged", "recommended equals current for every container: nothing to change"));

    // -- the history
    json::array history;
    std::string last_result;
    if (policy != nullptr)
        if (const auto* h = core::json_at(*policy, {"status", "resizeHistory"})) {
            if (auto decoded = core::decode_history(*h)) {
                for (const auto& e : decoded.value()) {
                    if (e.workload != in.name || (!in.container.empty() && e.container != in.container)) continue;
                    history.push_back(core::history_entry_json(e));
                    last_result = std::string(core::history_result_name(e.result));
                    // A reason is prose for people: the numbers readable (the history keeps them exact).
                    const auto res = core::history_resource_name(e.resource);
                    if (e.result != core::HistoryResult::Success && e.result != core::HistoryResult::TemplatePatched)
                        reasons.push_back(
                            reason("history", core::format_timestamp(e.timestamp) + " " + e.container + " " +
                                                  std::string(res) + " " + core::readable_history_text(res, e.from) +
                                                  " -> " + core::readable_history_text(res, e.to) + ": " + last_result +
                                                  (e.reason.empty() ? "" : " (" + e.reason + ")")));
                }
            } else {
                reasons.push_back(reason("history", "status.resizeHistory does not decode: " + decoded.error().message));
            }
        }
    report["history"] = std::move(history);

    // -- its pods
    json::array pods;
    std::set<std::string> pod_names;
    bool pending = false;
    for (const json::value* pp : own_pods) {
        const json::value& p = *pp;
        json::object o;
        const std::string pname(core::string_at(p, {"metadata", "name"}));
        pod_names.insert(pname);
        o["name"] = pname;
        o["node"] = str_or_null(core::string_at(p, {"spec", "nodeName"}));
        json::object res;
        if (const auto* cs = core::array_at(p, {"spec", "containers"}))
            for (const auto& c : *cs) res[core::string_at(c, {"name"})] = resources_text(core::json_at(c, {"resources"}));
        o["resources"] = std::move(res);
        const auto* envelope = core::json_at(p, {"spec", "resources"});
        o["envelope"] = envelope ? json::value(resources_text(envelope)) : json::value(nullptr);
        const auto state = resize_state(p);
        if (state != "none") pending = true;
        o["resizeState"] = state;
        o["annotations"] = attune_annotations(p);
        if (state.starts_with("Pending/"))
            reasons.push_back(reason("pod", "pod " + pname + ": resize " + state + " (the kubelet has not applied it)"));
        pods.push_back(std::move(o));
    }
    report["pods"] = std::move(pods);

    // -- Events that name it, its pods, or come from its policy about it
    struct Dated {
        core::Timestamp t;
        json::object e;
    };
    std::vector<Dated> events;
    for (const auto& ev : in.events) {
        const auto rk = core::string_at(ev, {"regarding", "kind"});
        const auto rn = core::string_at(ev, {"regarding", "name"});
        const auto note = core::string_at(ev, {"note"});
        bool about = (rk == in.kind && rn == in.name) || (rk == "Pod" && pod_names.contains(std::string(rn)));
        if (!about && rk == "AttunePolicy" && rn == sel.winner) {
            about = names(note, in.name);
            for (const auto& pn : pod_names) about = about || names(note, pn);
        }
        if (!about) continue;
        json::object e;
        const auto t = event_time(ev);
        e["time"] = t ? json::value(core::format_timestamp(*t)) : json::value(nullptr);
        e["type"] = core::string_at(ev, {"type"});
        e["reason"] = core::string_at(ev, {"reason"});
        e["regarding"] = std::string(rk) + "/" + std::string(rn);
        e["note"] = note;
        e["count"] = core::int_at(ev, {"series", "count"}).value_or(1);
        events.push_back({t.value_or(core::Timestamp{}), std::move(e)});
    }
    std::stable_sort(events.begin(), events.end(), [](const Dated& a, const Dated& b) { return a.t < b.t; });
    if (events.size() > 20) events.erase(events.begin(), events.end() - 20);
    json::array evs;
    std::set<std::string> seen_reasons;
    for (auto it = events.rbegin(); it != events.rend(); ++it) {
        // The newest of each Warning (and of Attune's no-op) explains the wait.
        const std::string r(it->e["reason"].as_string());
        if ((it->e["type"].as_string() == "Warning" || r == "ResizeUnchanged" || r == "CooldownActive" ||
             r == "ScheduleSkipped" || r == "DecreaseSuppressed") &&
            seen_reasons.insert(r).second)
            reasons.push_back(reason("event", r + ": " + std::string(it->e["note"].as_string())));
    }
    for (auto& d : events) evs.push_back(std::move(d.e));
    report["events"] = std::move(evs);

    std::string verdict;
    if (policy == nullptr && !ref.opted_out)
        verdict = "not managed";
    else if (last_result == "Success" || last_result == "TemplatePatched" || last_result == "Evicted")
        verdict = "resized";
    else if (last_result == "Reverted")
        verdict = "reverted";
    else if (last_result == "Failed")
        verdict = "failed";
    else if (last_result == "Held") verdict = "held";
    else if (pending && policy != nullptr)
        verdict = "pending";
    else
        verdict = "not resized";
    report["verdict"] = verdict;
    report["reasons"] = std::move(reasons);
    return report;
}

std::string render_explain(const json::object& r) {
    std::string out;
    auto s = [](const json::value& v, std::string_view k) { return std::string(core::string_at(v, {k})); };
    // Text for people: quantities as they read them (the JSON keeps them exact).
    auto readable = [&s](std::string_view res, const json::value& v, std::string_view k) {
        return core::readable_quantity(res, s(v, k));
    };
    const auto& w = r.at("workload");
    out += s(w, "kind") + " " + s(w, "namespace") + "/" + s(w, "name");
    if (const auto& p = r.at("policy"); p.is_object()) {
        out += "   policy " + s(p, "name") + " (" + s(p, "mode");
        if (core::bool_at(p, {"paused"}).value_or(false)) out += ", paused";
        if (const auto phase = s(p, "phase"); !phase.empty()) out += ", " + phase;
        out += ")";
    } else {
        out += "   no managing policy";
    }
    out += "\n";
    if (const auto& rec = r.at("recommendation"); rec.is_object()) {
        if (core::bool_at(rec, {"stale"}).value_or(false)) out += "  (stale: cached data)\n";
        for (const auto& c : rec.at("containers").as_array()) {
            out += "\ncontainer " + s(c, "name") + "   confidence " +
                   core::readable_percent(number_at(c, "confidence")) + ", " +
                   std::to_string(core::int_at(c, {"dataPoints"}).value_or(0)) + " data points";
            if (const auto u = s(c, "lastUpdated"); !u.empty()) out += ", updated " + u;
            out += "\n";
            const auto& cur = c.at("current");
            const auto& want = c.at("recommended");
            for (auto [label, key] : {std::pair{"cpu request", "cpuRequest"}, std::pair{"cpu limit", "cpuLimit"},
                                      std::pair{"memory request", "memoryRequest"}, std::pair{"memory limit", "memoryLimit"}}) {
                std::string line = std::string("  ") + label;
                line.resize(18, ' ');
                const std::string_view res = std::string_view(key).starts_with("cpu") ? "cpu" : "memory";
                out += line + readable(res, cur, key) + " -> " + readable(res, want, key) + "\n";
            }
            const auto& steps = c.at("steps").as_object();
            for (const char* res : {"cpu", "memory"}) {
                const auto* st = steps.if_contains(res);
                if (st == nullptr) continue;
                out += "  " + std::string(res) + " request, step by step:\n";
                int i = 1;
                for (const auto& x : st->as_array()) {
                    std::string line = "    " + std::to_string(i++) + ". " + s(x, "step");
                    if (line.size() < 48) line.resize(48, ' ');
                    line += "  " + core::readable_quantity(res, s(x, "value"));
                    if (const auto& n = x.at("note"); n.is_string()) line += "   (" + std::string(n.as_string()) + ")";
                    out += line + "\n";
                }
            }
        }
    } else {
        out += "\nno recommendation in the policy's status\n";
    }
    out += "\nResize: " + std::string(r.at("verdict").as_string()) + "\n";
    for (const auto& x : r.at("reasons").as_array()) out += "  - " + s(x, "text") + "\n";
    if (const auto& h = r.at("history").as_array(); !h.empty()) {
        out += "\nHistory:\n";
        for (const auto& e : h) {
            const auto res = s(e, "resource");
            out += "  " + s(e, "timestamp") + "  " + s(e, "container") + "  " + res + "  " +
                   core::readable_history_text(res, s(e, "from")) + " -> " +
                   core::readable_history_text(res, s(e, "to")) + "  " + s(e, "method") + " " + s(e, "result");
            if (const auto why = s(e, "reason"); !why.empty()) out += " (" + why + ")";
            out += "\n";
        }
    }
    if (const auto& ev = r.at("events").as_array(); !ev.empty()) {
        out += "\nEvents:\n";
        for (const auto& e : ev) {
            out += "  " + (e.at("time").is_string() ? s(e, "time") : std::string("-")) + "  " + s(e, "type") + "  " +
                   s(e, "reason") + "  " + s(e, "regarding") + ": " + s(e, "note") + "\n";
        }
    }
    if (const auto& pods = r.at("pods").as_array(); !pods.empty()) {
        out += "\nPods:\n";
        for (const auto& p : pods) {
            out += "  " + s(p, "name") + "  resize " + s(p, "resizeState");
            for (const auto& kv : p.at("resources").as_object())
                out += "  " + std::string(kv.key()) + ": " +
                       core::readable_history_text("cpu+memory", kv.value().as_string());
            if (const auto& env = p.at("envelope"); env.is_string())
                out += "  envelope: " + core::readable_history_text("cpu+memory", env.as_string());
            out += "\n";
            for (const auto& kv : p.at("annotations").as_object())
                out += "      " + std::string(kv.key()) + "=" + std::string(kv.value().as_string()) + "\n";
        }
    }
    return out;
}

}  // namespace attune::cli
