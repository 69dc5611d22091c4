#include "attune/core/recommendation_status.hpp"

#include <boost/json/array.hpp>

#include "attune/core/timestamp.hpp"

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

}  // namespace attune::core
