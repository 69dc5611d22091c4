#include "attune/core/recommend/promql.hpp"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace attune::core {
namespace {

using namespace std::chrono_literals;

// Hostile names: each must stay inside its string literal.
TEST(PromqlEscape, StringValuesCannotLeaveTheirLiteral) {
    struct Row {
        const char* in;
        const char* want;
    } rows[] = {
        {"web", "web"},
        {R"(a"b)", R"(a\"b)"},
        {R"(a\b)", R"(a\\b)"},
        {R"("})", R"(\"})"},
        {R"(x"} or vector(1) #)", R"(x\"} or vector(1) #)"},
        {"line\nbreak\r\ttab", R"(line\nbreak\r\ttab)"},
        {"bell\x07" "del\x7f", R"(bell\x07del\x7f)"},
        {R"(\")", R"(\\\")"},  // an escape attempt: backslash then quote
        {"caf\xc3\xa9", "caf\xc3\xa9"},  // UTF-8 passes through
    };
    for (const auto& r : rows) EXPECT_EQ(promql_string_escape(r.in), r.want) << r.in;
}

TEST(PromqlEscape, RegexQuoteMakesEveryMetacharacterLiteral) {
    EXPECT_EQ(regex_quote("web-1.a"), R"(web-1\.a)");
    EXPECT_EQ(regex_quote(R"(.+*?()|[]{}^$\)"), R"(\.\+\*\?\(\)\|\[\]\{\}\^\$\\)");
    // Then quoted for the literal: each regex backslash doubles, quotes are escaped.
    EXPECT_EQ(promql_string_escape(regex_quote(R"(a.b"c)")), R"(a\\.b\"c)");
}

TEST(PromqlDuration, LargestWholeUnit) {
    EXPECT_EQ(promql_duration(300s), "5m");
    EXPECT_EQ(promql_duration(3600s), "1h");
    EXPECT_EQ(promql_duration(7200s), "2h");
    EXPECT_EQ(promql_duration(90s), "90s");
    EXPECT_EQ(promql_duration(30s), "30s");
    EXPECT_EQ(promql_duration(0s), "5m");
}

TEST(UsageQuery, CpuAndMemoryBatchedPerWorkloadOneSeriesPerContainer) {
    UsageQuerySpec spec;
    spec.namespace_ = "shop";
    spec.pod_regex = pod_regex_for_owner("Deployment", "web").value();
    EXPECT_EQ(usage_query(ResourceKind::Cpu, spec).value(),
              R"(max by (container) (rate(container_cpu_usage_seconds_total{namespace="shop",pod=~"web-[a-z0-9]+-[a-z0-9]{5}",container!="",container!="POD"}[5m])))");
    EXPECT_EQ(usage_query(ResourceKind::Memory, spec).value(),
              R"(max by (container) (container_memory_working_set_bytes{namespace="shop",pod=~"web-[a-z0-9]+-[a-z0-9]{5}",container!="",container!="POD"}))");
    spec.aggregation = PodAggregation::Avg;
    spec.rate_window = 60s;
    EXPECT_EQ(usage_query(ResourceKind::Cpu, spec).value(),
              R"(avg by (container) (rate(container_cpu_usage_seconds_total{namespace="shop",pod=~"web-[a-z0-9]+-[a-z0-9]{5}",container!="",container!="POD"}[1m])))");
    spec.aggregation = PodAggregation::None;
    EXPECT_EQ(usage_query(ResourceKind::Memory, spec).value(),
              R"(max by (pod, container) (container_memory_working_set_bytes{namespace="shop",pod=~"web-[a-z0-9]+-[a-z0-9]{5}",container!="",container!="POD"}))");
}

TEST(UsageQuery, RecordingMetricsAreUsedAsGivenNotWrapped) {
    UsageQuerySpec spec;
    spec.namespace_ = "shop";
    spec.pod_regex = "web-.*";
    spec.cpu_recording_metric = "namespace_pod_container:cpu_usage:rate5m";
    spec.memory_recording_metric = "ws:bytes";
    EXPECT_EQ(usage_query(ResourceKind::Cpu, spec).value(),
              R"(max by (container) (namespace_pod_container:cpu_usage:rate5m{namespace="shop",pod=~"web-.*",container!="",container!="POD"}))");
    EXPECT_EQ(usage_query(ResourceKind::Memory, spec).value(),
              R"(max by (container) (ws:bytes{namespace="shop",pod=~"web-.*",container!="",container!="POD"}))");
    for (const char* bad : {"rate(x[5m])", "x{a=\"b\"}", "9lives", "", "a b"}) {
        spec.cpu_recording_metric = bad;
        if (std::string(bad).empty()) continue;  // empty means "not set"
        const auto r = usage_query(ResourceKind::Cpu, spec);
        ASSERT_FALSE(r.ok()) << bad;
        EXPECT_EQ(r.error().code, "invalid_recording_metric");
    }
}

TEST(UsageQuery, HostileNamespaceAndWorkloadNamesAreEscaped) {
    UsageQuerySpec spec;
    spec.namespace_ = "ns\"} or vector(1) or {a=\"";
    spec.pod_regex = pod_regex_for_owner("StatefulSet", "db\"}|.*").value();
    EXPECT_EQ(usage_query(ResourceKind::Memory, spec).value(),
              R"(max by (container) (container_memory_working_set_bytes{namespace="ns\"} or vector(1) or {a=\"",pod=~"db\"\\}\\|\\.\\*-[0-9]+",container!="",container!="POD"}))");
}

TEST(PodRegex, OwnerShapesPerKind) {
    EXPECT_EQ(pod_regex_for_owner("Deployment", "web").value(), "web-[a-z0-9]+-[a-z0-9]{5}");
    EXPECT_EQ(pod_regex_for_owner("StatefulSet", "db").value(), "db-[0-9]+");
    EXPECT_EQ(pod_regex_for_owner("DaemonSet", "agent").value(), "agent-[a-z0-9]{5}");
    EXPECT_EQ(pod_regex_for_owner("ReplicaSet", "rs").value(), "rs-[a-z0-9]{5}");
    EXPECT_EQ(pod_regex_for_owner("Job", "j").value(), "j-([0-9]+-)?[a-z0-9]{5}");
    EXPECT_EQ(pod_regex_for_owner("CronJob", "c").value(), "c-[0-9]+-([0-9]+-)?[a-z0-9]{5}");
    EXPECT_EQ(pod_regex_for_owner("Pod", "p").error().code, "unknown_kind");
}

TEST(PodRegex, LiveNamesSortedDedupedQuotedAndSampledOverTheCap) {
    const std::vector<std::string> names = {"web-b", "web-a", "web-a", "web.c"};
    EXPECT_EQ(pod_regex_from_names(names, 100), R"(web-a|web-b|web\.c)");
    std::vector<std::string> many;
    for (int i = 0; i < 10; ++i) many.push_back("p" + std::to_string(i));
    // 10 names, cap 4: indices 0, 2, 5, 7 (i * 10 / 4).
    EXPECT_EQ(pod_regex_from_names(many, 4), "p0|p2|p5|p7");
}

TEST(PodRegex, WorkloadRegexPrefersTheOwnerAndFallsBackToNames) {
    const std::vector<std::string> live = {"web-5d8f-abcde"};
    // Few pods: the owner pattern (it also matches pods gone since a rollout).
    EXPECT_EQ(workload_pod_regex("Deployment", "web", live).value(), "web-[a-z0-9]+-[a-z0-9]{5}");
    // More than the cap: the sampled live names.
    std::vector<std::string> many;
    for (int i = 0; i < 150; ++i) many.push_back("web-5d8f-" + std::to_string(10000 + i));
    const auto big = workload_pod_regex("Deployment", "web", many).value();
    EXPECT_EQ(std::count(big.begin(), big.end(), '|'), 99);
    // A 50-character Deployment name: generated pod names are cut at 58, the shape would miss them.
    const std::string long_name(50, 'a');
    EXPECT_EQ(workload_pod_regex("Deployment", long_name, live).value(), "web-5d8f-abcde");
    EXPECT_EQ(workload_pod_regex("Deployment", long_name, {}).value(), long_name + "-.*");
    const std::string very_long(70, 'b');
    EXPECT_EQ(workload_pod_regex("ReplicaSet", very_long, {}).value(), std::string(58, 'b') + ".*");
    EXPECT_FALSE(workload_pod_regex("Pod", "x", live).ok());
}

TEST(ThrottlingQuery, RatioPerPodOverTheWindow) {
    EXPECT_EQ(throttling_ratio_query("shop", "web-a|web-b", 300s),
              R"(sum by (pod) (rate(container_cpu_cfs_throttled_periods_total{namespace="shop",pod=~"web-a|web-b",container!="",container!="POD"}[5m])))"
              R"( / sum by (pod) (rate(container_cpu_cfs_periods_total{namespace="shop",pod=~"web-a|web-b",container!="",container!="POD"}[5m])))");
}

TEST(ThrottlingQuery, LifecycleIncreasesPerPodAndCounter) {
    EXPECT_EQ(cfs_periods_increase_query("shop", "web-0", 120s, true),
              R"(sum(increase(container_cpu_cfs_throttled_periods_total{namespace="shop",pod="web-0",container!="",container!="POD"}[2m])))");
    EXPECT_EQ(cfs_periods_increase_query("shop", "we\"b", 300s, false),
              R"(sum(increase(container_cpu_cfs_periods_total{namespace="shop",pod="we\"b",container!="",container!="POD"}[5m])))");
}

TEST(GuardrailTemplate, VariablesSubstitutedEscaped) {
    const GuardrailVars v{"shop", "web\"} or vector(1", "web-1"};
    EXPECT_EQ(render_guardrail_query(
                  R"(rate(errors{namespace="{{ .Namespace }}",app="{{.WorkloadName}}",pod="{{  .PodName  }}"}[5m]))", v)
                  .value(),
              R"(rate(errors{namespace="shop",app="web\"} or vector(1",pod="web-1"}[5m]))");
    // Go's trim markers remove the whitespace beside the action.
    EXPECT_EQ(render_guardrail_query("x{a=\"  {{- .PodName -}}  \"}", v).value(), "x{a=\"web-1\"}");
    EXPECT_EQ(render_guardrail_query("up", v).value(), "up");
    for (const char* bad : {"{{ .Other }}", "{{ printf \"%s\" .Namespace }}", "{{ .Namespace ", "a }} b"}) {
        const auto r = render_guardrail_query(bad, v);
        ASSERT_FALSE(r.ok()) << bad;
        EXPECT_EQ(r.error().code, "invalid_guardrail_template");
    }
}

TEST(ForceNamespace, EverySelectorGetsTheNamespaceMatcher) {
    struct Row {
        const char* in;
        const char* want;
    } rows[] = {
        {"up", R"(up{namespace="shop"})"},
        {R"(http_errors{code="500"})", R"(http_errors{namespace="shop",code="500"})"},
        {"x{}", R"(x{namespace="shop"})"},
        {R"({__name__=~"job:.*"})", R"({namespace="shop",__name__=~"job:.*"})"},
        {R"(rate(x[5m]))", R"(rate(x{namespace="shop"}[5m]))"},
        {R"(sum by (pod) (rate(a{b="c"}[5m])) / sum(rate(d[5m])) by (pod))",
         R"(sum by (pod) (rate(a{namespace="shop",b="c"}[5m])) / sum(rate(d{namespace="shop"}[5m])) by (pod))"},
        {R"(histogram_quantile(0.99, sum by (le) (rate(h_bucket[5m]))) > 0.5)",
         R"(histogram_quantile(0.99, sum by (le) (rate(h_bucket{namespace="shop"}[5m]))) > 0.5)"},
        {"a / on(pod) group_left(owner) b", R"(a{namespace="shop"} / on(pod) group_left(owner) b{namespace="shop"})"},
        {"a > bool 1e-3 and b offset 5m", R"(a{namespace="shop"} > bool 1e-3 and b{namespace="shop"} offset 5m)"},
        {"x > Inf or y < NaN", R"(x{namespace="shop"} > Inf or y{namespace="shop"} < NaN)"},
        {R"~(label_replace(up, "a", "$1", "b", "(.*)"))~", R"~(label_replace(up{namespace="shop"}, "a", "$1", "b", "(.*)"))~"},
        {R"(x{a="}"} # comment up)", R"(x{namespace="shop",a="}"} # comment up)"},
        {"rate(x[5m:1m])", R"(rate(x{namespace="shop"}[5m:1m]))"},
        {"SUM BY (pod) (x)", R"(SUM BY (pod) (x{namespace="shop"}))"},
        {"vector(1)", "vector(1)"},
        // Another namespace in the query: both matchers apply, so it matches nothing there.
        {R"(x{namespace="other"})", R"(x{namespace="shop",namespace="other"})"},
    };
    for (const auto& r : rows) EXPECT_EQ(force_namespace(r.in, "shop").value(), r.want) << r.in;
    EXPECT_EQ(force_namespace("up", "a\"b").value(), R"(up{namespace="a\"b"})");
    for (const char* bad : {R"(x{a="b)", "x{a=\"b\"", "rate(x[5m)", "sum by (pod x"}) {
        const auto r = force_namespace(bad, "shop");
        ASSERT_FALSE(r.ok()) << bad;
        EXPECT_EQ(r.error().code, "invalid_promql");
    }
}

}  // namespace
}  // namespace attune::core
