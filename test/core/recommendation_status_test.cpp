#include "attune/core/recommendation_status.hpp"

#include <gtest/gtest.h>

#include <boost/json.hpp>

#include "test_pods.hpp"

namespace attune::core {
namespace {

namespace json = boost::json;
using testing::qty;
using testing::rl;

ContainerRecommendation sample_recommendation() {
    UsageProfile p;
    p.percentile_value = 0.2;
    p.confidence = 1;
    p.data_points = 2016;
    ContainerRecommendation r;
    r.name = "app";
    r.current = resource_values_of({rl({{"cpu", "250m"}, {"memory", "128Mi"}}), rl({{"memory", "256Mi"}})});
    r.cpu = explain_resource(ResourceKind::Cpu, p, qty("250m"), builtin_tuning(ResourceKind::Cpu));
    r.recommended = r.current;
    r.recommended.cpu_request = r.cpu->final;
    r.confidence = 0.75;
    r.data_points = 4032;
    r.last_updated = 1767225600;
    return r;
}

// attune-api.md §3: the field names and shapes the webhook and kubectl read.
TEST(RecommendationStatus, ContainerEntryHasTheApiFieldsAndCanonicalQuantities) {
    const auto o = container_recommendation_json(sample_recommendation(), true);
    EXPECT_EQ(o.at("name").as_string(), "app");
    EXPECT_EQ(o.at("current").as_object(),
              (json::object{{"cpuRequest", "250m"}, {"cpuLimit", "0"}, {"memoryRequest", "128Mi"}, {"memoryLimit", "256Mi"}}));
    EXPECT_EQ(o.at("recommended").at("cpuRequest").as_string(), "250m");  // 240m is under 10%: kept
    EXPECT_EQ(o.at("confidence").as_double(), 0.75);
    EXPECT_EQ(o.at("dataPoints").as_int64(), 4032);
    EXPECT_EQ(o.at("lastUpdated").as_string(), "2026-01-01T00:00:00Z");
    const auto& cpu = o.at("explanation").at("cpu").as_object();
    EXPECT_FALSE(o.at("explanation").as_object().contains("memory"));
    for (const char* k : {"rawPercentile", "overhead", "afterOverhead", "burstFactor", "afterBurst", "confidence",
                          "confidenceFactor", "afterConfidence", "bounds", "afterBounds", "minChangePercent",
                          "maxChangePercent", "changeFilterApplied", "afterChangeFilter", "final"})
        EXPECT_TRUE(cpu.contains(k)) << k;
    // Empty optional strings are omitted, as the Go API's omitempty does.
    EXPECT_FALSE(cpu.contains("boundsApplied"));
    EXPECT_FALSE(cpu.contains("finalAdjustment"));
    EXPECT_EQ(cpu.at("rawPercentile").as_string(), "200m");
    EXPECT_EQ(cpu.at("afterOverhead").as_string(), "240m");
    EXPECT_EQ(cpu.at("overhead").as_double(), 20);
    EXPECT_EQ(cpu.at("bounds").as_object(), (json::object{{"min", "1m"}, {"max", "4"}}));
    EXPECT_EQ(cpu.at("changeFilterApplied").as_string(), "min_change_filtered");
    EXPECT_EQ(cpu.at("final").as_string(), "250m");
}

TEST(RecommendationStatus, ExplanationOnlyWhenAskedAndPresent) {
    auto r = sample_recommendation();
    EXPECT_FALSE(container_recommendation_json(r, false).contains("explanation"));
    r.cpu.reset();
    EXPECT_FALSE(container_recommendation_json(r, true).contains("explanation"));
}

TEST(RecommendationStatus, WorkloadEntryHasLastDataTimeAndStale) {
    WorkloadRecommendation w;
    w.containers.push_back(sample_recommendation());
    w.last_data_time = 1767225600 + 59.5;
    w.stale = true;
    const auto o = workload_recommendation_json("web", "Deployment", w, false);
    EXPECT_EQ(o.at("workload").as_string(), "web");
    EXPECT_EQ(o.at("kind").as_string(), "Deployment");
    EXPECT_EQ(o.at("containers").as_array().size(), 1u);
    EXPECT_EQ(o.at("lastDataTime").as_string(), "2026-01-01T00:00:59Z");
    EXPECT_TRUE(o.at("stale").as_bool());
    w.last_data_time.reset();
    EXPECT_FALSE(workload_recommendation_json("web", "Deployment", w, false).contains("lastDataTime"));
}

}  // namespace
}  // namespace attune::core
