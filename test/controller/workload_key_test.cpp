#include <attune/controller/workload_key.hpp>

#include <gtest/gtest.h>

namespace attune::controller {
namespace {

TEST(WorkloadKey, ParsesThreeParts) {
    EXPECT_EQ(parse_object_key("ns/Deployment/a"), (ObjectKey{"ns", "Deployment", "a"}));
    EXPECT_FALSE(parse_object_key("ns/a"));
    EXPECT_FALSE(parse_object_key("ns/Deployment/a/b"));
    EXPECT_FALSE(parse_object_key("/Deployment/a"));
    EXPECT_EQ((ObjectKey{"ns", "Deployment", "a"}).cache_key(), "ns/a");
}

TEST(WorkloadKey, WorkloadKinds) {
    EXPECT_TRUE(is_workload_kind("DaemonSet"));
    EXPECT_TRUE(is_workload_kind("Job"));
    EXPECT_TRUE(is_workload_kind("CronJob"));
    EXPECT_FALSE(is_workload_kind("Pod"));
    EXPECT_FALSE(is_workload_kind("AttunePolicy"));
}

}  // namespace
}  // namespace attune::controller
