#include "attune/core/resize/qos_compat.hpp"

#include <gtest/gtest.h>

#include "test_pods.hpp"

namespace attune::core {
namespace {

using testing::pod_from_json;
using testing::rl;

// A BestEffort pod (no resources at all) cannot get CPU or memory requests
// in place -> Blocked, ResizeBlocked=True, InPlaceResizeWouldChangeQoSClass.
TEST(QosCompatibility, BestEffortPodCannotReceiveRequests) {
    const Pod p = pod_from_json(R"({"spec":{"containers":[{"name":"app"}]}})");
    const auto r = check_qos_compatibility(p, {{"app", {rl({{"cpu", "100m"}}), {}}}}, true);
    EXPECT_FALSE(r.compatible);
    EXPECT_EQ(r.condition_type, "ResizeBlocked");
    EXPECT_EQ(r.reason, "InPlaceResizeWouldChangeQoSClass");
    EXPECT_EQ(r.current, QosClass::BestEffort);
    EXPECT_EQ(r.after, QosClass::Burstable);
    EXPECT_NE(r.message.find("recreate the pods"), std::string::npos);
}

struct Case {
    const char* name;
    const char* pod;
    ContainerResourceMap targets;
    bool compatible;
};

// The QoS check covers the whole pod: targeted containers, untargeted
// sidecars and init containers.
TEST(QosCompatibility, WholePodTable) {
    const char* guaranteed_with_sidecar = R"({"spec":{
      "initContainers":[{"name":"proxy","restartPolicy":"Always","resources":{"requests":{"cpu":"100m","memory":"64Mi"},"limits":{"cpu":"100m","memory":"64Mi"}}}],
      "containers":[{"name":"app","resources":{"requests":{"cpu":"1","memory":"1Gi"},"limits":{"cpu":"1","memory":"1Gi"}}}]}})";
    const char* burstable_sidecar = R"({"spec":{
      "initContainers":[{"name":"proxy","restartPolicy":"Always","resources":{"requests":{"cpu":"100m"}}}],
      "containers":[{"name":"app","resources":{"requests":{"cpu":"1","memory":"1Gi"},"limits":{"cpu":"1","memory":"1Gi"}}}]}})";
    const char* init_without_limits = R"({"spec":{
      "initContainers":[{"name":"setup"}],
      "containers":[{"name":"app","resources":{"requests":{"cpu":"1","memory":"1Gi"},"limits":{"cpu":"1","memory":"1Gi"}}}]}})";
    const Case cases[] = {
        {"Guaranteed stays Guaranteed when requests and limits move together", guaranteed_with_sidecar,
         {{"app", {rl({{"cpu", "2"}}), rl({{"cpu", "2"}})}}}, true},
        {"Guaranteed -> Burstable when only the request moves", guaranteed_with_sidecar,
         {{"app", {rl({{"cpu", "500m"}}), {}}}}, false},
        {"targeting the sidecar out of shape also breaks Guaranteed", guaranteed_with_sidecar,
         {{"proxy", {rl({{"memory", "32Mi"}}), {}}}}, false},
        {"an untargeted Burstable sidecar keeps the pod Burstable whatever app does", burstable_sidecar,
         {{"app", {rl({{"cpu", "2"}}), rl({{"cpu", "2"}})}}}, true},
        {"an init container without limits already made it Burstable", init_without_limits,
         {{"app", {rl({{"cpu", "500m"}}), {}}}}, true},
    };
    for (const auto& c : cases) EXPECT_EQ(check_qos_compatibility(pod_from_json(c.pod), c.targets, false).compatible, c.compatible) << c.name;
}

}  // namespace
}  // namespace attune::core
