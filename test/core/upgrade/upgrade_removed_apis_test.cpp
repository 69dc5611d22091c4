#include "attune/core/upgrade/upgrade_removed_apis.hpp"

#include <gtest/gtest.h>

#include <boost/json.hpp>

namespace attune::core {
namespace {

TEST(ParseDeprecatedApiRequests, ReadsOnlyThatGaugeAtOne) {
    const std::string text = R"(# HELP apiserver_requested_deprecated_apis [STABLE] Gauge of deprecated APIs that have been requested, broken out by API group, version, resource, subresource, and removed_release.
# TYPE apiserver_requested_deprecated_apis gauge
apiserver_requested_deprecated_apis{group="networking.k8s.io",removed_release="1.37",resource="servicecidrs",subresource="",version="v1beta1"} 1
apiserver_requested_deprecated_apis{group="odd\"group",removed_release="1.40",resource="x",subresource="status",version="v1"} 1
apiserver_requested_deprecated_apis{group="gone",removed_release="1.30",resource="y",subresource="",version="v1"} 0
apiserver_requested_deprecated_apis_total{group="longer.name"} 1
apiserver_request_total{code="200"} 12
)";
    auto r = parse_deprecated_api_requests(text);
    ASSERT_TRUE(r.ok()) << r.error().message;
    ASSERT_EQ(r.value().size(), 2u);
    EXPECT_EQ(r.value()[0].group, "networking.k8s.io");
    EXPECT_EQ(r.value()[0].version, "v1beta1");
    EXPECT_EQ(r.value()[0].resource, "servicecidrs");
    EXPECT_EQ(r.value()[0].removed_release, "1.37");
    EXPECT_EQ(r.value()[1].group, "odd\"group");
    EXPECT_EQ(r.value()[1].subresource, "status");
    EXPECT_TRUE(parse_deprecated_api_requests("").value().empty());
}

TEST(ParseDeprecatedApiRequests, MalformedSeriesIsAnError) {
    auto r = parse_deprecated_api_requests("x 1\napiserver_requested_deprecated_apis{group=\"a 1\n");
    ASSERT_FALSE(r.ok());
    EXPECT_EQ(r.error().code, "invalid_metrics");
    EXPECT_EQ(r.error().message, "/metrics line 2: malformed apiserver_requested_deprecated_apis labels");
}

TEST(Discovery, GroupVersionsAndServedResources) {
    auto gl = group_versions_from_group_list(boost::json::parse(
        R"({"kind":"APIGroupList","groups":[{"name":"apps","versions":[{"groupVersion":"apps/v1","version":"v1"}]},
            {"name":"networking.k8s.io","versions":[{"groupVersion":"networking.k8s.io/v1"},{"groupVersion":"networking.k8s.io/v1beta1"}]}]})"));
    ASSERT_TRUE(gl.ok());
    EXPECT_EQ(gl.value(), (std::vector<std::string>{"apps/v1", "networking.k8s.io/v1", "networking.k8s.io/v1beta1"}));
    EXPECT_FALSE(group_versions_from_group_list(boost::json::parse("{}")).ok());

    auto rl = served_from_resource_list(boost::json::parse(
        R"({"groupVersion":"networking.k8s.io/v1beta1","resources":[{"name":"servicecidrs"},{"name":"servicecidrs/status"},{"name":"ipaddresses"}]})"));
    ASSERT_TRUE(rl.ok());
    EXPECT_EQ(rl.value().group_version, "networking.k8s.io/v1beta1");
    EXPECT_EQ(rl.value().resources, (std::vector<std::string>{"servicecidrs", "ipaddresses"}));
    EXPECT_FALSE(served_from_resource_list(boost::json::parse(R"({"resources":[]})")).ok());
}

TEST(RemovalGroupVersions, OnlyThoseRemovedAtOrBeforeTheTarget) {
    UpgradeMatrix m;
    m.api_removals = {{"batch", "v1beta1", "cronjobs", {1, 25}},
                      {"networking.k8s.io", "v1beta1", "servicecidrs", {1, 37}},
                      {"networking.k8s.io", "v1beta1", "ipaddresses", {1, 37}},
                      {"resource.k8s.io", "v1beta1", "deviceclasses", {1, 38}}};
    EXPECT_EQ(removal_group_versions(m, {1, 37}), (std::vector<std::string>{"batch/v1beta1", "networking.k8s.io/v1beta1"}));
    EXPECT_EQ(removal_group_versions(m, {1, 24}), (std::vector<std::string>{}));
}

TEST(RemovedApiReasons, OneReasonPerApiTheMetricFirst) {
    UpgradeMatrix m;
    m.api_removals = {{"networking.k8s.io", "v1beta1", "servicecidrs", {1, 37}}};
    std::vector<DeprecatedApiRequest> requested = {{"networking.k8s.io", "v1beta1", "servicecidrs", "", "1.37"},
                                                   {"networking.k8s.io", "v1beta1", "servicecidrs", "", "1.37"},
                                                   {"x", "v1", "y", "", "bogus"}};
    std::vector<ServedGroupVersion> served = {{"networking.k8s.io/v1beta1", {"servicecidrs"}}};
    auto r = removed_api_reasons(m, {1, 37}, requested, served);
    ASSERT_EQ(r.size(), 1u);
    EXPECT_EQ(r[0].cls, BlockClass::Actionable);
    EXPECT_EQ(r[0].check, "removed-api");
    EXPECT_NE(r[0].message.find("apiserver_requested_deprecated_apis"), std::string::npos);
    // Served but the resource is not: nothing.
    served = {{"networking.k8s.io/v1beta1", {"ipaddresses"}}};
    EXPECT_TRUE(removed_api_reasons(m, {1, 37}, {}, served).empty());
}

}  // namespace
}  // namespace attune::core
