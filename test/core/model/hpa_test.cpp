#include "attune/core/model/hpa.hpp"

#include <gtest/gtest.h>

#include <boost/json.hpp>

namespace attune::core {
namespace {

constexpr const char* kHpaJson = R"({
  "metadata": {"name": "web", "namespace": "shop", "managedFields": [{"manager": "kube-controller-manager"}]},
  "spec": {"scaleTargetRef": {"apiVersion": "apps/v1", "kind": "Deployment", "name": "web"},
           "minReplicas": 0, "maxReplicas": 5,
           "metrics": [{"type": "External", "external": {"metric": {"name": "queue"}}},
                       {"type": "ContainerResource", "containerResource": {"name": "memory", "container": "app"}}]},
  "status": {"currentMetrics": [{"type": "External"}],
             "conditions": [{"type": "ScaledToZero", "status": "True", "reason": "ScaledToZero", "message": "idle"}]}
})";

TEST(DecodeHpa, ReadsTargetMetricsAndConditions) {
    auto r = decode_hpa(boost::json::parse(kHpaJson));
    ASSERT_TRUE(r.ok()) << r.error().message;
    const HpaView& h = r.value();
    EXPECT_EQ(h.target_kind, "Deployment");
    EXPECT_EQ(h.min_replicas, 0);
    EXPECT_EQ(h.max_replicas, 5);
    ASSERT_EQ(h.metrics.size(), 2u);
    EXPECT_EQ(h.metrics[1].resource_name, "memory");
    EXPECT_TRUE(hpa_has_resource_metric(h, {"memory"}));
    EXPECT_FALSE(hpa_has_resource_metric(h, {"cpu"}));
    const HpaView hpas[] = {h};
    EXPECT_EQ(find_matching_hpa(hpas, "Deployment", "web"), &hpas[0]);
    EXPECT_EQ(find_matching_hpa(hpas, "Deployment", "api"), nullptr);
    EXPECT_FALSE(decode_hpa(boost::json::parse(R"({"spec":{}})")).ok());
}

}  // namespace
}  // namespace attune::core
