#include "attune/core/policy/lifecycle_spec.hpp"

#include <gtest/gtest.h>

#include <boost/json/parse.hpp>

namespace attune::core {
namespace {

using namespace std::chrono_literals;

Result<LifecycleSpec> decode(std::string_view json) {
    return decode_lifecycle_spec(boost::json::parse(json), "spec.lifecycle");
}

TEST(LifecycleSpec, DecodesEveryField) {
    auto r = decode(R"({
      "steps": [{"percent": 10, "pause": "5m"}, {"percent": 50, "pause": "90s"}, {"percent": 100}],
      "initialDelay": "1m30s",
      "maxConcurrentResizes": 3,
      "analysis": {"cpuThrottling": {"enabled": true, "thresholdFraction": 0.2, "window": "10m",
                                     "mode": "PercentageOfPods", "percentageOfPodsThreshold": 40,
                                     "onMetricsUnavailable": "Pass"}},
      "persistence": {"mode": "TemplatePatch"},
      "revalidationToken": "t1"})");
    ASSERT_TRUE(r.ok()) << r.error().message;
    const auto& s = r.value();
    ASSERT_EQ(s.steps->size(), 3u);
    EXPECT_EQ((*s.steps)[0].percent, 10u);
    EXPECT_EQ((*s.steps)[0].pause, Seconds{300});
    EXPECT_EQ((*s.steps)[1].pause, Seconds{90});
    EXPECT_FALSE((*s.steps)[2].pause);
    EXPECT_EQ(s.initial_delay, Seconds{90});
    EXPECT_EQ(s.max_concurrent_resizes, 3);
    EXPECT_EQ(s.cpu_throttling->enabled, true);
    EXPECT_EQ(s.cpu_throttling->threshold_fraction, 0.2);
    EXPECT_EQ(s.cpu_throttling->window, Seconds{600});
    EXPECT_EQ(s.cpu_throttling->mode, ThrottlingMode::PercentageOfPods);
    EXPECT_EQ(s.cpu_throttling->percentage_of_pods_threshold, 40u);
    EXPECT_EQ(s.cpu_throttling->on_metrics_unavailable, OnMetricsUnavailable::Pass);
    EXPECT_EQ(s.persistence_mode, PersistenceMode::TemplatePatch);
    EXPECT_EQ(s.revalidation_token, "t1");
}

TEST(LifecycleSpec, SubSecondDurationsRoundUpSoAPauseIsNeverShorter) {
    auto r = decode(R"({"steps": [{"percent": 100, "pause": "1500ms"}]})");
    ASSERT_TRUE(r.ok());
    EXPECT_EQ((*r.value().steps)[0].pause, Seconds{2});
}

// Bad input gets an error that names the field (PREAMBLE: bad input gets a
// clear error).
TEST(LifecycleSpec, ErrorsNameThePath) {
    struct Case {
        const char* json;
        const char* want;
    } cases[] = {
        {R"([])", "spec.lifecycle: expected an object"},
        {R"({"steps": {}})", "spec.lifecycle.steps: expected an array"},
        {R"({"steps": [{"pause": "1m"}]})", "spec.lifecycle.steps[0].percent: required"},
        {R"({"steps": [{"percent": "ten"}]})", "spec.lifecycle.steps[0].percent: expected an integer"},
        {R"({"steps": [{"percent": 100, "pause": "5 minutes"}]})", "spec.lifecycle.steps[0].pause: \"5 minutes\" is not a duration"},
        {R"({"steps": [{"percent": 100, "pause": 300}]})", "spec.lifecycle.steps[0].pause: expected a duration string"},
        {R"({"initialDelay": "1d"})", "spec.lifecycle.initialDelay: \"1d\" is not a duration"},
        {R"({"analysis": {"cpuThrottling": {"mode": "Median"}}})",
         "spec.lifecycle.analysis.cpuThrottling.mode: \"Median\" is not one of AnyPod, PercentageOfPods, Average"},
        {R"({"analysis": {"cpuThrottling": {"thresholdFraction": "0.2"}}})",
         "spec.lifecycle.analysis.cpuThrottling.thresholdFraction: expected a number"},
        {R"({"analysis": {"cpuThrottling": {"enabled": "yes"}}})",
         "spec.lifecycle.analysis.cpuThrottling.enabled: expected a boolean"},
        {R"({"persistence": {"mode": "Patch"}})",
         "spec.lifecycle.persistence.mode: \"Patch\" is not one of AdmissionOnNextPodTemplateChange, TemplatePatch, Disabled"},
        {R"({"revalidationToken": 7})", "spec.lifecycle.revalidationToken: expected a string"},
    };
    for (const auto& c : cases) {
        auto r = decode(c.json);
        ASSERT_FALSE(r.ok()) << c.json;
        EXPECT_EQ(r.error().code, "invalid_lifecycle");
        EXPECT_NE(r.error().message.find(c.want), std::string::npos) << r.error().message;
    }
}

// The rules the CRD schema also states (docs/lifecycle.md): strictly
// increasing steps that end at 100, and the bounds.
TEST(LifecycleSpec, ValidationTable) {
    struct Case {
        const char* json;
        const char* want;  // "" = valid
    } cases[] = {
        {R"({"steps": [{"percent": 10}, {"percent": 50}, {"percent": 100}]})", ""},
        {R"({"steps": [{"percent": 100}]})", ""},
        {R"({"steps": []})", "spec.lifecycle.steps: must have at least one step"},
        {R"({"steps": [{"percent": 10}, {"percent": 50}]})", "spec.lifecycle.steps: the last step must be percent 100"},
        {R"({"steps": [{"percent": 50}, {"percent": 50}, {"percent": 100}]})",
         "spec.lifecycle.steps: percents must be strictly increasing (step 1 has 50 after 50)"},
        {R"({"steps": [{"percent": 60}, {"percent": 20}, {"percent": 100}]})", "strictly increasing"},
        {R"({"steps": [{"percent": 0}, {"percent": 100}]})", "spec.lifecycle.steps[0].percent: must be between 1 and 100"},
        {R"({"steps": [{"percent": 101}]})", "spec.lifecycle.steps[0].percent: must be between 1 and 100"},
        {R"({"steps": [{"percent": 1},{"percent": 2},{"percent": 3},{"percent": 4},{"percent": 5},{"percent": 6},
                       {"percent": 7},{"percent": 8},{"percent": 9},{"percent": 10},{"percent": 100}]})",
         "spec.lifecycle.steps: must have at most 10 steps"},
        {R"({"steps": [{"percent": 100, "pause": "-1m"}]})", "spec.lifecycle.steps[0].pause: must not be negative"},
        {R"({"initialDelay": "-5s"})", "spec.lifecycle.initialDelay: must not be negative"},
        {R"({"maxConcurrentResizes": 0})", "spec.lifecycle.maxConcurrentResizes: must be between 1 and 50"},
        {R"({"maxConcurrentResizes": 51})", "spec.lifecycle.maxConcurrentResizes: must be between 1 and 50"},
        {R"({"maxConcurrentResizes": 50})", ""},
        {R"({"analysis": {"cpuThrottling": {"thresholdFraction": 0}}})",
         "spec.lifecycle.analysis.cpuThrottling.thresholdFraction: must be a fraction greater than 0 and at most 1"},
        {R"({"analysis": {"cpuThrottling": {"thresholdFraction": 1.01}}})", "thresholdFraction: must be a fraction"},
        {R"({"analysis": {"cpuThrottling": {"thresholdFraction": 1}}})", ""},
        {R"({"analysis": {"cpuThrottling": {"window": "59s"}}})",
         "spec.lifecycle.analysis.cpuThrottling.window: must be between 1m and 1h"},
        {R"({"analysis": {"cpuThrottling": {"window": "1h0m1s"}}})", "window: must be between 1m and 1h"},
        {R"({"analysis": {"cpuThrottling": {"window": "1m"}}})", ""},
        {R"({"analysis": {"cpuThrottling": {"percentageOfPodsThreshold": 0}}})",
         "spec.lifecycle.analysis.cpuThrottling.percentageOfPodsThreshold: must be between 1 and 100"},
        {R"({"analysis": {"cpuThrottling": {"percentageOfPodsThreshold": 100}}})", ""},
    };
    for (const auto& c : cases) {
        auto r = decode(c.json);
        if (*c.want == '\0') {
            EXPECT_TRUE(r.ok()) << c.json << ": " << (r.ok() ? "" : r.error().message);
            continue;
        }
        ASSERT_FALSE(r.ok()) << c.json;
        EXPECT_NE(r.error().message.find(c.want), std::string::npos) << r.error().message;
    }
    LifecycleSpec long_token;
    long_token.revalidation_token = std::string(254, 'x');
    auto r = validate_lifecycle_spec(long_token, "spec.lifecycle");
    ASSERT_FALSE(r.ok());
    EXPECT_EQ(r.error().message, "spec.lifecycle.revalidationToken: must be at most 253 characters");
}

// The shorthand updateStrategy.canary {percentage, observationPeriod,
// autoPromote} means the steps [{percentage, observationPeriod}, {100}].
// Without autoPromote, the lifecycle holds at PausedAtStep.
TEST(LifecycleSpec, CanaryShorthandMeansTwoStepsAndHoldsWithoutAutoPromote) {
    const auto held = effective_lifecycle(std::nullopt, CanaryShorthand{20, Seconds{600}, false}, std::nullopt);
    EXPECT_EQ(held.steps, (std::vector<LifecycleStep>{{20, Seconds{600}, true}, {100, Seconds{0}, false}}));
    const auto promoted = effective_lifecycle(std::nullopt, CanaryShorthand{20, Seconds{600}, true}, std::nullopt);
    EXPECT_EQ(promoted.steps, (std::vector<LifecycleStep>{{20, Seconds{600}, false}, {100, Seconds{0}, false}}));
    // observationPeriod 0: "0 -> warning, default used" (docs/api.md#attunepolicy-spec).
    const auto zero = effective_lifecycle(std::nullopt, CanaryShorthand{20, Seconds{0}, true}, std::nullopt);
    EXPECT_EQ(zero.steps.front().pause, kDefaultObservationPeriod);
    // 100% is one step: a second {100} would not be strictly increasing.
    const auto all = effective_lifecycle(std::nullopt, CanaryShorthand{100, Seconds{60}, false}, std::nullopt);
    EXPECT_EQ(all.steps, (std::vector<LifecycleStep>{{100, Seconds{60}, false}}));
}

TEST(LifecycleSpec, ExplicitStepsWinOverTheShorthand) {
    auto spec = decode(R"({"steps": [{"percent": 50, "pause": "1m"}, {"percent": 100}]})").value();
    const auto e = effective_lifecycle(spec, CanaryShorthand{10, Seconds{600}, false}, std::nullopt);
    EXPECT_EQ(e.steps, (std::vector<LifecycleStep>{{50, Seconds{60}, false}, {100, Seconds{0}, false}}));
}

TEST(LifecycleSpec, Defaults) {
    const auto e = effective_lifecycle(std::nullopt, std::nullopt, std::nullopt);
    EXPECT_EQ(e.steps, (std::vector<LifecycleStep>{{10, Seconds{300}, false}, {50, Seconds{300}, false},
                                                   {100, Seconds{300}, false}}));
    EXPECT_EQ(e.initial_delay, Seconds{0});
    EXPECT_EQ(e.max_concurrent_resizes, 1);
    EXPECT_EQ(e.readiness_timeout, Seconds{600});
    EXPECT_FALSE(e.cpu_throttling.enabled);
    EXPECT_EQ(e.cpu_throttling.threshold_fraction, 0.25);
    EXPECT_EQ(e.cpu_throttling.window, Seconds{300});
    EXPECT_EQ(e.cpu_throttling.mode, ThrottlingMode::AnyPod);
    EXPECT_EQ(e.cpu_throttling.percentage_of_pods_threshold, 50u);
    EXPECT_EQ(e.cpu_throttling.on_metrics_unavailable, OnMetricsUnavailable::Fail);
    EXPECT_EQ(e.persistence, PersistenceMode::AdmissionOnNextPodTemplateChange);
    EXPECT_EQ(e.revalidation_token, "");
    // Unset fields of a partly written spec keep the defaults.
    auto partial = decode(R"({"analysis": {"cpuThrottling": {"enabled": true}}})").value();
    const auto p = effective_lifecycle(partial, std::nullopt, std::nullopt);
    EXPECT_TRUE(p.cpu_throttling.enabled);
    EXPECT_EQ(p.cpu_throttling.window, Seconds{300});
    EXPECT_EQ(p.steps.size(), 3u);
}

TEST(LifecycleSpec, MaxConcurrentResizesFallsBackToUpdateStrategy) {
    EXPECT_EQ(effective_lifecycle(std::nullopt, std::nullopt, 4).max_concurrent_resizes, 4);
    EXPECT_EQ(effective_lifecycle(std::nullopt, std::nullopt, 0).max_concurrent_resizes, 1);  // 0 counts as unset
    auto spec = decode(R"({"maxConcurrentResizes": 2})").value();
    EXPECT_EQ(effective_lifecycle(spec, std::nullopt, 4).max_concurrent_resizes, 2);
}

}  // namespace
}  // namespace attune::core
