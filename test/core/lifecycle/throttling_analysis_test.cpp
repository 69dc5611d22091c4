#include "attune/core/lifecycle/throttling_analysis.hpp"

#include <gtest/gtest.h>

#include <cmath>

namespace attune::core {
namespace {

CpuThrottlingAnalysis analysis(ThrottlingMode mode, double threshold = 0.25, unsigned pods_percent = 50,
                               OnMetricsUnavailable missing = OnMetricsUnavailable::Fail) {
    CpuThrottlingAnalysis a;
    a.enabled = true;
    a.mode = mode;
    a.threshold_fraction = threshold;
    a.percentage_of_pods_threshold = pods_percent;
    a.on_metrics_unavailable = missing;
    return a;
}

// Per pod: throttled periods out of 100 periods (increase() over the window).
ThrottlingMeasurement measured(std::initializer_list<std::pair<const char*, double>> throttled) {
    ThrottlingMeasurement m;
    for (const auto& [pod, t] : throttled) m.pods.push_back({pod, t, 100.0});
    return m;
}

const std::vector<std::string> kTwo{"a", "b"};
const std::vector<std::string> kFour{"a", "b", "c", "d"};

// Ratio = throttled periods / periods, per pod, over the window; a ratio
// at the threshold is not throttled, one above it is.
TEST(ThrottlingAnalysis, AnyPodBoundaries) {
    struct Case {
        const char* name;
        double a, b;
        bool passed;
    } cases[] = {
        {"both clean", 0, 10, true},
        {"one exactly at the threshold passes", 25, 0, true},
        {"one just above the threshold fails", 25.0001, 0, false},
        {"the other pod above fails too", 0, 90, false},
    };
    for (const auto& c : cases) {
        const auto v = evaluate_throttling(analysis(ThrottlingMode::AnyPod), kTwo, measured({{"a", c.a}, {"b", c.b}}));
        EXPECT_EQ(v.passed, c.passed) << c.name << ": " << v.explanation;
        EXPECT_FALSE(v.metrics_unavailable);
    }
    const auto v = evaluate_throttling(analysis(ThrottlingMode::AnyPod), kTwo, measured({{"a", 30}, {"b", 0}}));
    EXPECT_EQ(v.explanation, "throttled above 25% of CFS periods: a 30%");
    ASSERT_EQ(v.pods.size(), 2u);
    EXPECT_DOUBLE_EQ(*v.pods[0].ratio, 0.3);
    EXPECT_TRUE(v.pods[0].throttled);
    EXPECT_FALSE(v.pods[1].throttled);
}

TEST(ThrottlingAnalysis, PercentageOfPodsBoundaries) {
    struct Case {
        const char* name;
        unsigned limit;
        std::initializer_list<std::pair<const char*, double>> pods;
        bool passed;
    } cases[] = {
        {"2 of 4 is exactly 50%: within a 50% limit", 50, {{"a", 30}, {"b", 30}, {"c", 0}, {"d", 0}}, true},
        {"3 of 4 is 75%: above 50%", 50, {{"a", 30}, {"b", 30}, {"c", 30}, {"d", 0}}, false},
        {"1 of 4 is 25%: above a 24% limit", 24, {{"a", 30}, {"b", 0}, {"c", 0}, {"d", 0}}, false},
        {"1 of 4 is 25%: within a 25% limit", 25, {{"a", 30}, {"b", 0}, {"c", 0}, {"d", 0}}, true},
        {"all 4 within a 100% limit", 100, {{"a", 90}, {"b", 90}, {"c", 90}, {"d", 90}}, true},
    };
    for (const auto& c : cases) {
        const auto v = evaluate_throttling(analysis(ThrottlingMode::PercentageOfPods, 0.25, c.limit), kFour, measured(c.pods));
        EXPECT_EQ(v.passed, c.passed) << c.name << ": " << v.explanation;
    }
    const auto v = evaluate_throttling(analysis(ThrottlingMode::PercentageOfPods), kFour,
                                       measured({{"a", 30}, {"b", 30}, {"c", 30}, {"d", 0}}));
    EXPECT_DOUBLE_EQ(*v.aggregate, 0.75);
    EXPECT_EQ(v.explanation, "3 of 4 pods (75%) throttled above 25%, more than 50%: a 30%, b 30%, c 30%");
}

TEST(ThrottlingAnalysis, AverageBoundaries) {
    struct Case {
        const char* name;
        double a, b;
        bool passed;
    } cases[] = {
        {"mean exactly at the threshold passes", 50, 0, true},  // (0.5 + 0) / 2 = 0.25
        {"mean just above fails", 50.5, 0, false},
        {"one hot pod hidden by a cold one passes", 40, 0, true},
    };
    for (const auto& c : cases) {
        const auto v = evaluate_throttling(analysis(ThrottlingMode::Average), kTwo, measured({{"a", c.a}, {"b", c.b}}));
        EXPECT_EQ(v.passed, c.passed) << c.name << ": " << v.explanation;
    }
    const auto v = evaluate_throttling(analysis(ThrottlingMode::Average), kTwo, measured({{"a", 40}, {"b", 0}}));
    EXPECT_DOUBLE_EQ(*v.aggregate, 0.2);
    EXPECT_EQ(v.explanation, "mean throttled share 20% over 2 pods is within 25%");
}

TEST(ThrottlingAnalysis, OnMetricsUnavailable) {
    ThrottlingMeasurement one_missing = measured({{"a", 0}});  // no series for b
    const auto fail = evaluate_throttling(analysis(ThrottlingMode::AnyPod), kTwo, one_missing);
    EXPECT_FALSE(fail.passed);
    EXPECT_TRUE(fail.metrics_unavailable);
    EXPECT_EQ(fail.explanation, "throttling metrics unavailable for b; onMetricsUnavailable=Fail");

    const auto pass = evaluate_throttling(analysis(ThrottlingMode::AnyPod, 0.25, 50, OnMetricsUnavailable::Pass), kTwo,
                                          one_missing);
    EXPECT_TRUE(pass.passed);
    EXPECT_TRUE(pass.metrics_unavailable);
    EXPECT_EQ(pass.explanation, "no pod throttled above 25% of its CFS periods (1 pod); no throttling metrics for b");

    // Pass still fails on the pods that do have numbers.
    const auto hot = evaluate_throttling(analysis(ThrottlingMode::AnyPod, 0.25, 50, OnMetricsUnavailable::Pass), kTwo,
                                         measured({{"a", 80}}));
    EXPECT_FALSE(hot.passed);

    ThrottlingMeasurement down;
    down.query_failed = true;
    down.error = "prometheus: connection refused";
    const auto down_fail = evaluate_throttling(analysis(ThrottlingMode::Average), kTwo, down);
    EXPECT_FALSE(down_fail.passed);
    EXPECT_EQ(down_fail.explanation,
              "throttling metrics unavailable (prometheus: connection refused); onMetricsUnavailable=Fail");
    EXPECT_TRUE(evaluate_throttling(analysis(ThrottlingMode::Average, 0.25, 50, OnMetricsUnavailable::Pass), kTwo, down).passed);

    const auto none = evaluate_throttling(analysis(ThrottlingMode::AnyPod, 0.25, 50, OnMetricsUnavailable::Pass), kTwo,
                                          ThrottlingMeasurement{});
    EXPECT_TRUE(none.passed);
    EXPECT_EQ(none.explanation, "no canary pod has throttling metrics; onMetricsUnavailable=Pass");
}

TEST(ThrottlingAnalysis, UnusableNumbers) {
    struct Case {
        const char* name;
        std::optional<double> throttled, periods;
        std::optional<double> ratio;
    } cases[] = {
        {"no periods elapsed: nothing was enforced", 0.0, 0.0, 0.0},
        {"throttled above periods (scrape skew) clamps to 1", 120.0, 100.0, 1.0},
        {"NaN is unavailable", std::nan(""), 100.0, std::nullopt},
        {"a negative increase is unavailable", -1.0, 100.0, std::nullopt},
        {"only one of the two series", 5.0, std::nullopt, std::nullopt},
    };
    for (const auto& c : cases) {
        ThrottlingMeasurement m;
        m.pods.push_back({"a", c.throttled, c.periods});
        const std::vector<std::string> one{"a"};
        const auto v = evaluate_throttling(analysis(ThrottlingMode::AnyPod), one, m);
        EXPECT_EQ(v.pods.at(0).ratio, c.ratio) << c.name;
    }
}

TEST(ThrottlingAnalysis, SamplesOfOtherPodsAreIgnored) {
    const std::vector<std::string> one{"a"};
    const auto v = evaluate_throttling(analysis(ThrottlingMode::AnyPod), one, measured({{"a", 0}, {"not-canary", 100}}));
    EXPECT_TRUE(v.passed);
    EXPECT_EQ(v.pods.size(), 1u);
}

}  // namespace
}  // namespace attune::core
