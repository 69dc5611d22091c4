#include "attune/core/recommend/recommendation_status.hpp"

#include <boost/json.hpp>

#include "attune/core/util/timestamp.hpp"
#include "../util/json_decode.hpp"

#include <cmath>

namespace attune::core {

namespace json = boost::json;

namespace {

// Sample times are seconds since the epoch; status times are whole seconds.
Timestamp whole_second(double seconds) {
    return Timestamp{std::chrono::seconds(std::isfinite(seconds) ? static_cast<long long>(std::floor(seconds)) : 0LL)};
}

void put_if_set(json::object& o, std::string_view key, const std::string& value) {
    if (!value.empty()) o[key] = value;
}

}  // namespace

json::object explanation_json(const ResourceExplanation& e) {
    json::object o;
    o["rawPercentile"] = e.raw_percentile.to_string();
    o["overhead"] = e.overhead;
    o["afterOverhead"] = e.after_overhead.to_string();
    o["burstFactor"] = e.burst_factor;
    o["afterBurst"] = e.after_burst.to_string();
    o["confidence"] = e.confidence;
    o["confidenceFactor"] = e.confidence_factor;
    o["afterConfidence"] = e.after_confidence.to_string();
    o["bounds"] = json::object{{"min", e.bound_min.to_string()}, {"max", e.bound_max.to_string()}};
    put_if_set(o, "boundsApplied", e.bounds_applied);
    o["afterBounds"] = e.after_bounds.to_string();
    o["minChangePercent"] = e.min_change_percent;
    o["maxChangePercent"] = e.max_change_percent;
    put_if_set(o, "changeFilterApplied", e.change_filter_applied);
    o["afterChangeFilter"] = e.after_change_filter.to_string();
    o["final"] = e.final.to_string();
    put_if_set(o, "finalAdjustment", e.final_adjustment);
    return o;
}

json::object resource_values_json(const ResourceValues& v) {
    return json::object{{"cpuRequest", v.cpu_request.to_string()},
                        {"cpuLimit", v.cpu_limit.to_string()},
                        {"memoryRequest", v.memory_request.to_string()},
                        {"memoryLimit", v.memory_limit.to_string()}};
}

json::object container_recommendation_json(const ContainerRecommendation& c, bool include_explanation) {
    json::object o;
    o["name"] = c.name;
    o["current"] = resource_values_json(c.current);
    o["recommended"] = resource_values_json(c.recommended);
    o["confidence"] = c.confidence;
    o["dataPoints"] = c.data_points;
    o["lastUpdated"] = format_timestamp(whole_second(c.last_updated));
    if (include_explanation && (c.cpu || c.memory)) {
        json::object x;
        if (c.cpu) x["cpu"] = explanation_json(*c.cpu);
        if (c.memory) x["memory"] = explanation_json(*c.memory);
        o["explanation"] = std::move(x);
    }
    return o;
}

json::object workload_recommendation_json(const std::string& workload, const std::string& kind,
                                          const WorkloadRecommendation& w, bool include_explanations) {
    json::object o;
    o["workload"] = workload;
    o["kind"] = kind;
    json::array containers;
    for (const auto& c : w.containers) containers.push_back(container_recommendation_json(c, include_explanations));
    o["containers"] = std::move(containers);
    if (w.last_data_time) o["lastDataTime"] = format_timestamp(whole_second(*w.last_data_time));
    o["stale"] = w.stale;
    return o;
}

// ---- reading it back ----

namespace {
using namespace detail;

Quantity quantity_field(const json::object& o, std::string_view key, const std::string& path) {
    const auto* v = field(o, key);
    if (!v) return Quantity();
    const std::string at = path + "." + std::string(key);
    std::string text;
    if (v->is_string()) text = std::string(v->get_string());
    else if (v->is_int64()) text = std::to_string(v->get_int64());
    else if (v->is_uint64()) text = std::to_string(v->get_uint64());
    else fail(at, "expected a quantity string");
    auto q = Quantity::parse(text);
    if (!q.ok()) fail(at, q.error().message);
    return std::move(q).value();
}

ResourceValues values_field(const json::object& c, std::string_view key, const std::string& path) {
    ResourceValues r;
    const auto* o = opt_object(c, key, path);
    if (!o) return r;
    const std::string at = path + "." + std::string(key);
    r.cpu_request = quantity_field(*o, "cpuRequest", at);
    r.cpu_limit = quantity_field(*o, "cpuLimit", at);
    r.memory_request = quantity_field(*o, "memoryRequest", at);
    r.memory_limit = quantity_field(*o, "memoryLimit", at);
    return r;
}

double number_field(const json::object& o, std::string_view key, const std::string& path) {
    const auto* v = field(o, key);
    if (!v) return 0;
    if (v->is_double()) return v->get_double();
    if (v->is_int64()) return static_cast<double>(v->get_int64());
    if (v->is_uint64()) return static_cast<double>(v->get_uint64());
    fail(path + "." + std::string(key), "expected a number");
}

std::optional<double> time_field(const json::object& o, std::string_view key, const std::string& path) {
    const std::string text = opt_string(o, key, path);
    if (text.empty()) return std::nullopt;
    auto t = parse_timestamp(text);
    if (!t.ok()) fail(path + "." + std::string(key), t.error().message);
    return static_cast<double>(t.value().time_since_epoch().count());
}

}  // namespace

const ContainerRecommendation* StatusRecommendation::find(std::string_view container) const {
    for (const auto& c : recommendation.containers)
        if (c.name == container) return &c;
    return nullptr;
}

Result<std::vector<StatusRecommendation>> decode_status_recommendations(const json::value& policy_or_status) {
    try {
        const auto& root = as_object(policy_or_status, "AttunePolicy");
        const json::object* status = &root;
        const std::string path = "status";
        if (root.contains("status") || root.contains("spec") || root.contains("metadata"))
            status = opt_object(root, "status", "AttunePolicy");
        std::vector<StatusRecommendation> out;
        if (!status) return out;
        const auto* arr = opt_array(*status, "recommendations", path);
        if (!arr) return out;
        out.reserve(arr->size());
        for (std::size_t i = 0; i < arr->size(); ++i) {
            const std::string at = path + ".recommendations[" + std::to_string(i) + "]";
            const auto& o = as_object((*arr)[i], at);
            StatusRecommendation s;
            s.workload = opt_string(o, "workload", at);
            s.kind = opt_string(o, "kind", at);
            if (s.workload.empty()) fail(at + ".workload", "missing");
            if (s.kind.empty()) fail(at + ".kind", "missing");
            auto& w = s.recommendation;
            w.last_data_time = time_field(o, "lastDataTime", at);
            w.stale = opt_bool(o, "stale", at);
            if (const auto* cs = opt_array(o, "containers", at)) {
                for (std::size_t j = 0; j < cs->size(); ++j) {
                    const std::string cat = at + ".containers[" + std::to_string(j) + "]";
                    const auto& co = as_object((*cs)[j], cat);
                    ContainerRecommendation c;
                    c.name = opt_string(co, "name", cat);
                    if (c.name.empty()) fail(cat + ".name", "missing");
                    c.current = values_field(co, "current", cat);
                    c.recommended = values_field(co, "recommended", cat);
                    c.confidence = number_field(co, "confidence", cat);
                    c.data_points = static_cast<int>(opt_int(co, "dataPoints", cat).value_or(0));
                    c.last_updated = time_field(co, "lastUpdated", cat).value_or(0);
                    w.containers.push_back(std::move(c));
                }
            }
            out.push_back(std::move(s));
        }
        return out;
    } catch (const DecodeFailure& e) {
        return make_error("invalid_recommendations", e.what());
    }
}

const StatusRecommendation* find_status_recommendation(const std::vector<StatusRecommendation>& recs,
                                                       std::string_view kind, std::string_view workload) {
    for (const auto& r : recs)
        if (r.kind == kind && r.workload == workload) return &r;
    return nullptr;
}

}  // namespace attune::core
