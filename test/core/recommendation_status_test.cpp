#include "attune/core/recommendation_status.hpp"

#include <gtest/gtest.h>

#include <boost/json.hpp>

namespace attune::core {
namespace {
namespace json = boost::json;

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

TEST(DecodeRecommendations, ReadsEveryFieldOfTheStatusEntries) {
    auto r = decode_recommendations(json::parse(kPolicy));
    ASSERT_TRUE(r.ok()) << r.error().message;
    ASSERT_EQ(r.value().size(), 2u);
    const auto& web = r.value()[0];
    EXPECT_EQ(web.workload, "web");
    EXPECT_EQ(web.kind, "Deployment");
    EXPECT_FALSE(web.stale);
    EXPECT_EQ(web.last_data_time, "2026-12-01T10:00:00Z");
    const auto* app = web.find("app");
    ASSERT_NE(app, nullptr);
    EXPECT_EQ(app->recommended.cpu_request.to_string(), "250m");
    EXPECT_TRUE(app->recommended.cpu_limit.is_zero());
    EXPECT_EQ(app->recommended.memory_limit.to_string(), "384Mi");
    EXPECT_EQ(app->current.memory_request.to_string(), "512Mi");
    EXPECT_DOUBLE_EQ(app->confidence, 0.83);
    EXPECT_EQ(app->data_points, 96);
    ASSERT_TRUE(app->explanation.has_value());
    EXPECT_TRUE(r.value()[1].stale);
    EXPECT_EQ(find_recommendation(r.value(), "StatefulSet", "db"), &r.value()[1]);
    EXPECT_EQ(find_recommendation(r.value(), "Deployment", "db"), nullptr);
}

TEST(DecodeRecommendations, AbsentStatusIsAnEmptyList) {
    auto r = decode_recommendations(json::parse(R"({"metadata":{"name":"p"},"spec":{}})"));
    ASSERT_TRUE(r.ok());
    EXPECT_TRUE(r.value().empty());
}

TEST(DecodeRecommendations, EncodeThenDecodeKeepsTheEntry) {
    auto first = decode_recommendations(json::parse(kPolicy));
    ASSERT_TRUE(first.ok());
    json::object status;
    json::array recs;
    for (const auto& w : first.value()) recs.push_back(encode_recommendation(w));
    status["recommendations"] = std::move(recs);
    auto again = decode_recommendations(json::value(status));
    ASSERT_TRUE(again.ok()) << again.error().message;
    ASSERT_EQ(again.value().size(), 2u);
    const auto* app = again.value()[0].find("app");
    ASSERT_NE(app, nullptr);
    EXPECT_EQ(app->recommended.memory_request, first.value()[0].containers[0].recommended.memory_request);
    EXPECT_DOUBLE_EQ(app->confidence, 0.83);
}

struct BadStatus {
    const char* name;
    const char* status;
    const char* path;
};

class DecodeMalformedRecommendations : public ::testing::TestWithParam<BadStatus> {};

TEST_P(DecodeMalformedRecommendations, NamesThePath) {
    auto r = decode_recommendations(json::parse(GetParam().status));
    ASSERT_FALSE(r.ok());
    EXPECT_EQ(r.error().code, "invalid_recommendations");
    EXPECT_NE(r.error().message.find(GetParam().path), std::string::npos) << r.error().message;
}

INSTANTIATE_TEST_SUITE_P(
    Cases, DecodeMalformedRecommendations,
    ::testing::Values(
        BadStatus{"not_an_array", R"({"recommendations": {}})", "status.recommendations"},
        BadStatus{"no_workload", R"({"recommendations": [{"kind": "Deployment"}]})", "recommendations[0].workload"},
        BadStatus{"bad_quantity",
                  R"({"recommendations": [{"workload": "w", "kind": "Deployment", "containers": [{"name": "a", "recommended": {"cpuRequest": "lots"}}]}]})",
                  "recommendations[0].containers[0].recommended.cpuRequest"},
        BadStatus{"confidence_not_number",
                  R"({"recommendations": [{"workload": "w", "kind": "Deployment", "containers": [{"name": "a", "confidence": "high"}]}]})",
                  "containers[0].confidence"}),
    [](const auto& param_info) { return std::string(param_info.param.name); });

}  // namespace
}  // namespace attune::core
