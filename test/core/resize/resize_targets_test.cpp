#include "attune/core/resize/resize_targets.hpp"

#include <gtest/gtest.h>

#include "test_pods.hpp"

namespace attune::core {
namespace {

using testing::qty;
using testing::rl;

ContainerRecommendation rec(const char* name, const char* cpu, const char* cpu_limit, const char* mem,
                            const char* mem_limit) {
    ContainerRecommendation c;
    c.name = name;
    c.recommended = {qty(cpu), qty(cpu_limit), qty(mem), qty(mem_limit)};
    return c;
}

EffectivePolicy policy(ControlledValues cpu, ControlledValues memory) {
    EffectivePolicy p;
    p.cpu.controlled_values = cpu;
    p.memory.controlled_values = memory;
    return p;
}

TEST(ResizeTargets, RecommendedRequestsAndOnlyTheLimitsTheRecommendationSets) {
    WorkloadRecommendation w;
    w.containers.push_back(rec("app", "200m", "0", "128Mi", "256Mi"));
    const auto t = resize_targets(w, policy(ControlledValues::RequestsAndLimits, ControlledValues::RequestsAndLimits));
    ASSERT_EQ(t.targets.size(), 1u);
    EXPECT_EQ(t.targets[0].name, "app");
    EXPECT_EQ(t.targets[0].resources.requests, rl({{"cpu", "200m"}, {"memory", "128Mi"}}));
    EXPECT_EQ(t.targets[0].resources.limits, rl({{"memory", "256Mi"}})) << "a zero cpu limit means the pod has none";
    EXPECT_EQ(t.controlled_values, ControlledValues::RequestsAndLimits);
    EXPECT_FALSE(t.targets[0].memory_usage) << "no memory explanation: no usage floor input";
}

TEST(ResizeTargets, ARequestsOnlyLimitIsNeverTargeted) {
    WorkloadRecommendation w;
    w.containers.push_back(rec("app", "200m", "400m", "128Mi", "256Mi"));
    const auto only = resize_targets(w, policy(ControlledValues::RequestsOnly, ControlledValues::RequestsOnly));
    ASSERT_EQ(only.targets.size(), 1u);
    EXPECT_TRUE(only.targets[0].resources.limits.empty());
    EXPECT_EQ(only.controlled_values, ControlledValues::RequestsOnly);

    const auto mixed = resize_targets(w, policy(ControlledValues::RequestsOnly, ControlledValues::RequestsAndLimits));
    EXPECT_EQ(mixed.targets[0].resources.limits, rl({{"memory", "256Mi"}})) << "the cpu limit stays where it is";
    EXPECT_EQ(mixed.controlled_values, ControlledValues::RequestsAndLimits);

    EffectivePolicy per_container = policy(ControlledValues::RequestsOnly, ControlledValues::RequestsOnly);
    ContainerTuning ct;
    ct.container_name = "app";
    ct.cpu = per_container.cpu;
    ct.memory = per_container.memory;
    ct.cpu.controlled_values = ControlledValues::RequestsAndLimits;
    per_container.container_tunings.push_back(ct);
    EXPECT_EQ(resize_targets(w, per_container).targets[0].resources.limits, rl({{"cpu", "400m"}}))
        << "containerPolicies decide per container";
}

TEST(ResizeTargets, TheMemoryChainsRawPercentileFeedsTheUsageFloor) {
    WorkloadRecommendation w;
    auto c = rec("app", "200m", "0", "128Mi", "256Mi");
    c.memory = ResourceExplanation{};
    c.memory->raw_percentile = qty("90Mi");
    w.containers.push_back(c);
    const auto t = resize_targets(w, policy(ControlledValues::RequestsOnly, ControlledValues::RequestsOnly)).targets;
    ASSERT_EQ(t.size(), 1u);
    ASSERT_TRUE(t[0].memory_usage);
    EXPECT_EQ(*t[0].memory_usage, qty("90Mi"));
}

TEST(ResizeTargets, AContainerWithNothingRecommendedIsLeftOut) {
    WorkloadRecommendation w;
    w.containers.push_back(rec("app", "0", "0", "0", "0"));
    w.containers.push_back(rec("side", "50m", "0", "0", "0"));
    const auto t = resize_targets(w, policy(ControlledValues::RequestsOnly, ControlledValues::RequestsOnly)).targets;
    ASSERT_EQ(t.size(), 1u);
    EXPECT_EQ(t[0].name, "side");
}

TEST(ResizeTargets, WhichSkipsAreReported) {
    WorkloadRecommendation plain;
    plain.containers.push_back(rec("app", "200m", "0", "128Mi", "0"));
    WorkloadRecommendation filtered = plain;
    filtered.containers[0].cpu = ResourceExplanation{};
    filtered.containers[0].cpu->change_filter_applied = "min_change_filtered";

    auto held = [](const char* reason, std::vector<const char*> events) {
        ResizeHeld h;
        h.reason = reason;
        for (const char* e : events) h.events.push_back({"Warning", e, "resize", "", true});
        return h;
    };
    struct Case {
        const char* name;
        ResizeHeld held;
        const WorkloadRecommendation* rec;
        bool want;
    };
    const Case cases[] = {
        {"a pod already at its recommendation is not news", held("no_change", {"ResizeUnchanged"}), &plain, false},
        {"the memory clamp cancelled the change: ResizeUnchanged",
         held("no_change", {"ResizeUnchanged", "MemoryLimitClamped"}), &plain, true},
        {"the usage floor cancelled the change: ResizeUnchanged",
         held("no_change", {"ResizeUnchanged", "MemoryLimitUsageFloor"}), &plain, true},
        {"the recommender's change filter held it: ResizeUnchanged", held("no_change", {"ResizeUnchanged"}),
         &filtered, true},
        {"every other reason is reported", held("envelope_constraint", {"ResizeSkipped"}), &plain, true},
    };
    for (const auto& c : cases) EXPECT_EQ(skip_is_reported(c.held, *c.rec), c.want) << c.name;
}

}  // namespace
}  // namespace attune::core
