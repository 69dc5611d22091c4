#include "attune/core/lifecycle/lifecycle_source.hpp"

#include <boost/json/parse.hpp>

#include <gtest/gtest.h>

namespace attune::core {
namespace {

Quantity q(const char* s) { return Quantity::parse(s).value(); }

EffectivePolicy effective(const std::string& spec) {
    auto v = boost::json::parse(spec);
    v.as_object()["targetRef"] = boost::json::parse(R"({"kind":"Deployment","name":"web"})");
    boost::json::object doc{{"metadata", boost::json::object{{"namespace", "shop"}, {"name", "web"}}}, {"spec", v}};
    auto p = decode_attune_policy(doc);
    if (!p) throw std::runtime_error(p.error().message);
    return merge_effective_policy(p.value(), {}, {});
}

WorkloadRecommendation recommended(const char* cpu_request, const char* cpu_limit) {
    ContainerRecommendation c;
    c.name = "app";
    c.recommended.cpu_request = q(cpu_request);
    c.recommended.memory_request = q("128Mi");
    c.recommended.cpu_limit = q(cpu_limit);
    c.recommended.memory_limit = q("0");
    WorkloadRecommendation w;
    w.containers.push_back(c);
    return w;
}

// A Manual overlay is handed over with only its explicit keys: what it
// omits is inherited from the frozen baseline by plan_attempt, never taken
// from the recommendation the store computed against some live pod.
TEST(LifecycleSource, ManualGivesTheOverlaysExplicitKeysOnly) {
    const auto p = effective(
        R"({"metricsSource":{"manual":{"containers":[{"name":"app","resources":{"limits":{"cpu":"150m"}}}]}}})");
    const auto r = lifecycle_recommendation(p, recommended("400m", "1"));
    EXPECT_EQ(r.source, RecommendationSource::Manual);
    ASSERT_EQ(r.containers.size(), 1u);
    EXPECT_TRUE(r.containers.at("app").requests.empty());
    EXPECT_EQ(r.containers.at("app").limits.at("cpu"), q("150m"));
}

// Prometheus (and VPA): the executor's targets; a limit only under
// RequestsAndLimits, a zero limit means none.
TEST(LifecycleSource, PrometheusGivesTheExecutorsTargets) {
    auto r = lifecycle_recommendation(effective(R"({})"), recommended("400m", "1"));
    EXPECT_EQ(r.source, RecommendationSource::Prometheus);
    EXPECT_EQ(r.containers.at("app").requests.at("cpu"), q("400m"));
    EXPECT_EQ(r.containers.at("app").requests.at("memory"), q("128Mi"));
    EXPECT_TRUE(r.containers.at("app").limits.empty());

    r = lifecycle_recommendation(effective(R"({"cpu":{"controlledValues":"RequestsAndLimits"},
                                                "memory":{"controlledValues":"RequestsAndLimits"}})"),
                                 recommended("400m", "1"));
    EXPECT_EQ(r.containers.at("app").limits.at("cpu"), q("1"));
    EXPECT_FALSE(r.containers.at("app").limits.contains("memory"));

    r = lifecycle_recommendation(effective(R"({"metricsSource":{"vpa":{"name":"web"}}})"), recommended("400m", "1"));
    EXPECT_EQ(r.source, RecommendationSource::Vpa);
    // Datadog is metrics-backed as Prometheus is: its targets, under the same name.
    r = lifecycle_recommendation(
        effective(R"({"metricsSource":{"datadog":{"apiKeySecretRef":{"name":"dd","key":"api-key"}}}})"),
        recommended("400m", "1"));
    EXPECT_EQ(r.source, RecommendationSource::Prometheus);
    EXPECT_EQ(r.containers.at("app").requests.at("cpu"), q("400m"));
}

}  // namespace
}  // namespace attune::core
