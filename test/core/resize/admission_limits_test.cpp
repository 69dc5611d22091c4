#include "attune/core/resize/admission_limits.hpp"

#include <gtest/gtest.h>

#include <boost/json.hpp>

#include "test_pods.hpp"

namespace attune::core {
namespace {

using testing::pod_from_json;
using testing::qty;
using testing::rl;

Pod with_app(const char* resources) {
    return pod_from_json(std::string(R"({"spec":{"containers":[{"name":"app","resources":)") + resources + "}]}}");
}

TEST(AdmissionLimits, DecodesLimitRangeAndQuota) {
    const auto lr = decode_limit_range(boost::json::parse(R"({"spec":{"limits":[
      {"type":"Container","min":{"cpu":"100m"},"max":{"cpu":"2","memory":"1Gi"},"maxLimitRequestRatio":{"cpu":"4"}},
      {"type":"Pod","max":{"memory":"2Gi"}},{"type":"PersistentVolumeClaim","max":{"storage":"1Gi"}}]}})"));
    ASSERT_TRUE(lr.ok()) << lr.error().message;
    ASSERT_EQ(lr.value().size(), 3u);
    EXPECT_EQ(lr.value()[0].max_limit_request_ratio.at("cpu"), qty("4"));
    const auto rq = decode_resource_quota(boost::json::parse(R"({"metadata":{"name":"team"},
      "spec":{"hard":{"requests.cpu":"4","limits.memory":"8Gi"}},"status":{"used":{"requests.cpu":"3500m"}}})"));
    ASSERT_TRUE(rq.ok());
    EXPECT_EQ(rq.value().name, "team");
    EXPECT_EQ(rq.value().used.at("requests.cpu"), qty("3.5"));
    EXPECT_EQ(decode_limit_range(boost::json::parse(R"({"spec":{"limits":[{"max":{"cpu":"x"}}]}})")).error().code,
              "invalid_limit_range");
    EXPECT_EQ(decode_resource_quota(boost::json::parse(R"([])")).error().code, "invalid_resource_quota");
}

TEST(AdmissionLimits, LimitRangeTable) {
    const std::vector<LimitRangeItem> items{
        {"Container", rl({{"cpu", "100m"}}), rl({{"cpu", "2"}}), rl({{"cpu", "4"}})},
        {"Pod", {}, rl({{"memory", "1Gi"}}), {}},
    };
    const Pod live = with_app(R"({"requests":{"cpu":"500m","memory":"256Mi"},"limits":{"cpu":"1"}})");
    struct Case {
        const char* what;
        const char* planned;
        std::size_t violations;
        const char* resource;
    } cases[] = {
        {"within bounds", R"({"requests":{"cpu":"1","memory":"512Mi"},"limits":{"cpu":"2"}})", 0, ""},
        {"request above max", R"({"requests":{"cpu":"1","memory":"256Mi"},"limits":{"cpu":"3"}})", 1, "cpu"},
        {"a decrease below min is refused too", R"({"requests":{"cpu":"50m","memory":"256Mi"},"limits":{"cpu":"1"}})", 2,
         "cpu"},  // min and ratio 1/50m > 4
        {"ratio: limit/request above 4", R"({"requests":{"cpu":"200m","memory":"256Mi"},"limits":{"cpu":"1"}})", 1, "cpu"},
        {"pod max on memory", R"({"requests":{"cpu":"500m","memory":"2Gi"},"limits":{"cpu":"1"}})", 1, "memory"},
        {"unchanged values are not re-judged", R"({"requests":{"cpu":"500m","memory":"256Mi"},"limits":{"cpu":"1"}})", 0, ""},
    };
    for (const auto& c : cases) {
        const auto v = check_limit_ranges(live, with_app(c.planned), items);
        EXPECT_EQ(v.size(), c.violations) << c.what;
        if (!v.empty()) {
            EXPECT_EQ(v[0].resource, c.resource) << c.what;
            EXPECT_EQ(v[0].gate, "limit_range");
        }
    }
}

TEST(AdmissionLimits, QuotaHeadroomBoundsIncreasesOnly) {
    const std::vector<QuotaFacts> quotas{{"team", rl({{"requests.cpu", "4"}, {"memory", "1Gi"}, {"limits.cpu", "8"}}),
                                          rl({{"requests.cpu", "3500m"}, {"memory", "900Mi"}, {"limits.cpu", "7"}})}};
    const Pod live = with_app(R"({"requests":{"cpu":"500m","memory":"100Mi"},"limits":{"cpu":"1"}})");
    EXPECT_TRUE(check_quota_headroom(live, with_app(R"({"requests":{"cpu":"1","memory":"100Mi"},"limits":{"cpu":"1"}})"), quotas)
                    .empty());  // +500m: exactly at hard
    const auto over = check_quota_headroom(live, with_app(R"({"requests":{"cpu":"1001m","memory":"100Mi"},"limits":{"cpu":"1"}})"), quotas);
    ASSERT_EQ(over.size(), 1u);
    EXPECT_EQ(over[0].message, "ResourceQuota team requests.cpu: used 3500m + 501m > hard 4000m");
    // Bare "memory" means requests.memory.
    EXPECT_EQ(check_quota_headroom(live, with_app(R"({"requests":{"cpu":"500m","memory":"300Mi"},"limits":{"cpu":"1"}})"), quotas)
                  .at(0).resource, "memory");
    EXPECT_EQ(check_quota_headroom(live, with_app(R"({"requests":{"cpu":"500m","memory":"100Mi"},"limits":{"cpu":"2500m"}})"), quotas)
                  .size(), 1u);  // limits.cpu +1.5 > 8
    // Decreases never violate, even over an already exceeded quota.
    const std::vector<QuotaFacts> full{{"full", rl({{"requests.cpu", "1"}}), rl({{"requests.cpu", "5"}})}};
    EXPECT_TRUE(check_quota_headroom(live, with_app(R"({"requests":{"cpu":"100m"}})"), full).empty());
}

}  // namespace
}  // namespace attune::core
