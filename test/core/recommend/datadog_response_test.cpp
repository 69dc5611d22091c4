#include "attune/core/recommend/datadog_response.hpp"

#include <gtest/gtest.h>

#include <string>

namespace attune::core {
namespace {

constexpr const char* kTwoContainers = R"({"status":"ok","res_type":"time_series","series":[
  {"metric":"kubernetes.cpu.usage.total","scope":"kube_container_name:web,kube_namespace:default",
   "tag_set":["kube_namespace:default","kube_container_name:web"],
   "pointlist":[[1700000000000,500000000],[1700000300000,1000000000.0],[1700000600000,null]]},
  {"metric":"kubernetes.cpu.usage.total","scope":"kube_container_name:sidecar",
   "tag_set":["kube_container_name:sidecar"],"pointlist":[[1700000000000.0,100000000]]}
]})";

TEST(DatadogResponse, SeriesPerContainerInCoresAndSeconds) {
    const auto r = decode_datadog_response(kTwoContainers, ResourceKind::Cpu);
    ASSERT_TRUE(r.ok()) << r.error().message;
    ASSERT_EQ(r.value().series.size(), 2u);
    EXPECT_EQ(r.value().series_total, 2u);
    const auto& web = r.value().series[0];
    EXPECT_EQ(web.labels.at("container"), "web");
    EXPECT_EQ(web.labels.at("scope"), "kube_container_name:web,kube_namespace:default");
    ASSERT_EQ(web.samples.size(), 2u);  // the null point is a gap, not a sample
    EXPECT_EQ(web.samples[0].timestamp, 1700000000);
    EXPECT_DOUBLE_EQ(web.samples[0].value, 0.5);
    EXPECT_DOUBLE_EQ(web.samples[1].value, 1.0);
    EXPECT_EQ(web.non_finite_dropped, 0);
    const auto& sidecar = r.value().series[1];
    EXPECT_EQ(sidecar.labels.at("container"), "sidecar");
    EXPECT_DOUBLE_EQ(sidecar.samples.at(0).value, 0.1);
    // Grouped as the Prometheus answers are.
    const auto by = group_by_label(r.value(), "container");
    EXPECT_EQ(by.at("web").samples.size(), 2u);
    EXPECT_EQ(by.at("sidecar").samples.size(), 1u);
}

TEST(DatadogResponse, MemoryIsBytesAndATaglessSeriesIsGroupedUnderEmpty) {
    const auto r = decode_datadog_response(
        R"({"status":"ok","series":[{"tag_set":[],"pointlist":[[1700000000000,536870912]]},{"pointlist":[]}]})",
        ResourceKind::Memory);
    ASSERT_TRUE(r.ok()) << r.error().message;
    ASSERT_EQ(r.value().series.size(), 2u);
    EXPECT_EQ(r.value().series[0].labels.at("container"), "");
    EXPECT_DOUBLE_EQ(r.value().series[0].samples.at(0).value, 536870912);
    EXPECT_TRUE(r.value().series[1].samples.empty());
    const auto empty = decode_datadog_response(R"({"status":"ok","series":[]})", ResourceKind::Cpu);
    ASSERT_TRUE(empty.ok());
    EXPECT_TRUE(empty.value().series.empty());
}

TEST(DatadogResponse, ErrorsAndMalformedOrPartialAnswersAreClearErrors) {
    const struct {
        const char* what;
        const char* body;
        const char* code;
        const char* message;
    } rows[] = {
        {"status error", R"({"status":"error","error":"Rule 'avg:' is invalid"})", "datadog_error",
         "datadog query error: Rule 'avg:' is invalid"},
        {"status error without text", R"({"status":"error"})", "datadog_error", "datadog query error: (no error text)"},
        {"an errors list", R"({"errors":["Forbidden","API key invalid"]})", "datadog_error",
         "datadog query error: Forbidden; API key invalid"},
        {"not JSON", "<html>502 Bad Gateway</html>", "invalid_response", "datadog answered something that is not JSON"},
        {"truncated", R"({"status":"ok","series":[{"pointlist":[[17000)", "invalid_response", "not JSON"},
        {"not an object", "[]", "invalid_response", "response: expected an object"},
        {"no status", R"({"series":[]})", "invalid_response",
         "response.status: expected \"ok\" or \"error\", got \"\""},
        {"another status", R"({"status":"warn","series":[]})", "invalid_response", "got \"warn\""},
        {"no series", R"({"status":"ok"})", "invalid_response", "response.series: missing"},
        {"series not a list", R"({"status":"ok","series":{}})", "invalid_response",
         "response.series: expected an array"},
        {"a series without pointlist", R"({"status":"ok","series":[{"tag_set":[]}]})", "invalid_response",
         "response.series[0].pointlist: missing"},
        {"a point of one value", R"({"status":"ok","series":[{"pointlist":[[1700000000000]]}]})", "invalid_response",
         "response.series[0].pointlist[0]: expected [milliseconds, value]"},
        {"a string value", R"({"status":"ok","series":[{"pointlist":[[1700000000000,"1"]]}]})", "invalid_response",
         "response.series[0].pointlist[0][1]: expected a number"},
        {"a null timestamp", R"({"status":"ok","series":[{"pointlist":[[null,1]]}]})", "invalid_response",
         "response.series[0].pointlist[0][0]: expected a number"},
        {"a tag that is not a string", R"({"status":"ok","series":[{"tag_set":[1],"pointlist":[]}]})",
         "invalid_response", "response.series[0].tag_set[0]: expected a string"},
    };
    for (const auto& r : rows) {
        SCOPED_TRACE(r.what);
        const auto d = decode_datadog_response(r.body, ResourceKind::Cpu);
        ASSERT_FALSE(d.ok());
        EXPECT_EQ(d.error().code, r.code);
        EXPECT_NE(d.error().message.find(r.message), std::string::npos) << d.error().message;
    }
}

TEST(DatadogResponse, NonFiniteValuesAreDroppedAndCounted) {
    // 1e400 overflows a double: JSON cannot say NaN, but a value can still be infinite.
    const auto r = decode_datadog_response(
        R"({"status":"ok","series":[{"tag_set":["kube_container_name:app"],"pointlist":[[1,1e400],[2,-1e400],[3,7]]}]})",
        ResourceKind::Memory);
    if (!r.ok()) GTEST_SKIP() << "this JSON parser refuses 1e400: " << r.error().message;
    EXPECT_EQ(r.value().series.at(0).non_finite_dropped, 2);
    EXPECT_EQ(r.value().series.at(0).samples.size(), 1u);
}

TEST(DatadogResponse, CapsBoundSeriesAndSamples) {
    PromDecodeLimits limits;
    limits.max_series = 1;
    limits.max_samples = 2;
    const auto r = decode_datadog_response(kTwoContainers, ResourceKind::Cpu, limits);
    ASSERT_TRUE(r.ok()) << r.error().message;
    EXPECT_TRUE(r.value().series_capped);
    EXPECT_EQ(r.value().series_total, 2u);
    ASSERT_EQ(r.value().series.size(), 1u);
    EXPECT_FALSE(r.value().samples_capped);
    limits.max_series = 0;
    const auto s = decode_datadog_response(kTwoContainers, ResourceKind::Cpu, limits);
    ASSERT_TRUE(s.ok());
    EXPECT_TRUE(s.value().samples_capped);
    EXPECT_TRUE(s.value().series[1].samples.empty());
}

TEST(DatadogResponse, ErrorTextOfANon200Body) {
    EXPECT_EQ(datadog_error_text(R"({"errors":["Forbidden"]})"), "Forbidden");
    EXPECT_EQ(datadog_error_text(R"({"errors":["a",1,"b"]})"), "a; b");
    EXPECT_EQ(datadog_error_text("Forbidden"), "");
    EXPECT_EQ(datadog_error_text(R"({"status":"error"})"), "");
}

TEST(DatadogResponse, RateLimitWaitFromTheHeaders) {
    using std::chrono::seconds;
    const struct {
        const char* reset;
        const char* period;
        seconds want;
    } rows[] = {
        {"25", "60", seconds(25)},                               // the time until the period resets
        {" 7 ", "", seconds(7)},       {"", "10", seconds(10)},  // no reset: the whole period
        {"soon", "30", seconds(30)},                             // not seconds: absent
        {"", "", seconds(60)},                                   // nothing: a minute
        {"-5", "", seconds(60)},       {"2.5", "", seconds(60)}, {"0", "", seconds(1)},  // never a retry at once
        {"999999", "", seconds(3600)},                                                   // never silenced for good
    };
    for (const auto& r : rows)
        EXPECT_EQ(datadog_rate_limit_wait(r.reset, r.period), r.want) << r.reset << "/" << r.period;
}

}  // namespace
}  // namespace attune::core
