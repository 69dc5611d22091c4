#include "attune/core/recommend/vpa_source.hpp"

#include <gtest/gtest.h>

#include <boost/json.hpp>

#include "test_pods.hpp"

namespace attune::core {
namespace {

using testing::qty;
using testing::rl;

// As a VPA recommender writes it (autoscaling.k8s.io/v1).
constexpr const char* kVpa = R"({"apiVersion":"autoscaling.k8s.io/v1","kind":"VerticalPodAutoscaler",
  "metadata":{"name":"web","namespace":"shop"},
  "spec":{"targetRef":{"apiVersion":"apps/v1","kind":"Deployment","name":"web"}},
  "status":{"recommendation":{"containerRecommendations":[
    {"containerName":"app","target":{"cpu":"250m","memory":"256Mi"},"lowerBound":{"cpu":"100m","memory":"128Mi"},
     "upperBound":{"cpu":"1","memory":"1Gi"},"uncappedTarget":{"cpu":"250m","memory":"300Mi"}},
    {"containerName":"sidecar","target":{"cpu":"25m"}},
    {"target":{"cpu":"1"}}]}}})";

TEST(VpaSource, DecodesEveryBoundOfEveryNamedContainer) {
    const auto r = decode_vpa_recommendations(boost::json::parse(kVpa));
    ASSERT_TRUE(r.ok()) << r.error().message;
    ASSERT_EQ(r.value().size(), 2u);  // the unnamed entry is skipped
    const auto& app = r.value()[0];
    EXPECT_EQ(app.container_name, "app");
    EXPECT_EQ(app.target, rl({{"cpu", "250m"}, {"memory", "256Mi"}}));
    EXPECT_EQ(app.lower_bound, rl({{"cpu", "100m"}, {"memory", "128Mi"}}));
    EXPECT_EQ(app.upper_bound, rl({{"cpu", "1"}, {"memory", "1Gi"}}));
    EXPECT_EQ(app.uncapped_target, rl({{"cpu", "250m"}, {"memory", "300Mi"}}));
    EXPECT_TRUE(r.value()[1].lower_bound.empty());
}

TEST(VpaSource, SelectionPicksTheBound) {
    EXPECT_EQ(parse_vpa_selection("").value(), VpaSelection::Target);
    EXPECT_EQ(parse_vpa_selection("Target").value(), VpaSelection::Target);
    EXPECT_EQ(parse_vpa_selection("LowerBound").value(), VpaSelection::LowerBound);
    EXPECT_EQ(parse_vpa_selection("UpperBound").value(), VpaSelection::UpperBound);
    EXPECT_EQ(parse_vpa_selection("lowerbound").error().code, "invalid_selection");

    const auto recs = decode_vpa_recommendations(boost::json::parse(kVpa)).value();
    const std::vector<LiveContainer> live = {{"app", {rl({{"cpu", "500m"}, {"memory", "256Mi"}}), {}}},
                                             {"sidecar", {rl({{"cpu", "50m"}}), {}}},
                                             {"other", {}}};
    const struct {
        VpaSelection s;
        const char* cpu;
        const char* memory;
    } rows[] = {{VpaSelection::Target, "250m", "256Mi"},
                {VpaSelection::LowerBound, "100m", "128Mi"},
                {VpaSelection::UpperBound, "1", "1Gi"}};
    for (const auto& row : rows) {
        const auto points = vpa_point_estimates(recs, row.s, live);
        ASSERT_EQ(points.size(), 2u);  // "other" has no VPA entry
        EXPECT_EQ(points[0].cpu->to_string(), row.cpu);
        EXPECT_EQ(points[0].memory->to_string(), row.memory);
        EXPECT_EQ(points[0].current.requests.at("cpu"), qty("500m"));
    }
    // The sidecar's bounds other than target are empty: nothing to recommend there.
    const auto lower = vpa_point_estimates(recs, VpaSelection::LowerBound, live);
    EXPECT_FALSE(lower[1].cpu.has_value());
    EXPECT_FALSE(lower[1].memory.has_value());
}

// The selected figure then runs the chain (recommend_from_point): the
// LowerBound 100m of "app" x1.2 = 120m, vs 500m = -76% -> capped at -50%: 250m.
TEST(VpaSource, SelectedBoundRunsTheChain) {
    const auto recs = decode_vpa_recommendations(boost::json::parse(kVpa)).value();
    const std::vector<LiveContainer> live = {{"app", {rl({{"cpu", "500m"}, {"memory", "256Mi"}}), {}}}};
    const auto p = vpa_point_estimates(recs, VpaSelection::LowerBound, live).at(0);
    const auto r = recommend_from_point(p, RecommenderSettings{}, 0, "source: VPA");
    EXPECT_EQ(r.cpu->after_overhead.to_string(), "120m");
    EXPECT_EQ(r.recommended.cpu_request.to_string(), "250m");
    // memory 128Mi x1.3 = 166.4Mi; vs 256Mi -35% > 30% -> capped at 179.2Mi; then held: allowDecrease=false.
    EXPECT_EQ(r.recommended.memory_request.to_string(), "256Mi");
    EXPECT_EQ(r.suppressed.size(), 1u);
}

TEST(VpaSource, NoRecommendationYetAndBadInput) {
    EXPECT_TRUE(decode_vpa_recommendations(boost::json::parse(R"({"kind":"VerticalPodAutoscaler"})")).value().empty());
    EXPECT_TRUE(decode_vpa_recommendations(boost::json::parse(R"({"status":{"conditions":[]}})")).value().empty());
    const auto bad = decode_vpa_recommendations(boost::json::parse(
        R"({"status":{"recommendation":{"containerRecommendations":[{"containerName":"app","target":{"cpu":"lots"}}]}}})"));
    ASSERT_FALSE(bad.ok());
    EXPECT_NE(bad.error().message.find("containerRecommendations[0].target.cpu"), std::string::npos) << bad.error().message;
    EXPECT_FALSE(decode_vpa_recommendations(boost::json::parse(R"({"status":{"recommendation":[]}})")).ok());
    EXPECT_FALSE(decode_vpa_recommendations(boost::json::parse("[]")).ok());
}

}  // namespace
}  // namespace attune::core
