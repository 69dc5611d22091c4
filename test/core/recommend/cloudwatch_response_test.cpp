// core::CloudWatchAnswer and the error helpers: GetMetricData pages into
// the recommender's series, CloudWatch's errors told apart, the backoff.
#include "attune/core/recommend/cloudwatch_response.hpp"

#include <gtest/gtest.h>

namespace attune::core {
namespace {

using namespace std::chrono_literals;

TEST(CloudWatchResponse, PagesContinueEachPodsContainerSeriesAndTheLastPageHasNoToken) {
    CloudWatchAnswer a(ResourceKind::Cpu, CloudWatchCpuUnit::Millicores, "web-");
    auto first = a.add_page(R"({"MetricDataResults":[
        {"Id":"search0","Label":"web-1 app","StatusCode":"PartialData","Timestamps":[100,160],"Values":[200,400]},
        {"Id":"search0","Label":"web-1 sidecar","StatusCode":"PartialData","Timestamps":[100],"Values":[50]},
        {"Id":"search0","Label":"worker-9 app","StatusCode":"PartialData","Timestamps":[100],"Values":[7000]}],
        "NextToken":"t2","Messages":[]})");
    ASSERT_TRUE(first) << first.error().message;
    EXPECT_EQ(first.value(), "t2");
    auto second = a.add_page(R"({"MetricDataResults":[
        {"Id":"search0","Label":"web-1 app","StatusCode":"Complete","Timestamps":[220],"Values":[600]},
        {"Id":"search0","Label":"web-2 app","StatusCode":"Complete","Timestamps":[220],"Values":[100]}]})");
    ASSERT_TRUE(second) << second.error().message;
    EXPECT_EQ(second.value(), "");
    EXPECT_EQ(a.pages(), 2);
    const auto r = a.take();
    ASSERT_EQ(r.series.size(), 3u) << "web-1 app continued, web-1 sidecar, web-2 app; worker-9 is another workload's";
    EXPECT_EQ(r.series[0].labels.at("pod"), "web-1");
    EXPECT_EQ(r.series[0].labels.at("container"), "app");
    ASSERT_EQ(r.series[0].samples.size(), 3u);
    EXPECT_DOUBLE_EQ(r.series[0].samples[0].value, 0.2);  // millicores to cores
    EXPECT_DOUBLE_EQ(r.series[0].samples[2].value, 0.6);
    EXPECT_DOUBLE_EQ(r.series[0].samples[2].timestamp, 220);
    EXPECT_EQ(r.series[1].labels.at("container"), "sidecar");
    EXPECT_EQ(r.series[2].labels.at("pod"), "web-2");
}

TEST(CloudWatchResponse, CpuUnitsBecomeCoresAndMemoryStaysBytes) {
    struct Case {
        ResourceKind resource;
        CloudWatchCpuUnit unit;
        double value, want;
    };
    for (const auto& c : {Case{ResourceKind::Cpu, CloudWatchCpuUnit::Millicores, 250, 0.25},
                          Case{ResourceKind::Cpu, CloudWatchCpuUnit::Cores, 0.25, 0.25},
                          Case{ResourceKind::Cpu, CloudWatchCpuUnit::Nanocores, 250e6, 0.25},
                          Case{ResourceKind::Memory, CloudWatchCpuUnit::Nanocores, 1048576, 1048576}}) {
        CloudWatchAnswer a(c.resource, c.unit, "");
        ASSERT_TRUE(a.add_page(R"({"MetricDataResults":[{"Label":"p c","Timestamps":[1],"Values":[)" +
                               std::to_string(c.value) + "]}]}"));
        EXPECT_DOUBLE_EQ(a.take().series.at(0).samples.at(0).value, c.want);
    }
}

TEST(CloudWatchResponse, BrokenAnswersAndRefusedResultsAreClearErrors) {
    struct Case {
        const char* body;
        const char* code;
        const char* says;
    };
    for (
        const auto& c :
        {Case{"<html>", "invalid_response", "not JSON"}, Case{"{}", "invalid_response", "response.MetricDataResults"},
         Case{R"({"MetricDataResults":[{"Label":"p c","Timestamps":[1,2],"Values":[1]}]})", "invalid_response",
              "differ in length"},
         Case{R"({"MetricDataResults":[{"Label":"p c","Timestamps":["x"],"Values":[1]}]})", "invalid_response",
              "Timestamps[0]"},
         Case{
             R"({"MetricDataResults":[{"Label":"p c","StatusCode":"Forbidden","Messages":[{"Code":"Forbidden","Value":"no access to ContainerInsights"}]}]})",
             "cloudwatch_error", "Forbidden: no access to ContainerInsights"}}) {
        CloudWatchAnswer a(ResourceKind::Cpu, CloudWatchCpuUnit::Millicores, "");
        const auto r = a.add_page(c.body);
        ASSERT_FALSE(r) << c.body;
        EXPECT_EQ(r.error().code, c.code);
        EXPECT_NE(r.error().message.find(c.says), std::string::npos) << r.error().message;
    }
}

TEST(CloudWatchResponse, TheSeriesCapKeepsTheFirstSeries) {
    PromDecodeLimits limits;
    limits.max_series = 1;
    CloudWatchAnswer a(ResourceKind::Memory, CloudWatchCpuUnit::Millicores, "", limits);
    ASSERT_TRUE(a.add_page(R"({"MetricDataResults":[{"Label":"p a","Timestamps":[1],"Values":[1]},
                                                    {"Label":"p b","Timestamps":[1],"Values":[1]}]})"));
    const auto r = a.take();
    EXPECT_EQ(r.series.size(), 1u);
    EXPECT_TRUE(r.series_capped);
    EXPECT_EQ(r.series_total, 2u);
}

TEST(CloudWatchResponse, ErrorsAreReadFromTheBodyOrTheQueryErrorHeader) {
    struct Case {
        const char* body;
        const char* header;
        const char* code;
        const char* message;
    };
    for (const auto& c :
         {Case{R"({"__type":"com.amazon.coral.availability#ThrottlingException","message":"Rate exceeded"})", "",
               "ThrottlingException", "Rate exceeded"},
          Case{R"({"__type":"SignatureDoesNotMatch","Message":"The request signature we calculated does not match"})",
               "", "SignatureDoesNotMatch", "The request signature we calculated does not match"},
          Case{"", "Throttling;Sender", "Throttling", ""}, Case{"oops", "", "", ""}}) {
        const auto e = cloudwatch_error(c.body, c.header);
        EXPECT_EQ(e.code, c.code) << c.body;
        EXPECT_EQ(e.message, c.message) << c.body;
    }
}

TEST(CloudWatchResponse, ThrottlingAndAuthenticationErrorsAreToldApart) {
    EXPECT_TRUE(cloudwatch_throttled(400, "ThrottlingException"));
    EXPECT_TRUE(cloudwatch_throttled(400, "Throttling"));
    EXPECT_TRUE(cloudwatch_throttled(429, ""));
    EXPECT_FALSE(cloudwatch_throttled(400, "InvalidParameterValue"));
    EXPECT_FALSE(cloudwatch_throttled(403, "SignatureDoesNotMatch"));
    EXPECT_TRUE(cloudwatch_auth_error(403, "SignatureDoesNotMatch"));
    EXPECT_TRUE(cloudwatch_auth_error(400, "UnrecognizedClientException"));
    EXPECT_TRUE(cloudwatch_auth_error(400, "ExpiredTokenException"));
    EXPECT_FALSE(cloudwatch_auth_error(400, "ThrottlingException"));
}

TEST(CloudWatchResponse, TheRetryDelayDoublesWithJitterUpTo20Seconds) {
    EXPECT_EQ(cloudwatch_retry_delay(0, 1.0), 1000ms);
    EXPECT_EQ(cloudwatch_retry_delay(1, 1.0), 2000ms);
    EXPECT_EQ(cloudwatch_retry_delay(2, 0.5), 2000ms);
    EXPECT_EQ(cloudwatch_retry_delay(10, 1.0), 20000ms);
    EXPECT_EQ(cloudwatch_retry_delay(3, 0.0), 0ms);
    EXPECT_EQ(cloudwatch_retry_delay(1, 7.0), 2000ms) << "jitter is clamped to [0, 1]";
}

}  // namespace
}  // namespace attune::core
