#include "status_records.hpp"

#include "object_fields.hpp"

#include <attune/core/model/readable_units.hpp>
#include <attune/core/resize/resize_history.hpp>
#include <attune/core/util/json_path.hpp>

#include <boost/json.hpp>

#include <algorithm>
#include <cctype>
#include <cstdio>

namespace attune::cli {

namespace json = boost::json;

namespace {

std::int64_t count_at(const json::value& policy, std::string_view key) {
    return core::int_at(policy, {"status", "workloads", key}).value_or(0);
}

std::string values_arrow(const json::value* current, const json::value* recommended, std::string_view key) {
    auto text = [&](const json::value* v) {
        const auto s = v ? core::string_at(*v, {key}) : std::string_view();
        return s.empty() ? std::string("0") : std::string(s);
    };
    return text(current) + " -> " + text(recommended);
}

// The table's "current -> recommended" for one field of the record
// (cpuRequest, memoryLimit, ...), as people read it: "500m -> 250m", "256Mi -> 234Mi".
std::string readable_arrow(const json::value& record, std::string_view key) {
    const std::string_view resource = key.starts_with("cpu") ? core::kCpu : core::kMemory;
    auto text = [&](std::string_view side) {
        const auto q = core::string_at(record, {side, key});
        return core::readable_quantity(resource, q.empty() ? "0" : q);
    };
    return text("current") + " -> " + text("recommended");
}

std::string history_side_text(const json::value& record, std::string_view side) {
    return core::readable_history_text(core::string_at(record, {"resource"}), core::string_at(record, {side}));
}

std::string confidence_text(double c) {
    char buf[16];
    std::snprintf(buf, sizeof buf, "%.2f", c);
    return buf;
}

}  // namespace

bool workload_matches(const std::string& filter, std::string_view kind, std::string_view name) {
    if (filter.empty()) return true;
    const auto slash = filter.find('/');
    if (slash == std::string::npos) return filter == name;
    const std::string_view fk = std::string_view(filter).substr(0, slash);
    const std::string_view fn = std::string_view(filter).substr(slash + 1);
    // kubectl's spellings too: deployment, deployments, deploy, sts, ds, rs.
    return fn == name && canonical_kind(fk) == kind;
}

json::object status_record(const json::value& policy, const core::EffectivePolicy* effective) {
    json::object r;
    r["namespace"] = core::string_at(policy, {"metadata", "namespace"});
    r["name"] = core::string_at(policy, {"metadata", "name"});
    std::string mode;
    if (effective != nullptr) mode = std::string(core::to_string(effective->update_strategy.type));
    if (mode.empty()) mode = core::string_at(policy, {"spec", "updateStrategy", "type"});
    if (mode.empty()) mode = "Recommend";
    r["mode"] = mode;
    const bool paused = effective ? effective->paused : core::bool_at(policy, {"spec", "paused"}).value_or(false);
    r["paused"] = paused;

    const auto* ready = find_condition(policy, "Ready");
    std::string phase;
    if (paused)
        phase = "Paused";
    else if (condition_true(policy, "Degraded"))
        phase = "Degraded";
    else if (condition_true(policy, "Resizing"))
        phase = "Resizing";
    else if (ready != nullptr && !core::string_at(*ready, {"reason"}).empty())
        phase = core::string_at(*ready, {"reason"});
    else
        phase = core::json_at(policy, {"status"}) != nullptr ? "Unknown" : "Pending";
    r["phase"] = phase;
    r["message"] = str_or_null(ready ? core::string_at(*ready, {"message"}) : std::string_view());

    json::object w;
    for (const char* k : {"discovered", "withRecommendations", "resized", "pending", "deferred", "infeasible"})
        w[k] = count_at(policy, k);
    r["workloads"] = std::move(w);

    json::array idle;
    if (const auto* list = core::array_at(policy, {"status", "idleWorkloads"}))
        for (const auto& e : *list)
            idle.push_back(json::object{{"workload", core::string_at(e, {"workload"})},
                                        {"kind", core::string_at(e, {"kind"})},
                                        {"reason", core::string_at(e, {"reason"})}});
    r["idle"] = static_cast<std::int64_t>(idle.size());
    r["idleWorkloads"] = std::move(idle);

    json::array conds, summary;
    if (const auto* list = core::array_at(policy, {"status", "conditions"}))
        for (const auto& c : *list) {
            const auto type = core::string_at(c, {"type"});
            const auto status = core::string_at(c, {"status"});
            conds.push_back(json::object{{"type", type},
                                         {"status", status},
                                         {"reason", core::string_at(c, {"reason"})},
                                         {"message", core::string_at(c, {"message"})},
                                         {"lastTransitionTime", core::string_at(c, {"lastTransitionTime"})}});
            summary.push_back(json::string(std::string(type) + "=" + std::string(status)));
        }
    r["conditions"] = std::move(conds);
    r["conditionSummary"] = std::move(summary);
    r["lastReconcileTime"] = str_or_null(core::string_at(policy, {"status", "lastReconcileTime"}));
    r["observedGeneration"] = core::int_at(policy, {"status", "observedGeneration"}).value_or(0);
    return r;
}

std::vector<Column> status_columns(bool all_namespaces) {
    std::vector<Column> c;
    if (all_namespaces) c.push_back({"NAMESPACE", "namespace"});
    c.insert(c.end(), {{"NAME", "name"},
                       {"MODE", "mode"},
                       {"PHASE", "phase"},
                       {"WORKLOADS", "workloads.discovered"},
                       {"RECS", "workloads.withRecommendations", true},
                       {"RESIZED", "workloads.resized"},
                       {"PENDING", "workloads.pending", true},
                       {"DEFERRED", "workloads.deferred"},
                       {"INFEASIBLE", "workloads.infeasible"},
                       {"IDLE", "idle"},
                       {"CONDITIONS", "conditionSummary"},
                       {"MESSAGE", "message", true}});
    return c;
}

json::array recommendation_records(const json::value& policy, const std::string& workload) {
    json::array out;
    const auto* recs = core::array_at(policy, {"status", "recommendations"});
    if (recs == nullptr) return out;
    const auto ns = core::string_at(policy, {"metadata", "namespace"});
    const auto name = core::string_at(policy, {"metadata", "name"});
    for (const auto& w : *recs) {
        const auto kind = core::string_at(w, {"kind"});
        const auto wname = core::string_at(w, {"workload"});
        if (!workload_matches(workload, kind, wname)) continue;
        const auto* containers = core::array_at(w, {"containers"});
        if (containers == nullptr) continue;
        for (const auto& c : *containers) {
            const auto* cur = core::json_at(c, {"current"});
            const auto* rec = core::json_at(c, {"recommended"});
            json::object r;
            r["namespace"] = ns;
            r["policy"] = name;
            r["kind"] = kind;
            r["workload"] = wname;
            r["container"] = core::string_at(c, {"name"});
            r["current"] = resource_values(cur);
            r["recommended"] = resource_values(rec);
            const double conf = number_at(c, "confidence");
            r["confidence"] = conf;
            r["confidenceText"] = confidence_text(conf);
            r["dataPoints"] = core::int_at(c, {"dataPoints"}).value_or(0);
            r["lastUpdated"] = str_or_null(core::string_at(c, {"lastUpdated"}));
            r["stale"] = core::bool_at(w, {"stale"}).value_or(false);
            r["lastDataTime"] = str_or_null(core::string_at(w, {"lastDataTime"}));
            r["target"] = std::string(kind) + "/" + std::string(wname);
            for (const char* k : {"cpuRequest", "cpuLimit", "memoryRequest", "memoryLimit"})
                r[k] = values_arrow(cur, rec, k);
            r["hasExplanation"] = core::json_at(c, {"explanation"}) != nullptr;
            out.push_back(std::move(r));
        }
    }
    return out;
}

std::vector<Column> recommendation_columns(bool all_namespaces) {
    std::vector<Column> c;
    if (all_namespaces) c.push_back({"NAMESPACE", "namespace"});
    c.insert(c.end(),
             {{"POLICY", "policy"},
              {"WORKLOAD", "target"},
              {"CONTAINER", "container"},
              {"CPU REQUEST", "cpuRequest", false,
               [](const json::value& r) { return readable_arrow(r, "cpuRequest"); }},
              {"MEMORY REQUEST", "memoryRequest", false,
               [](const json::value& r) { return readable_arrow(r, "memoryRequest"); }},
              {"CPU LIMIT", "cpuLimit", true, [](const json::value& r) { return readable_arrow(r, "cpuLimit"); }},
              {"MEMORY LIMIT", "memoryLimit", true,
               [](const json::value& r) { return readable_arrow(r, "memoryLimit"); }},
              {"CONFIDENCE", "confidence", false,
               [](const json::value& r) { return core::readable_percent(number_at(r, "confidence")); }},
              {"DATA POINTS", "dataPoints"},
              {"STALE", "stale", true},
              {"UPDATED", "lastUpdated", true}});
    return c;
}

core::Result<json::array> history_records(const json::value& policy, const std::string& workload) {
    json::array out;
    const auto* hist = core::json_at(policy, {"status", "resizeHistory"});
    if (hist == nullptr) return out;
    auto decoded = core::decode_history(*hist);
    if (!decoded) return decoded.error();
    const auto ns = core::string_at(policy, {"metadata", "namespace"});
    const auto name = core::string_at(policy, {"metadata", "name"});
    for (const auto& e : decoded.value()) {
        // History entries name the workload without its kind: "kind/name" filters by the name.
        const auto slash = workload.find('/');
        const std::string wanted = slash == std::string::npos ? workload : workload.substr(slash + 1);
        if (!wanted.empty() && e.workload != wanted) continue;
        auto o = core::history_entry_json(e).as_object();
        json::object r;
        r["namespace"] = ns;
        r["policy"] = name;
        for (const char* k : {"timestamp", "workload", "container", "resource", "method", "result", "reason", "from", "to"}) {
            const auto* v = o.if_contains(k);
            r[k] = v ? *v : json::value(nullptr);  // only reason is optional
        }
        out.push_back(std::move(r));
    }
    return out;
}

std::vector<Column> history_columns(bool all_namespaces) {
    std::vector<Column> c;
    if (all_namespaces) c.push_back({"NAMESPACE", "namespace"});
    c.insert(c.end(), {{"TIME", "timestamp"},
                       {"POLICY", "policy"},
                       {"WORKLOAD", "workload"},
                       {"CONTAINER", "container"},
                       {"RESOURCE", "resource"},
                       {"FROM", "from", false, [](const json::value& r) { return history_side_text(r, "from"); }},
                       {"TO", "to", false, [](const json::value& r) { return history_side_text(r, "to"); }},
                       {"METHOD", "method", true},
                       {"RESULT", "result"},
                       {"REASON", "reason"}});
    return c;
}

}  // namespace attune::cli
