#include "attune/core/recommend/manual_source.hpp"

#include <gtest/gtest.h>

#include <boost/json.hpp>

#include "test_pods.hpp"

namespace attune::core {
namespace {

using testing::pod_from_json;
using testing::qty;
using testing::rl;

constexpr const char* kLive = R"({"spec":{"containers":[
  {"name":"app","resources":{"requests":{"cpu":"1","memory":"1Gi"},"limits":{"cpu":"2","memory":"2Gi"}}},
  {"name":"log","resources":{"requests":{"cpu":"50m"}}}]}})";

TEST(ManualSource, DecodesTheManualBlock) {
    const auto m = decode_manual_overlay(boost::json::parse(R"({"containers":[
        {"name":"app","resources":{"requests":{"cpu":"1500m"},"limits":{"memory":"3Gi"}}},{"name":"log"}]})"),
                                         "spec.metricsSource.manual");
    ASSERT_TRUE(m.ok()) << m.error().message;
    EXPECT_EQ(m.value().at("app").requests, rl({{"cpu", "1500m"}}));
    EXPECT_EQ(m.value().at("app").limits, rl({{"memory", "3Gi"}}));
    EXPECT_TRUE(m.value().at("log").requests.empty());
    EXPECT_TRUE(decode_manual_overlay(boost::json::parse("{}"), "m").value().empty());
}

TEST(ManualSource, BadManualBlocksNameTheirPath) {
    const struct {
        const char* json;
        const char* in_message;
    } rows[] = {
        {R"({"containers":[{"resources":{}}]})", "spec.metricsSource.manual.containers[0].name"},
        {R"({"containers":[{"name":"a"},{"name":"a"}]})", "containers[1].name: container \"a\" listed twice"},
        {R"({"containers":[{"name":"a","resources":{"requests":{"cpu":"fast"}}}]})", "containers[0].resources.requests.cpu"},
        {R"({"containers":{}})", "expected an array"},
        {"[]", "expected an object"},
    };
    for (const auto& r : rows) {
        const auto m = decode_manual_overlay(boost::json::parse(r.json), "spec.metricsSource.manual");
        ASSERT_FALSE(m.ok()) << r.json;
        EXPECT_NE(m.error().message.find(r.in_message), std::string::npos) << m.error().message;
    }
}

TEST(ManualSource, RecommendationsShowTheOverlayOnTheLiveBaseline) {
    const auto b = freeze_baseline(pod_from_json(kLive));
    const ContainerResourceMap manual{{"app", {rl({{"cpu", "1500m"}}), rl({{"memory", "3Gi"}})}}};
    const auto recs = manual_recommendations(b, manual, 1767225600);
    ASSERT_TRUE(recs.ok()) << recs.error().message;
    ASSERT_EQ(recs.value().size(), 1u);  // only the named container
    const auto& r = recs.value()[0];
    EXPECT_EQ(r.current.cpu_request, qty("1"));
    EXPECT_EQ(r.recommended.cpu_request, qty("1500m"));   // explicit
    EXPECT_EQ(r.recommended.cpu_limit, qty("2"));         // inherited
    EXPECT_EQ(r.recommended.memory_request, qty("1Gi"));  // inherited
    EXPECT_EQ(r.recommended.memory_limit, qty("3Gi"));    // explicit
    EXPECT_EQ(r.confidence, 1);
    EXPECT_FALSE(r.cpu || r.memory);
    EXPECT_FALSE(manual_recommendations(b, {{"nope", {}}}, 0).ok());
}

}  // namespace
}  // namespace attune::core
