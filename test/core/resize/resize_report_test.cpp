#include "attune/core/resize/resize_report.hpp"

#include <gtest/gtest.h>

#include "test_pods.hpp"

namespace attune::core {
namespace {

using namespace std::chrono;
using testing::pod_from_json;

const Pod kLive = pod_from_json(R"({"spec":{"containers":[
  {"name":"app","resources":{"requests":{"cpu":"500m","memory":"256Mi"},"limits":{"memory":"512Mi"}}},
  {"name":"log","resources":{"requests":{"cpu":"100m","memory":"64Mi"}}}],
  "initContainers":[{"name":"proxy","restartPolicy":"Always","resources":{"requests":{"cpu":"100m"}}},
                    {"name":"setup","resources":{"requests":{"cpu":"1"}}}]}})");

TEST(ResizeReport, OneChangePerContainerTheResizeTouches) {
    const Pod planned = pod_from_json(R"({"spec":{"containers":[
      {"name":"app","resources":{"requests":{"cpu":"200m","memory":"128Mi"},"limits":{"memory":"512Mi"}}},
      {"name":"log","resources":{"requests":{"cpu":"100m","memory":"64Mi"}}}],
      "initContainers":[{"name":"proxy","restartPolicy":"Always","resources":{"requests":{"cpu":"50m"}}},
                        {"name":"setup","resources":{"requests":{"cpu":"2"}}}]}})");
    const auto changes = container_changes(kLive, planned);
    ASSERT_EQ(changes.size(), 2u) << "log is unchanged; a regular init container is never resized";
    EXPECT_EQ(changes[0].container, "app");
    EXPECT_EQ(changes[0].resource, HistoryResource::CpuAndMemory);
    EXPECT_EQ(changes[1].container, "proxy");
    EXPECT_EQ(changes[1].resource, HistoryResource::Cpu);
    EXPECT_EQ(describe_changes(changes, NumberStyle::Exact),
              "app cpu 500m -> 200m, memory 256Mi/512Mi -> 128Mi/512Mi; proxy cpu 100m -> 50m");

    const Timestamp now = sys_days(2026y / December / 4) + 12h;
    const auto h = history_entries(changes, "web", HistoryMethod::InPlace, HistoryResult::Reverted, "oomkill", now);
    ASSERT_EQ(h.size(), 2u);
    EXPECT_EQ(h[0].workload, "web");
    EXPECT_EQ(h[0].container, "app");
    EXPECT_EQ(h[0].from, "cpu 500m, memory 256Mi/512Mi");
    EXPECT_EQ(h[0].to, "cpu 200m, memory 128Mi/512Mi");
    EXPECT_EQ(h[0].result, HistoryResult::Reverted);
    EXPECT_EQ(h[0].reason, "oomkill");
    EXPECT_EQ(h[1].from, "100m");
    EXPECT_EQ(h[1].to, "50m");
    EXPECT_EQ(h[1].timestamp, now);
}

TEST(ResizeReport, WhatAHeldTargetWouldHaveChanged) {
    ContainerTarget t{"app", {testing::rl({{"cpu", "2"}}), testing::rl({{"memory", "1Gi"}})}, std::nullopt};
    const std::vector<ContainerTarget> targets{t};
    const auto only = target_changes(kLive, targets, ControlledValues::RequestsOnly);
    ASSERT_EQ(only.size(), 1u);
    EXPECT_EQ(describe_changes(only, NumberStyle::Exact), "app cpu 500m -> 2") << "RequestsOnly leaves the limit alone";
    const auto both = target_changes(kLive, targets, ControlledValues::RequestsAndLimits);
    EXPECT_EQ(describe_changes(both, NumberStyle::Exact), "app cpu 500m -> 2, memory 256Mi/512Mi -> 256Mi/1Gi");
    // The Events' words: millicores, Mi/Gi.
    EXPECT_EQ(describe_changes(both, NumberStyle::Readable), "app cpu 500m -> 2000m, memory 256Mi/512Mi -> 256Mi/1Gi");
}

TEST(ResizeReport, NothingChangedNothingToReport) {
    EXPECT_TRUE(container_changes(kLive, kLive).empty());
    EXPECT_EQ(describe_changes({}, NumberStyle::Exact), "");
}

}  // namespace
}  // namespace attune::core
