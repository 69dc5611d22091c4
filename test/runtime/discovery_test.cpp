#include <attune/kube/discovery.hpp>

#include <boost/json.hpp>

#include <gtest/gtest.h>

namespace attune::kube {
namespace {
namespace json = boost::json;

TEST(Discovery, ServerVersion) {
    EXPECT_EQ(server_version_from(json::parse(R"({"major":"1","minor":"36","gitVersion":"v1.36.3"})")).git_version,
              "v1.36.3");
    EXPECT_FALSE(server_version_from(json::parse("{}")).error.empty());
}

TEST(Discovery, CoreV1ResourcesIncludeSubresources) {
    auto p = api_resources_from(json::parse(
        R"({"kind":"APIResourceList","groupVersion":"v1","resources":[{"name":"pods"},{"name":"pods/resize"},{"name":7}]})"));
    EXPECT_EQ(p.core_v1_resources, (std::vector<std::string>{"pods", "pods/resize"}));
    EXPECT_FALSE(api_resources_from(json::parse("[]")).error.empty());
}

TEST(Discovery, OpenApiDocuments) {
    auto root = json::parse(R"({"paths":{"api/v1":{"serverRelativeURL":"/openapi/v3/api/v1?hash=ABC"}}})");
    EXPECT_EQ(openapi_path_for(root, "api/v1"), "/openapi/v3/api/v1?hash=ABC");
    EXPECT_EQ(openapi_path_for(root, "apis/autoscaling/v2"), "");
    EXPECT_TRUE(pod_spec_has_resources(json::parse(
        R"({"components":{"schemas":{"io.k8s.api.core.v1.PodSpec":{"properties":{"containers":{},"resources":{}}}}}})")));
    EXPECT_FALSE(pod_spec_has_resources(json::parse(
        R"({"components":{"schemas":{"io.k8s.api.core.v1.PodSpec":{"properties":{"containers":{}}}}}})")));
    EXPECT_TRUE(hpa_conditions_list_scaled_to_zero(json::parse(
        R"({"components":{"schemas":{"io.k8s.api.autoscaling.v2.HorizontalPodAutoscalerCondition":{"properties":{"type":{"enum":["AbleToScale","ScaledToZero"]}}}}}})")));
    EXPECT_FALSE(hpa_conditions_list_scaled_to_zero(json::parse(R"({"components":{}})")));
}

}  // namespace
}  // namespace attune::kube
