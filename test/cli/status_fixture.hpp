#pragma once
// An AttunePolicy whose status is written by the core's own encoders (the
// writer's shape, docs/api.md#attunepolicy-status), for the status/recommendations/history
// and explain tests.
#include <attune/core/policy/condition.hpp>
#include <attune/core/model/quantity.hpp>
#include <attune/core/recommend/recommendation_status.hpp>
#include <attune/core/resize/resize_history.hpp>

#include <boost/json.hpp>

namespace attune::cli::test {

inline core::Quantity q(const char* s) { return core::Quantity::parse(s).value(); }

inline core::ResourceExplanation cpu_chain() {
    core::ResourceExplanation e;
    e.raw_percentile = q("101m");
    e.overhead = 20;
    e.after_overhead = q("122m");
    e.burst_factor = 1.05;
    e.after_burst = q("128m");
    e.confidence = 0.93;
    e.confidence_factor = 1.02;
    e.after_confidence = q("131m");
    e.bound_min = q("1m");
    e.bound_max = q("4");
    e.after_bounds = q("131m");
    e.min_change_percent = 10;
    e.max_change_percent = 50;
    e.change_filter_applied = "max_change_capped";
    e.after_change_filter = q("250m");
    e.final = q("250m");
    return e;
}

inline core::WorkloadRecommendation web_recommendation() {
    core::ContainerRecommendation c;
    c.name = "app";
    c.current = {q("500m"), q("1"), q("256Mi"), q("512Mi")};
    c.recommended = {q("250m"), q("1"), q("192Mi"), q("512Mi")};
    c.confidence = 0.93;
    c.data_points = 120;
    c.last_updated = 1'796'119'200;  // 2026-12-01T10:00:00Z
    c.cpu = cpu_chain();
    core::WorkloadRecommendation w;
    w.containers = {c};
    w.last_data_time = 1'796'119'100;
    return w;
}

inline core::HistoryEntry entry(const char* when, const char* workload, core::HistoryResult result, const char* reason) {
    core::HistoryEntry e;
    e.timestamp = core::parse_timestamp(when).value();
    e.workload = workload;
    e.container = "app";
    e.from = "500m";
    e.to = "250m";
    e.resource = core::HistoryResource::Cpu;
    e.result = result;
    e.reason = reason;
    return e;
}

// The policy "web" in "shop" targeting Deployment web (tier=web).
inline boost::json::value web_policy(std::string mode = "Auto", bool with_status = true) {
    namespace json = boost::json;
    json::object spec{{"targetRef", json::object{{"kind", "Deployment"}, {"name", "web"}}},
                      {"cpu", json::object{}},
                      {"memory", json::object{}},
                      {"updateStrategy", json::object{{"type", mode}}}};
    json::object policy{{"apiVersion", "attune.io/v1alpha1"},
                        {"kind", "AttunePolicy"},
                        {"metadata", json::object{{"name", "web"}, {"namespace", "shop"}, {"uid", "p-uid"},
                                                  {"resourceVersion", "7"}, {"generation", 2}}},
                        {"spec", spec}};
    if (!with_status) return policy;
    std::vector<core::Condition> conds = {
        {"Ready", "True", "Monitoring", "1 workload has recommendations", core::parse_timestamp("2026-12-01T10:00:00Z").value(), 2},
        {"ResizeBlocked", "True", "PodsDeferred", "1 pod Deferred", core::parse_timestamp("2026-12-01T10:01:00Z").value(), 2},
    };
    std::vector<core::HistoryEntry> history = {
        entry("2026-12-01T09:00:00Z", "web", core::HistoryResult::Success, ""),
        entry("2026-12-01T09:30:00Z", "api", core::HistoryResult::Success, ""),
        entry("2026-12-01T10:00:00Z", "web", core::HistoryResult::Reverted, "oomkill"),
    };
    json::object status{
        {"observedGeneration", 2},
        {"conditions", core::conditions_json(conds)},
        {"workloads", json::object{{"discovered", 3}, {"withRecommendations", 1}, {"resized", 1}, {"pending", 0},
                                   {"deferred", 1}, {"infeasible", 0}}},
        {"recommendations", json::array{core::workload_recommendation_json("web", "Deployment", web_recommendation(), true)}},
        {"resizeHistory", core::history_json(history)},
        {"idleWorkloads", json::array{json::object{{"workload", "batch"}, {"kind", "Deployment"}, {"reason", "WorkloadReplicasZero"}}}},
        {"lastReconcileTime", "2026-12-01T10:02:00Z"}};
    policy["status"] = std::move(status);
    return policy;
}

}  // namespace attune::cli::test
