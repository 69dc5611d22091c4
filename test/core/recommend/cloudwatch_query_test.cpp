// core::cloudwatch_*: the Go original's SEARCH expression per resource, the
// GetMetricData body, the period, and the queries of one workload.
#include "attune/core/recommend/cloudwatch_query.hpp"

#include <gtest/gtest.h>

#include <boost/json.hpp>

namespace attune::core {
namespace {

using namespace std::chrono_literals;

TEST(CloudWatchQuery, TheSearchIsTheGoOriginalsPerResource) {
    const CloudWatchQuerySpec spec{"prod", "shop", 300s};
    EXPECT_EQ(cloudwatch_search_expression(ResourceKind::Cpu, spec).value(),
              "SEARCH('{ContainerInsights,ClusterName,Namespace,PodName,ContainerName} "
              "MetricName=\"container_cpu_usage_total\" ClusterName=\"prod\" Namespace=\"shop\"', 'Average', 300)");
    EXPECT_EQ(cloudwatch_search_expression(ResourceKind::Memory, spec).value(),
              "SEARCH('{ContainerInsights,ClusterName,Namespace,PodName,ContainerName} "
              "MetricName=\"container_memory_working_set\" ClusterName=\"prod\" Namespace=\"shop\"', 'Average', 300)");
}

TEST(CloudWatchQuery, AValueThatCouldEndTheSearchStringIsRefused) {
    for (const auto& bad : {std::string("a\"b"), std::string("a'b"), std::string("a b"), std::string()}) {
        const auto r = cloudwatch_search_expression(ResourceKind::Cpu, {bad, "shop", 60s});
        ASSERT_FALSE(r) << bad;
        EXPECT_EQ(r.error().code, "invalid_dimension_value");
        EXPECT_FALSE(cloudwatch_search_expression(ResourceKind::Cpu, {"prod", bad, 60s})) << bad;
    }
}

TEST(CloudWatchQuery, ThePeriodIsWholeMinutesAtLeastOne) {
    struct Case {
        std::chrono::seconds in, want;
    };
    for (const auto& c : {Case{0s, 60s}, Case{30s, 60s}, Case{60s, 60s}, Case{61s, 120s}, Case{300s, 300s},
                          Case{std::chrono::seconds(48h), std::chrono::seconds(24h)}})
        EXPECT_EQ(cloudwatch_period(c.in), c.want) << c.in.count();
}

TEST(CloudWatchQuery, TheBodyAsksForOneSearchOldestFirstAndCarriesTheToken) {
    const auto first = boost::json::parse(cloudwatch_request_body("SEARCH(x)", 90s, 1000, 4600, ""));
    EXPECT_EQ(first.at("StartTime").as_int64(), 1000);
    EXPECT_EQ(first.at("EndTime").as_int64(), 4600);
    EXPECT_EQ(first.at("ScanBy").as_string(), "TimestampAscending");
    EXPECT_FALSE(first.as_object().contains("NextToken"));
    const auto& q = first.at("MetricDataQueries").as_array().at(0);
    EXPECT_EQ(q.at("Expression").as_string(), "SEARCH(x)");
    EXPECT_EQ(q.at("Period").as_int64(), 120);
    EXPECT_EQ(q.at("Label").as_string(), kCloudWatchSeriesLabel);
    EXPECT_TRUE(q.at("ReturnData").as_bool());
    const auto next = boost::json::parse(cloudwatch_request_body("SEARCH(x)", 90s, 1000, 4600, "page-2"));
    EXPECT_EQ(next.at("NextToken").as_string(), "page-2");
}

}  // namespace
}  // namespace attune::core
