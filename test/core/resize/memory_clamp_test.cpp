#include "attune/core/resize/memory_clamp.hpp"

#include <gtest/gtest.h>

#include "test_pods.hpp"

namespace attune::core {
namespace {

using testing::qty;
using testing::rl;

Container live(const char* req, const char* lim, const char* policy = "NotRequired") {
    Container c;
    c.name = "app";
    c.resources = {rl({{"memory", req}}), rl({{"memory", lim}})};
    c.resize_policy = {{"memory", policy}};
    return c;
}

TEST(MemoryClamp, DecreaseClampedBefore1_34) {
    const auto d = clamp_memory_limit_decrease(live("1Gi", "2Gi"), {rl({{"memory", "512Mi"}}), rl({{"memory", "1Gi"}})},
                                               false, false);
    EXPECT_TRUE(d.clamped);
    EXPECT_EQ(d.resources.limits.at("memory").to_string(), "2Gi");
    EXPECT_EQ(d.resources.requests.at("memory").to_string(), "512Mi");  // Burstable: request may still fall
}

TEST(MemoryClamp, GuaranteedRaisesTheRequestToMatch) {
    const auto d = clamp_memory_limit_decrease(live("2Gi", "2Gi"), {rl({{"memory", "1Gi"}}), rl({{"memory", "1Gi"}})},
                                               false, true);
    EXPECT_TRUE(d.clamped);
    EXPECT_EQ(d.resources.requests.at("memory").to_string(), "2Gi");
}

TEST(MemoryClamp, AllowedFrom1_34AndForRestartContainer) {
    const ResourceRequirements t{rl({{"memory", "1Gi"}}), rl({{"memory", "1Gi"}})};
    EXPECT_FALSE(clamp_memory_limit_decrease(live("2Gi", "2Gi"), t, true, true).clamped);
    EXPECT_FALSE(clamp_memory_limit_decrease(live("2Gi", "2Gi", "RestartContainer"), t, false, true).clamped);
}

TEST(MemoryClamp, IncreasesAreNeverClamped) {
    const auto d = clamp_memory_limit_decrease(live("1Gi", "1Gi"), {rl({{"memory", "2Gi"}}), rl({{"memory", "2Gi"}})},
                                               false, true);
    EXPECT_FALSE(d.clamped);
    EXPECT_EQ(d.resources.limits.at("memory").to_string(), "2Gi");
}

TEST(UsageFloor, NeverBelowUsageNeverAboveLive) {
    // Floor 1100Mi sits between target and live.
    auto d = apply_memory_usage_floor(live("1Gi", "2Gi"), {rl({{"memory", "1Gi"}}), rl({{"memory", "1Gi"}})},
                                      qty("1000Mi"), 10, false);
    EXPECT_TRUE(d.floored);
    EXPECT_EQ(d.resources.limits.at("memory").to_string(), "1100Mi");
    EXPECT_EQ(d.resources.requests.at("memory").to_string(), "1Gi");
    // Usage above live: the decrease is cancelled, no increase.
    d = apply_memory_usage_floor(live("1Gi", "2Gi"), {rl({{"memory", "1Gi"}}), rl({{"memory", "1Gi"}})}, qty("3Gi"),
                                 10, false);
    EXPECT_EQ(d.resources.limits.at("memory").to_string(), "2Gi");
    // Guaranteed keeps request == limit.
    d = apply_memory_usage_floor(live("2Gi", "2Gi"), {rl({{"memory", "1Gi"}}), rl({{"memory", "1Gi"}})},
                                 qty("1000Mi"), 10, true);
    EXPECT_EQ(d.resources.requests.at("memory"), d.resources.limits.at("memory"));
    // Low usage: target stands.
    d = apply_memory_usage_floor(live("1Gi", "2Gi"), {rl({{"memory", "1Gi"}}), rl({{"memory", "1Gi"}})}, qty("100Mi"),
                                 10, false);
    EXPECT_FALSE(d.floored);
}

}  // namespace
}  // namespace attune::core
