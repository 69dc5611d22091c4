// status.recommendations[]: capped with the largest changes kept, sorted,
// explanations only when asked for.
#include <attune/controller/status_recommendations.hpp>

#include <gtest/gtest.h>

namespace attune::controller {
namespace {

core::Quantity q(const char* s) { return core::Quantity::parse(s).value(); }

StoredRecommendation entry(const char* kind, const char* name, const char* cur_cpu, const char* rec_cpu) {
    StoredRecommendation e;
    e.workload = {"ns", kind, name};
    core::ContainerRecommendation c;
    c.name = "app";
    c.current.cpu_request = q(cur_cpu);
    c.recommended.cpu_request = q(rec_cpu);
    c.current.memory_request = q("100Mi");
    c.recommended.memory_request = q("100Mi");
    c.cpu = core::ResourceExplanation{};
    e.recommendation.containers = {c};
    return e;
}

TEST(StatusRecommendations, ChangeMagnitudeIsTheLargestRelativeRequestMove) {
    EXPECT_DOUBLE_EQ(change_magnitude(entry("Deployment", "a", "100m", "110m").recommendation), 0.1);
    EXPECT_DOUBLE_EQ(change_magnitude(entry("Deployment", "a", "100m", "50m").recommendation), 0.5);
    EXPECT_DOUBLE_EQ(change_magnitude(entry("Deployment", "a", "0", "50m").recommendation), 1.0);
    EXPECT_DOUBLE_EQ(change_magnitude(entry("Deployment", "a", "0", "0").recommendation), 0.0);
}

TEST(StatusRecommendations, CappedToTheLargestChangesAndSortedByKindThenName) {
    const auto small = entry("Deployment", "small", "100m", "110m");
    const auto large = entry("Deployment", "large", "100m", "500m");
    const auto medium = entry("StatefulSet", "medium", "100m", "200m");
    const auto tie = entry("Deployment", "b-tie", "100m", "200m");
    const auto out = status_recommendations({&small, &large, &medium, &tie}, 3, false);
    ASSERT_EQ(out.size(), 3u);
    // medium and b-tie move the same (100%): both kept ahead of small; by kind, then name.
    EXPECT_EQ(out[0].at("workload").as_string(), "b-tie");
    EXPECT_EQ(out[1].at("workload").as_string(), "large");
    EXPECT_EQ(out[2].at("workload").as_string(), "medium");
    EXPECT_FALSE(out[0].at("containers").as_array()[0].as_object().contains("explanation"));

    const auto capped = status_recommendations({&small, &large, &medium, &tie}, 1, true);
    ASSERT_EQ(capped.size(), 1u);
    EXPECT_EQ(capped[0].at("workload").as_string(), "large");
    EXPECT_TRUE(capped[0].at("containers").as_array()[0].as_object().contains("explanation"));
    EXPECT_EQ(status_recommendations({&small}, 0, true).size(), 0u);
}

}  // namespace
}  // namespace attune::controller
