#include "attune/core/model/workload_view.hpp"

#include <gtest/gtest.h>

#include <boost/json.hpp>

namespace attune::core {
namespace {

TEST(DecodeWorkload, ReadsSpecReplicasOnlyAndNothingForDaemonSetJobOrCronJob) {
    auto zero = decode_workload("StatefulSet", boost::json::parse(R"({"spec":{"replicas":0},"status":{"replicas":2}})"));
    ASSERT_TRUE(zero.ok());
    EXPECT_EQ(zero.value().spec_replicas, 0);
    auto defaulted = decode_workload("ReplicaSet", boost::json::parse(R"({"spec":{}})"));
    EXPECT_EQ(defaulted.value().spec_replicas, 1);
    for (const char* k : {"DaemonSet", "Job", "CronJob"}) {
        auto w = decode_workload(k, boost::json::parse(R"({"spec":{"replicas":0}})"));
        ASSERT_TRUE(w.ok());
        EXPECT_FALSE(w.value().spec_replicas.has_value()) << k;
    }
    EXPECT_FALSE(decode_workload("Pod", boost::json::parse("{}")).ok());
    auto bad = decode_workload("Deployment", boost::json::parse(R"({"spec":{"replicas":"three"}})"));
    ASSERT_FALSE(bad.ok());
    EXPECT_EQ(bad.error().code, "invalid_workload");
}

}  // namespace
}  // namespace attune::core
