#include "attune/core/recommend/prometheus_response.hpp"

#include <gtest/gtest.h>

#include <string>

namespace attune::core {
namespace {

constexpr const char* kMatrix = R"({"status":"success","data":{"resultType":"matrix","result":[
  {"metric":{"container":"app"},"values":[[1767225600,"0.25"],[1767225900.5,"0.5"],[1767226200,"NaN"]]},
  {"metric":{"container":"sidecar"},"values":[[1767225600,"+Inf"],[1767225900,"-Inf"],[1767226200,"1e-3"]]}
]}})";

TEST(PrometheusResponse, MatrixIntoSeriesWithNonFiniteSamplesDroppedAndCounted) {
    const auto r = decode_prometheus_response(kMatrix);
    ASSERT_TRUE(r.ok()) << r.error().message;
    EXPECT_EQ(r.value().result_type, "matrix");
    ASSERT_EQ(r.value().series.size(), 2u);
    const auto& app = r.value().series[0];
    EXPECT_EQ(app.labels.at("container"), "app");
    ASSERT_EQ(app.samples.size(), 2u);
    EXPECT_EQ(app.samples[0].timestamp, 1767225600);
    EXPECT_EQ(app.samples[0].value, 0.25);
    EXPECT_EQ(app.samples[1].timestamp, 1767225900.5);
    EXPECT_EQ(app.non_finite_dropped, 1);
    const auto& sidecar = r.value().series[1];
    EXPECT_EQ(sidecar.non_finite_dropped, 2);
    ASSERT_EQ(sidecar.samples.size(), 1u);
    EXPECT_EQ(sidecar.samples[0].value, 0.001);
    EXPECT_FALSE(r.value().series_capped);
}

TEST(PrometheusResponse, VectorAndScalar) {
    const auto v = decode_prometheus_response(R"({"status":"success","data":{"resultType":"vector","result":[
      {"metric":{"pod":"web-1"},"value":[1767225600,"0.2"]},{"metric":{"pod":"web-2"},"value":[1767225600,"NaN"]}]},
      "warnings":["partial"]})");
    ASSERT_TRUE(v.ok()) << v.error().message;
    ASSERT_EQ(v.value().series.size(), 2u);
    EXPECT_EQ(v.value().series[0].samples.at(0).value, 0.2);
    EXPECT_TRUE(v.value().series[1].samples.empty());
    EXPECT_EQ(v.value().series[1].non_finite_dropped, 1);
    EXPECT_EQ(v.value().warnings, std::vector<std::string>{"partial"});
    const auto s = decode_prometheus_response(R"({"status":"success","data":{"resultType":"scalar","result":[1767225600,"3"]}})");
    ASSERT_TRUE(s.ok());
    EXPECT_EQ(s.value().series.at(0).samples.at(0).value, 3);
    const auto empty = decode_prometheus_response(R"({"status":"success","data":{"resultType":"matrix","result":[]}})");
    ASSERT_TRUE(empty.ok());
    EXPECT_TRUE(empty.value().series.empty());
}

TEST(PrometheusResponse, StatusErrorIsAClearError) {
    const auto r = decode_prometheus_response(
        R"({"status":"error","errorType":"bad_data","error":"1:10: parse error: unexpected \"}\""})");
    ASSERT_FALSE(r.ok());
    EXPECT_EQ(r.error().code, "prometheus_error");
    EXPECT_EQ(r.error().message, "prometheus error (bad_data): 1:10: parse error: unexpected \"}\"");
}

TEST(PrometheusResponse, GarbageAndWrongShapesAreClearErrors) {
    struct Row {
        const char* body;
        const char* in_message;
    } rows[] = {
        {"<html>502 Bad Gateway</html>", "not JSON"},
        {"", "not JSON"},
        {R"({"status":"success","data":{"resultType":"matrix","result":[)", "not JSON"},
        {"[1,2]", "response: expected an object"},
        {R"({"status":"weird"})", "response.status"},
        {R"({"status":"success"})", "response.data: missing"},
        {R"({"status":"success","data":{"resultType":"matrix"}})", "response.data.result: missing"},
        {R"({"status":"success","data":{"resultType":"streams","result":[]}})", "resultType"},
        {R"({"status":"success","data":{"resultType":"matrix","result":{}}})", "expected an array"},
        {R"({"status":"success","data":{"resultType":"matrix","result":[{"values":[[1,"x"]]}]}})",
         "response.data.result[0].values[0][1]: sample value \"x\" is not a number"},
        {R"({"status":"success","data":{"resultType":"matrix","result":[{"values":[[1]]}]}})", "[timestamp"},
        {R"({"status":"success","data":{"resultType":"matrix","result":[{"metric":{"a":1},"values":[]}]}})",
         "metric.a: expected a string"},
        {R"({"status":"success","data":{"resultType":"vector","result":[{"metric":{}}]}})", "value: missing"},
        {R"({"status":"success","data":{"resultType":"matrix","result":[{"values":[["t","1"]]}]}})", "expected a number"},
    };
    for (const auto& r : rows) {
        const auto d = decode_prometheus_response(r.body);
        ASSERT_FALSE(d.ok()) << r.body;
        EXPECT_EQ(d.error().code, "invalid_response") << r.body;
        EXPECT_NE(d.error().message.find(r.in_message), std::string::npos) << d.error().message;
    }
}

std::string series_json(const std::string& container, const std::string& pod, int samples) {
    std::string s = R"({"metric":{"container":")" + container + R"(","pod":")" + pod + R"("},"values":[)";
    for (int i = 0; i < samples; ++i) s += (i ? "," : "") + std::string("[") + std::to_string(1000 + i) + ",\"1\"]";
    return s + "]}";
}

TEST(PrometheusResponse, SeriesCapKeepsOneSeriesPerContainerFirst) {
    // 4 "app" pods then one "sidecar": a cap of 2 keeps app's first and sidecar's, not two app pods.
    std::string body = R"({"status":"success","data":{"resultType":"matrix","result":[)";
    for (int i = 0; i < 4; ++i) body += series_json("app", "p" + std::to_string(i), 1) + ",";
    body += series_json("sidecar", "p0", 1) + "]}}";
    PromDecodeLimits limits;
    limits.max_series = 2;
    const auto r = decode_prometheus_response(body, limits);
    ASSERT_TRUE(r.ok());
    EXPECT_TRUE(r.value().series_capped);
    EXPECT_EQ(r.value().series_total, 5u);
    ASSERT_EQ(r.value().series.size(), 2u);
    EXPECT_EQ(r.value().series[0].labels.at("pod"), "p0");
    EXPECT_EQ(r.value().series[1].labels.at("container"), "sidecar");
    // Cap 3: the distinct ones, then the next in answer order (p1).
    limits.max_series = 3;
    const auto r3 = decode_prometheus_response(body, limits);
    ASSERT_EQ(r3.value().series.size(), 3u);
    EXPECT_EQ(r3.value().series[1].labels.at("pod"), "p1");
}

TEST(PrometheusResponse, SampleCapStopsAddingAndSaysSo) {
    const std::string body = R"({"status":"success","data":{"resultType":"matrix","result":[)" +
                             series_json("app", "a", 6) + "," + series_json("db", "b", 6) + "]}}";
    PromDecodeLimits limits;
    limits.max_samples = 8;
    const auto r = decode_prometheus_response(body, limits);
    ASSERT_TRUE(r.ok());
    EXPECT_TRUE(r.value().samples_capped);
    EXPECT_EQ(r.value().series[0].samples.size(), 6u);
    EXPECT_EQ(r.value().series[1].samples.size(), 2u);
}

TEST(PrometheusResponse, GroupByContainerConcatenatesPodsAndCountsDrops) {
    const auto r = decode_prometheus_response(R"({"status":"success","data":{"resultType":"matrix","result":[
      {"metric":{"container":"app","pod":"a"},"values":[[1,"1"],[2,"NaN"]]},
      {"metric":{"container":"app","pod":"b"},"values":[[1,"2"]]},
      {"metric":{"pod":"c"},"values":[[1,"3"]]}]}})");
    ASSERT_TRUE(r.ok());
    const auto g = group_by_label(r.value(), "container");
    ASSERT_EQ(g.size(), 2u);
    EXPECT_EQ(g.at("app").samples.size(), 2u);
    EXPECT_EQ(g.at("app").non_finite_dropped, 1);
    EXPECT_EQ(g.at("app").series, 2);
    EXPECT_EQ(g.at("").samples.at(0).value, 3);
}

}  // namespace
}  // namespace attune::core
