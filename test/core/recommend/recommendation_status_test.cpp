#include "attune/core/recommend/recommendation_status.hpp"

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

// docs/api.md#attunepolicy-status: the field names and shapes the webhook and kubectl read.
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

// ---- the webhook's side: reading status.recommendations back ----

constexpr const char* kPolicy = R"({
  "metadata": {"name": "web", "namespace": "shop"},
  "status": {"recommendations": [
    {"workload": "web", "kind": "Deployment", "lastDataTime": "2026-12-01T10:00:00Z", "stale": false,
     "containers": [
       {"name": "app",
        "current": {"cpuRequest": "1", "cpuLimit": "0", "memoryRequest": "512Mi", "memoryLimit": "1Gi"},
        "recommended": {"cpuRequest": "250m", "cpuLimit": "0", "memoryRequest": "192Mi", "memoryLimit": "384Mi"},
        "confidence": 0.83, "dataPoints": 96, "lastUpdated": "2026-12-01T10:00:00Z",
        "explanation": {"cpu": {"final": "250m"}}}]},
    {"workload": "db", "kind": "StatefulSet", "stale": true, "containers": []}]}})";

TEST(DecodeStatusRecommendations, ReadsWhatTheWebhookSizesFrom) {
    auto r = decode_status_recommendations(json::parse(kPolicy));
    ASSERT_TRUE(r.ok()) << r.error().message;
    ASSERT_EQ(r.value().size(), 2u);
    const auto& web = r.value()[0];
    EXPECT_EQ(web.workload, "web");
    EXPECT_EQ(web.kind, "Deployment");
    EXPECT_FALSE(web.recommendation.stale);
    EXPECT_EQ(web.recommendation.last_data_time, 1796119200.0);
    const auto* app = web.find("app");
    ASSERT_NE(app, nullptr);
    EXPECT_EQ(app->recommended.cpu_request.to_string(), "250m");
    EXPECT_TRUE(app->recommended.cpu_limit.is_zero());
    EXPECT_EQ(app->recommended.memory_limit.to_string(), "384Mi");
    EXPECT_EQ(app->current.memory_request.to_string(), "512Mi");
    EXPECT_DOUBLE_EQ(app->confidence, 0.83);
    EXPECT_EQ(app->data_points, 96);
    EXPECT_EQ(app->last_updated, 1796119200.0);
    EXPECT_TRUE(r.value()[1].recommendation.stale);
    EXPECT_EQ(find_status_recommendation(r.value(), "StatefulSet", "db"), &r.value()[1]);
    EXPECT_EQ(find_status_recommendation(r.value(), "Deployment", "db"), nullptr);
}

TEST(DecodeStatusRecommendations, AbsentStatusIsAnEmptyList) {
    auto r = decode_status_recommendations(json::parse(R"({"metadata":{"name":"p"},"spec":{}})"));
    ASSERT_TRUE(r.ok());
    EXPECT_TRUE(r.value().empty());
}

// The writer's encoder and the reader's decoder agree on every field the
// webhook reads.
TEST(DecodeStatusRecommendations, ReadsBackWhatTheEncoderWrites) {
    WorkloadRecommendation w;
    w.containers.push_back(sample_recommendation());
    w.last_data_time = 1767225600;
    w.stale = true;
    json::object status{{"recommendations", json::array{workload_recommendation_json("web", "Deployment", w, true)}}};
    auto r = decode_status_recommendations(json::value(status));
    ASSERT_TRUE(r.ok()) << r.error().message;
    ASSERT_EQ(r.value().size(), 1u);
    const auto& got = r.value()[0];
    EXPECT_EQ(got.workload, "web");
    EXPECT_EQ(got.kind, "Deployment");
    EXPECT_TRUE(got.recommendation.stale);
    EXPECT_EQ(got.recommendation.last_data_time, w.last_data_time);
    const auto& want = w.containers[0];
    const auto* c = got.find("app");
    ASSERT_NE(c, nullptr);
    EXPECT_EQ(c->current, want.current);
    EXPECT_EQ(c->recommended, want.recommended);
    EXPECT_DOUBLE_EQ(c->confidence, want.confidence);
    EXPECT_EQ(c->data_points, want.data_points);
    EXPECT_EQ(c->last_updated, want.last_updated);
}

struct BadStatus {
    const char* name;
    const char* status;
    const char* path;
};

class DecodeMalformedStatusRecommendations : public ::testing::TestWithParam<BadStatus> {};

TEST_P(DecodeMalformedStatusRecommendations, NamesThePath) {
    auto r = decode_status_recommendations(json::parse(GetParam().status));
    ASSERT_FALSE(r.ok());
    EXPECT_EQ(r.error().code, "invalid_recommendations");
    EXPECT_NE(r.error().message.find(GetParam().path), std::string::npos) << r.error().message;
}

INSTANTIATE_TEST_SUITE_P(
    Cases, DecodeMalformedStatusRecommendations,
    ::testing::Values(
        BadStatus{"not_an_array", R"({"recommendations": {}})", "status.recommendations"},
        BadStatus{"no_workload", R"({"recommendations": [{"kind": "Deployment"}]})", "recommendations[0].workload"},
        BadStatus{"bad_quantity",
                  R"({"recommendations": [{"workload": "w", "kind": "Deployment", "containers": [{"name": "a", "recommended": {"cpuRequest": "lots"}}]}]})",
                  "recommendations[0].containers[0].recommended.cpuRequest"},
        BadStatus{"confidence_not_number",
                  R"({"recommendations": [{"workload": "w", "kind": "Deployment", "containers": [{"name": "a", "confidence": "high"}]}]})",
                  "containers[0].confidence"},
        BadStatus{"bad_time",
                  R"({"recommendations": [{"workload": "w", "kind": "Deployment", "lastDataTime": "yesterday"}]})",
                  "recommendations[0].lastDataTime"}),
    [](const auto& param_info) { return std::string(param_info.param.name); });

}  // namespace
}  // namespace attune::core
