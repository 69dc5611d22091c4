#include "attune/core/recommend/workload_recommendation.hpp"

#include <gtest/gtest.h>

#include <boost/json/parse.hpp>

#include "attune/core/recommend/cloudwatch_response.hpp"
#include "attune/core/recommend/datadog_response.hpp"
#include "test_pods.hpp"

namespace attune::core {
namespace {

using std::chrono::seconds;
using testing::qty;
using testing::rl;

constexpr double kNow = 1'767'225'600;

EffectivePolicy policy() {
    EffectivePolicy p;
    p.namespace_ = "shop";
    p.name = "web";
    p.cpu = builtin_tuning(ResourceKind::Cpu);
    p.memory = builtin_tuning(ResourceKind::Memory);
    p.metrics.minimum_data_points = 5;
    p.metrics.query_step = seconds(30);
    p.metrics.rate_window = seconds(60);
    p.metrics.history_window = std::chrono::hours(2);
    return p;
}

FrozenBaseline baseline() {
    FrozenBaseline b;
    b.containers["app"] = {rl({{"cpu", "500m"}, {"memory", "256Mi"}}), {}};
    b.containers["side"] = {rl({{"cpu", "100m"}, {"memory", "64Mi"}}), {}};
    return b;
}

// A matrix answer: one series per (container, value), `n` points 30 s apart
// ending at kNow, and `nan` NaN points on top.
std::string series(const char* container, double value, int n, int nan = 0) {
    std::string values;
    for (int i = 0; i < n + nan; ++i) {
        if (!values.empty()) values += ",";
        const double t = kNow - 30.0 * (n + nan - 1 - i);
        values += "[" + std::to_string(t) + ",\"" + (i < nan ? std::string("NaN") : std::to_string(value)) + "\"]";
    }
    return std::string(R"({"metric":{"container":")") + container + R"("},"values":[)" + values + "]}";
}
PromResponse matrix(std::initializer_list<std::string> s) {
    std::string result;
    for (const auto& x : s) result += (result.empty() ? "" : ",") + x;
    auto r = decode_prometheus_response(R"({"status":"success","data":{"resultType":"matrix","result":[)" + result + "]}}");
    EXPECT_TRUE(r.ok()) << r.error().message;
    return r.value();
}

TEST(WorkloadRecommendation, SettingsComeFromTheContainersOwnTuning) {
    auto p = policy();
    ContainerTuning t;
    t.container_name = "side";
    t.cpu = p.cpu;
    t.cpu.percentile = 50;
    t.memory = p.memory;
    p.container_tunings.push_back(t);
    EXPECT_EQ(recommender_settings(p, "side").cpu.percentile, 50);
    EXPECT_EQ(recommender_settings(p, "app").cpu.percentile, 95);
    EXPECT_EQ(recommender_settings(p, "app").minimum_data_points, 5);
}

TEST(WorkloadRecommendation, UsageQueriesCoverTheHistoryWindowAtTheQueryStep) {
    auto p = policy();
    auto q = usage_queries(p, "Deployment", "web", {}, kNow);
    ASSERT_TRUE(q.ok()) << q.error().message;
    EXPECT_EQ(q.value().end, kNow);
    EXPECT_EQ(q.value().start, kNow - 7200);
    EXPECT_EQ(q.value().step, seconds(30));
    EXPECT_NE(q.value().cpu.find("rate(container_cpu_usage_seconds_total{namespace=\"shop\""), std::string::npos);
    EXPECT_NE(q.value().cpu.find("[1m]"), std::string::npos);
    EXPECT_NE(q.value().memory.find("container_memory_working_set_bytes{namespace=\"shop\""), std::string::npos);
    EXPECT_NE(q.value().memory.find("max by (container)"), std::string::npos);

    p.metrics.pod_aggregation = PodAggregation::Avg;
    p.metrics.memory_recording_metric = "not a metric";
    auto bad = usage_queries(p, "Deployment", "web", {}, kNow);
    ASSERT_FALSE(bad.ok());
    EXPECT_EQ(bad.error().code, "invalid_recording_metric");
    EXPECT_FALSE(usage_queries(policy(), "Pod", "web", {}, kNow).ok());
}

TEST(WorkloadRecommendation, CloudWatchQueriesSpanTheHistoryWindowAtTheRateWindowInMinutes) {
    auto p = policy();
    CloudWatchSource cw;
    cw.region = "eu-west-1";
    cw.cluster_name = "prod";
    p.metrics.provider = cw;
    p.metrics.rate_window = seconds(90);
    const auto q = cloudwatch_usage_queries(p, "Deployment", "web", kNow + 0.75);
    ASSERT_TRUE(q.ok()) << q.error().message;
    EXPECT_EQ(q.value().usage.end, kNow);
    EXPECT_EQ(q.value().usage.start, kNow - 7200);
    EXPECT_EQ(q.value().usage.step, seconds(30));
    EXPECT_EQ(q.value().period, seconds(120));
    EXPECT_EQ(q.value().pod_prefix, "web-");
    EXPECT_EQ(q.value().usage.cpu,
              "SEARCH('{ContainerInsights,ClusterName,Namespace,PodName,ContainerName} "
              "MetricName=\"container_cpu_usage_total\" ClusterName=\"prod\" Namespace=\"shop\"', 'Average', 120)");
    EXPECT_NE(q.value().usage.memory.find("container_memory_working_set"), std::string::npos);
    EXPECT_EQ(cloudwatch_usage_queries(p, "StatefulSet", "db", kNow).value().pod_prefix, "db-");
}

// The CloudWatch answer ends in the same estimator: one pod's containers,
// another workload's pod left out, millicores in cores.
TEST(WorkloadRecommendation, CloudWatchAnswersRecommendPerContainer) {
    auto p = policy();
    p.metrics.minimum_data_points = 3;
    auto page = [](const char* label, double value) {
        std::string ts, vs;
        for (int i = 0; i < 6; ++i) {
            ts += (i ? "," : "") + std::to_string(static_cast<long long>(kNow) - 600 + 60 * i);
            vs += (i ? "," : "") + std::to_string(value);
        }
        return std::string(R"({"Id":"search0","Label":")") + label + R"(","StatusCode":"Complete","Timestamps":[)" +
               ts + "],\"Values\":[" + vs + "]}";
    };
    CloudWatchAnswer cpu(ResourceKind::Cpu, CloudWatchCpuUnit::Millicores, "web-");
    ASSERT_TRUE(
        cpu.add_page(R"({"MetricDataResults":[)" + page("web-1 app", 250) + "," + page("webhook-1 app", 900) + "]}"));
    CloudWatchAnswer memory(ResourceKind::Memory, CloudWatchCpuUnit::Millicores, "web-");
    ASSERT_TRUE(memory.add_page(R"({"MetricDataResults":[)" + page("web-1 app", 104857600) + "]}"));
    const auto w = recommend_from_usage(p, baseline(), cpu.take(), memory.take(), kNow);
    ASSERT_EQ(w.containers.size(), 1u);
    EXPECT_EQ(w.containers[0].name, "app");
    EXPECT_EQ(w.containers[0].cpu_points, 6) << "the other workload's pod is not counted";
    EXPECT_EQ(w.containers[0].cpu->raw_percentile, qty("250m"));
    EXPECT_EQ(w.containers[0].memory->raw_percentile, qty("100Mi"));
}

TEST(WorkloadRecommendation, DatadogQueriesCoverTheHistoryWindowInWholeSeconds) {
    auto p = policy();
    auto q = datadog_usage_queries(p, "Deployment", "web", kNow + 0.75);
    ASSERT_TRUE(q.ok()) << q.error().message;
    EXPECT_EQ(q.value().end, kNow);  // the API's from and to are whole seconds
    EXPECT_EQ(q.value().start, kNow - 7200);
    EXPECT_EQ(q.value().step, seconds(30));
    EXPECT_EQ(
        q.value().cpu,
        "avg:kubernetes.cpu.usage.total{kube_namespace:shop,pod_name:web-*} by {kube_container_name}.rollup(avg,60)");
    EXPECT_EQ(q.value().memory,
              "avg:kubernetes.memory.working_set{kube_namespace:shop,pod_name:web-*} by "
              "{kube_container_name}.rollup(avg,60)");
    p.metrics.rate_window = seconds(300);
    EXPECT_NE(datadog_usage_queries(p, "Deployment", "web", kNow).value().cpu.find(".rollup(avg,300)"),
              std::string::npos);
    p.namespace_ = "Shop";
    EXPECT_EQ(datadog_usage_queries(p, "Deployment", "web", kNow).error().code, "invalid_tag_value");
}

// Datadog's answers, decoded, go through the same chain as Prometheus'.
TEST(WorkloadRecommendation, DatadogAnswersAreRecommendedLikePrometheusOnes) {
    std::string cpu_points, memory_points;
    for (int i = 0; i < 10; ++i) {
        const std::string ms = std::to_string(static_cast<long long>(kNow - 30.0 * (9 - i)) * 1000);
        cpu_points += (i ? "," : "") + ("[" + ms + ",250000000]");
        memory_points += (i ? "," : "") + ("[" + ms + ",104857600]");
    }
    const auto answer = [](const std::string& points) {
        return R"({"status":"ok","series":[{"tag_set":["kube_container_name:app"],"pointlist":[)" + points + "]}]}";
    };
    const auto cpu = decode_datadog_response(answer(cpu_points), ResourceKind::Cpu);
    const auto memory = decode_datadog_response(answer(memory_points), ResourceKind::Memory);
    ASSERT_TRUE(cpu.ok() && memory.ok());
    const auto w = recommend_from_usage(policy(), baseline(), cpu.value(), memory.value(), kNow);
    ASSERT_FALSE(w.containers.empty());
    const auto& app = w.containers[0];
    EXPECT_EQ(app.name, "app");
    EXPECT_EQ(app.cpu_points, 10);
    EXPECT_EQ(app.cpu->raw_percentile, qty("250m"));
    EXPECT_EQ(app.memory->raw_percentile, qty("100Mi"));
}

TEST(WorkloadRecommendation, EachBaselineContainerIsRecommendedFromItsOwnSeries) {
    const auto cpu = matrix({series("app", 0.25, 10, 2), series("side", 0.05, 10), series("", 9, 10)});
    const auto memory = matrix({series("app", 104857600, 10), series("other", 1e9, 10)});
    const auto w = recommend_from_usage(policy(), baseline(), cpu, memory, kNow);
    // app has both resources; side has cpu only (memory stays at current).
    ASSERT_EQ(w.containers.size(), 2u);
    EXPECT_TRUE(w.insufficient.empty());
    const auto& app = w.containers[0];
    EXPECT_EQ(app.name, "app");
    EXPECT_EQ(app.cpu_points, 10);
    EXPECT_EQ(app.memory_points, 10);
    EXPECT_EQ(app.non_finite_dropped_cpu, 2);
    ASSERT_TRUE(app.cpu.has_value());
    EXPECT_EQ(app.cpu->raw_percentile, qty("250m"));
    EXPECT_EQ(app.memory->raw_percentile, qty("100Mi"));
    const auto& side = w.containers[1];
    EXPECT_EQ(side.name, "side");
    EXPECT_FALSE(side.memory.has_value());
    EXPECT_EQ(side.recommended.memory_request, qty("64Mi"));
    EXPECT_EQ(w.max_data_points, 10);
    EXPECT_FALSE(w.stale);
}

TEST(WorkloadRecommendation, PartlyCollectingUntilEveryResourceHasItsPoints) {
    const auto full = recommend_from_usage(policy(), baseline(), matrix({series("app", 0.25, 10), series("side", 0.05, 10)}),
                                           matrix({series("app", 1e8, 10), series("side", 1e7, 10)}), kNow);
    EXPECT_FALSE(partly_collecting(full));
    // side has no memory points yet: its memory stays at current, and the workload is looked at again soon.
    const auto partial = recommend_from_usage(policy(), baseline(), matrix({series("app", 0.25, 10), series("side", 0.05, 10)}),
                                              matrix({series("app", 1e8, 10)}), kNow);
    EXPECT_EQ(partial.containers.size(), 2u);
    EXPECT_TRUE(partly_collecting(partial));
    // A container with no points at all.
    const auto missing = recommend_from_usage(policy(), baseline(), matrix({series("app", 0.25, 10)}),
                                              matrix({series("app", 1e8, 10)}), kNow);
    EXPECT_EQ(missing.insufficient.size(), 1u);
    EXPECT_TRUE(partly_collecting(missing));
}

TEST(WorkloadRecommendation, TooFewPointsOrNoSeriesIsInsufficientData) {
    const auto cpu = matrix({series("app", 0.25, 3)});
    const auto w = recommend_from_usage(policy(), baseline(), cpu, matrix({}), kNow);
    EXPECT_TRUE(w.containers.empty());
    ASSERT_EQ(w.insufficient.size(), 2u);
    EXPECT_EQ(w.insufficient[0].name, "app");
    EXPECT_EQ(w.insufficient[0].collected(), 3);
    EXPECT_EQ(w.insufficient[0].required, 5);
    EXPECT_EQ(w.insufficient[1].collected(), 0);
    EXPECT_EQ(w.max_data_points, 3);
}

TEST(WorkloadRecommendation, VpaBoundsAreNeverStale) {
    const auto vpa = boost::json::parse(R"({"status":{"recommendation":{"containerRecommendations":[
        {"containerName":"app","target":{"cpu":"250m","memory":"200Mi"},"upperBound":{"cpu":"1"}}]}}})");
    auto w = recommend_from_vpa(policy(), VpaSelection::Target, baseline(), vpa, kNow);
    ASSERT_TRUE(w.ok()) << w.error().message;
    ASSERT_EQ(w.value().containers.size(), 1u);
    EXPECT_FALSE(w.value().stale);
    // 250m x 1.2 = 300m, inside the 50% change cap of 500m.
    EXPECT_EQ(w.value().containers[0].recommended.cpu_request, qty("300m"));
    auto upper = recommend_from_vpa(policy(), VpaSelection::UpperBound, baseline(), vpa, kNow);
    ASSERT_TRUE(upper.ok());
    EXPECT_EQ(upper.value().containers[0].recommended.cpu_request, qty("750m"));  // 1.2 capped at +50%
    EXPECT_EQ(upper.value().containers[0].recommended.memory_request, qty("256Mi"));  // the bound has none

    auto empty = recommend_from_vpa(policy(), VpaSelection::Target, baseline(), boost::json::parse("{}"), kNow);
    ASSERT_TRUE(empty.ok());
    EXPECT_TRUE(empty.value().containers.empty());
}

TEST(WorkloadRecommendation, ManualOverlaysTheBaselineAndSkipsExcludedContainers) {
    auto p = policy();
    p.excluded_containers = {"istio-proxy"};
    ContainerResourceMap overlay;
    overlay["app"] = {rl({{"cpu", "300m"}}), {}};
    overlay["istio-proxy"] = {rl({{"cpu", "1"}}), {}};
    auto w = recommend_from_manual(p, overlay, baseline(), kNow);
    ASSERT_TRUE(w.ok()) << w.error().message;
    ASSERT_EQ(w.value().containers.size(), 1u);
    EXPECT_EQ(w.value().containers[0].recommended.cpu_request, qty("300m"));
    EXPECT_EQ(w.value().containers[0].recommended.memory_request, qty("256Mi"));  // inherited
    EXPECT_FALSE(w.value().stale);

    overlay["db"] = {rl({{"cpu", "1"}}), {}};
    auto unknown = recommend_from_manual(p, overlay, baseline(), kNow);
    ASSERT_FALSE(unknown.ok());
    EXPECT_EQ(unknown.error().code, "unknown_container");
}

TEST(WorkloadRecommendation, RefreshDelays) {
    struct Row {
        RefreshReason why;
        seconds step;
        std::optional<seconds> want;
    };
    const Row rows[] = {
        {RefreshReason::Collecting, seconds(30), seconds(30)},
        {RefreshReason::Collecting, seconds(300), seconds(300)},
        {RefreshReason::Recommended, seconds(30), seconds(60)},
        {RefreshReason::Recommended, seconds(300), seconds(300)},
        {RefreshReason::SourceFailed, seconds(30), seconds(30)},
        {RefreshReason::SourceFailed, seconds(300), seconds(60)},
        {RefreshReason::ConfigFailed, seconds(300), seconds(60)},
        {RefreshReason::None, seconds(300), std::nullopt},
    };
    for (const auto& r : rows) {
        SCOPED_TRACE(static_cast<int>(r.why));
        EXPECT_EQ(refresh_delay(r.why, r.step), r.want);
    }
}

TEST(WorkloadRecommendation, OnlyAMetricsBackendIsAskedAgainWithTime) {
    struct Row {
        const char* source;
        bool partly_collecting;
        RefreshReason want;
    };
    const Row rows[] = {
        {"prometheus", false, RefreshReason::Recommended},
        {"prometheus", true, RefreshReason::Collecting},
        {"datadog", false, RefreshReason::Recommended},
        {"datadog", true, RefreshReason::Collecting},
        {"cloudwatch", false, RefreshReason::Recommended},
        {"cloudwatch", true, RefreshReason::Collecting},
        {"vpa", false, RefreshReason::None},
        {"manual", false, RefreshReason::None},
    };
    for (const auto& r : rows) {
        SCOPED_TRACE(std::string(r.source) + (r.partly_collecting ? " collecting" : ""));
        EXPECT_EQ(refresh_after_recommendation(r.source, r.partly_collecting), r.want);
    }
}

}  // namespace
}  // namespace attune::core
