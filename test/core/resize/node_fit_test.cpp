#include "attune/core/resize/node_fit.hpp"

#include <gtest/gtest.h>

#include <boost/json.hpp>

#include "test_pods.hpp"

namespace attune::core {
namespace {

using testing::pod_from_json;
using testing::qty;
using testing::rl;

TEST(NodeFit, DecodesAllocatableAndPressure) {
    const auto n = decode_node_facts(boost::json::parse(R"({"metadata":{"name":"n1"},"status":{
      "allocatable":{"cpu":"4","memory":"8Gi","pods":"110"},
      "conditions":[{"type":"Ready","status":"True"},{"type":"MemoryPressure","status":"True"},
                    {"type":"DiskPressure","status":"False"},{"type":"PIDPressure","status":"Unknown"}]}})"));
    ASSERT_TRUE(n.ok()) << n.error().message;
    EXPECT_EQ(n.value().name, "n1");
    EXPECT_EQ(n.value().allocatable.at("cpu"), qty("4"));
    EXPECT_TRUE(n.value().memory_pressure);
    EXPECT_FALSE(n.value().disk_pressure);
    EXPECT_FALSE(n.value().pid_pressure);  // only "True" counts
    const auto bad = decode_node_facts(boost::json::parse(R"({"status":{"allocatable":{"cpu":"lots"}}})"));
    ASSERT_FALSE(bad.ok());
    EXPECT_EQ(bad.error().code, "invalid_node");
}

// Each other pod counts as max(sum of containers, envelope); finished pods
// and the pod itself do not count.
TEST(NodeFit, OtherPodsCountAsTheSchedulerCountsThem) {
    const std::vector<Pod> pods{
        pod_from_json(R"({"metadata":{"uid":"self"},"spec":{"containers":[{"name":"a","resources":{"requests":{"cpu":"1"}}}]},"status":{"phase":"Running"}})"),
        pod_from_json(R"({"metadata":{"uid":"env"},"spec":{"resources":{"requests":{"cpu":"2"}},"containers":[{"name":"a","resources":{"requests":{"cpu":"500m","memory":"1Gi"}}}]},"status":{"phase":"Running"}})"),
        pod_from_json(R"({"metadata":{"uid":"sum"},"spec":{"containers":[{"name":"a","resources":{"requests":{"cpu":"300m"}}},{"name":"b","resources":{"requests":{"cpu":"200m"}}}]},"status":{"phase":"Pending"}})"),
        pod_from_json(R"({"metadata":{"uid":"done"},"spec":{"containers":[{"name":"a","resources":{"requests":{"cpu":"8"}}}]},"status":{"phase":"Succeeded"}})"),
    };
    const auto others = sum_pod_requests(pods, "self");
    EXPECT_EQ(others.at("cpu"), qty("2500m"));
    EXPECT_EQ(others.at("memory").to_string(), "1Gi");
}

TEST(NodeFit, RoomIsAllocatableMinusOthers) {
    NodeFacts n{"n1", rl({{"cpu", "4"}}), false, false, false};
    EXPECT_TRUE(check_node_room(n, rl({{"cpu", "3"}}), rl({{"cpu", "1"}}), "cpu").fits);  // exactly full fits
    const auto over = check_node_room(n, rl({{"cpu", "3"}}), rl({{"cpu", "1001m"}}), "cpu");
    EXPECT_FALSE(over.fits);
    EXPECT_EQ(over.message, "node n1 cpu: 3000m requested by other pods + 1001m planned > 4000m allocatable");
    EXPECT_FALSE(check_node_room(n, {}, rl({{"memory", "1Mi"}}), "memory").fits);  // unreported: fail closed
}

}  // namespace
}  // namespace attune::core
