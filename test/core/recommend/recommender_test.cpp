#include "attune/core/recommend/recommender.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <vector>

#include "test_pods.hpp"

namespace attune::core {
namespace {

using testing::qty;
using testing::rl;

constexpr double kDay0 = 1767225600;  // 2026-01-01T00:00:00Z
constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

UsageProfile profile(double figure, double confidence = 1, double burst_magnitude = 0) {
    UsageProfile p;
    p.percentile_value = figure;
    p.data_points = 1000;
    p.confidence = confidence;
    if (burst_magnitude > 0) {
        p.burst_detected = true;
        p.burst_magnitude = burst_magnitude;
    }
    return p;
}

ResourceTuning cpu_tuning() { return builtin_tuning(ResourceKind::Cpu); }        // p95, 20%, 1m..4000m, 50/50, burst 0.1
ResourceTuning memory_tuning() { return builtin_tuning(ResourceKind::Memory); }  // p99, 30%, 4Mi..8Gi, 30/30

struct ChainRow {
    const char* why;
    ResourceKind kind;
    UsageProfile profile;
    const char* current;
    ResourceTuning tuning;
    // expected
    const char* raw;
    const char* after_overhead;
    double burst_factor;
    const char* after_burst;
    double confidence_factor;
    const char* after_confidence;
    const char* bounds_applied;
    const char* after_bounds;
    double max_change_percent;
    const char* change_filter_applied;
    const char* final;
};

ResourceTuning with(ResourceTuning t, void (*f)(ResourceTuning&)) {
    f(t);
    return t;
}

// Every step of the chain (docs/recommender.md#the-chain), one row each, worked by hand in the comment.
// cpu: x1000 and round up to millicores; memory: round up to bytes.
TEST(RecommenderChain, EveryStepAsTheIssueStatesIt) {
    const auto cpu = ResourceKind::Cpu;
    const auto mem = ResourceKind::Memory;
    const ChainRow rows[] = {
        // 0.2 cores -> 200m; x1.2 = 240m; no burst; c=1 -> x1; in bounds; no current -> no filter.
        {"no current value: nothing to filter against", cpu, profile(0.2), "0", cpu_tuning(),
         "200m", "240m", 1, "240m", 1, "240m", "", "240m", 50, "", "240m"},
        // 240m vs 250m: |240-250|/250 = 4% < 10% -> current kept; decrease cap reported.
        {"a change under 10% keeps the current value", cpu, profile(0.2), "250m", cpu_tuning(),
         "200m", "240m", 1, "240m", 1, "240m", "", "240m", 50, "min_change_filtered", "250m"},
        // overhead 0: 220m vs 200m = exactly 10%, not under 10% -> passes.
        {"exactly 10% is a change", cpu, profile(0.22), "200m",
         with(cpu_tuning(), [](ResourceTuning& t) { t.overhead_percent = 0; }),
         "220m", "220m", 1, "220m", 1, "220m", "", "220m", 50, "", "220m"},
        // 240m vs 200m = +20%, inside the 50% cap.
        {"a change inside the caps passes", cpu, profile(0.2), "200m", cpu_tuning(),
         "200m", "240m", 1, "240m", 1, "240m", "", "240m", 50, "", "240m"},
        // 240m vs 160m = +50%, not over the 50% cap.
        {"a change at the cap passes", cpu, profile(0.2), "160m", cpu_tuning(),
         "200m", "240m", 1, "240m", 1, "240m", "", "240m", 50, "", "240m"},
        // 240m vs 100m = +140% > 50% -> 100 + 100*50/100 = 150m.
        {"an increase is capped at maxIncreasePercent", cpu, profile(0.2), "100m", cpu_tuning(),
         "200m", "240m", 1, "240m", 1, "240m", "", "240m", 50, "max_change_capped", "150m"},
        // 240m vs 1000m = -76% > 20% -> 1000 - 1000*20/100 = 800m.
        {"a decrease is capped at maxDecreasePercent", cpu, profile(0.2), "1",
         with(cpu_tuning(), [](ResourceTuning& t) { t.max_decrease_percent = 20; }),
         "200m", "240m", 1, "240m", 1, "240m", "", "240m", 20, "max_change_capped", "800m"},
        // burst: max/p95 = 8 -> 1 + log2(8)*0.1 = 1.3; 240m x 1.3 = 312m.
        {"burst on", cpu, profile(0.2, 1, 8), "0", cpu_tuning(),
         "200m", "240m", 1.3, "312m", 1, "312m", "", "312m", 50, "", "312m"},
        // sensitivity 1: 1 + 3*1 = 4; 240m x 4 = 960m.
        {"burst at full sensitivity", cpu, profile(0.2, 1, 8), "0",
         with(cpu_tuning(), [](ResourceTuning& t) { t.burst_sensitivity = 1; }),
         "200m", "240m", 4, "960m", 1, "960m", "", "960m", 50, "", "960m"},
        // sensitivity "0" turns the boost off even with a burst.
        {"burst off by sensitivity 0", cpu, profile(0.2, 1, 8), "0",
         with(cpu_tuning(), [](ResourceTuning& t) { t.burst_sensitivity = 0; }),
         "200m", "240m", 1, "240m", 1, "240m", "", "240m", 50, "", "240m"},
        // c = 0: 1 + (1-0)^2 = 2; 240m x 2 = 480m.
        {"confidence 0 doubles", cpu, profile(0.2, 0), "0", cpu_tuning(),
         "200m", "240m", 1, "240m", 2, "480m", "", "480m", 50, "", "480m"},
        // c = 0.5: 1 + 0.5^2 = 1.25; 240m x 1.25 = 300m.
        {"partial confidence", cpu, profile(0.2, 0.5), "0", cpu_tuning(),
         "200m", "240m", 1, "240m", 1.25, "300m", "", "300m", 50, "", "300m"},
        // 0.0004 cores -> ceil(0.4) = 1m; ceil(1.2) = 2m; below minAllowed 5m -> 5m.
        {"clamped up to minAllowed", cpu, profile(0.0004), "0",
         with(cpu_tuning(), [](ResourceTuning& t) { t.min_allowed = Quantity::from_milli(5); }),
         "1m", "2m", 1, "2m", 1, "2m", "min", "5m", 50, "", "5m"},
        // 5 cores -> 5000m; x1.2 = 6000m > 4000m -> "4".
        {"clamped down to maxAllowed", cpu, profile(5), "0", cpu_tuning(),
         "5", "6", 1, "6", 1, "6", "max", "4", 50, "", "4"},
        // 0.12345 cores -> ceil(123.45) = 124m; x1.2 = 148.8 -> 149m.
        {"cpu rounds up to whole millicores", cpu, profile(0.12345), "0", cpu_tuning(),
         "124m", "149m", 1, "149m", 1, "149m", "", "149m", 50, "", "149m"},
        // zero usage: raw = current 500m (the Go original's rule); x1.2 = 600m; +20% passes.
        {"zero usage keeps the current value as raw", cpu, profile(0), "500m", cpu_tuning(),
         "500m", "600m", 1, "600m", 1, "600m", "", "600m", 50, "", "600m"},
        // zero usage and no current: raw 0 -> 0 -> minAllowed 1m.
        {"zero usage and no current value: minAllowed", cpu, profile(0), "0", cpu_tuning(),
         "0", "0", 1, "0", 1, "0", "min", "1m", 50, "", "1m"},
        // 100Mi = 104857600 B; x1.3 = 136314880 B = 130Mi.
        {"memory: whole bytes, 30% overhead", mem, profile(104857600), "0", memory_tuning(),
         "100Mi", "130Mi", 1, "130Mi", 1, "130Mi", "", "130Mi", 30, "", "130Mi"},
        // 130Mi vs 64Mi (67108864) = +103% > 30% -> 67108864 * 1.3 = 87241523.2 -> 87241524 B.
        {"memory increase capped", mem, profile(104857600), "64Mi", memory_tuning(),
         "100Mi", "130Mi", 1, "130Mi", 1, "130Mi", "", "130Mi", 30, "max_change_capped", "87241524"},
        // 130Mi vs 1Gi = -87% > 30% -> 1073741824 * 0.7 = 751619276.8 -> 751619277 B.
        {"memory decrease capped", mem, profile(104857600), "1Gi", memory_tuning(),
         "100Mi", "130Mi", 1, "130Mi", 1, "130Mi", "", "130Mi", 30, "max_change_capped", "751619277"},
        // 1000.5 B -> 1001 B; x1.3 = 1301.3 -> 1302 B; below 4Mi -> 4Mi.
        {"memory rounds up to whole bytes, then minAllowed", mem, profile(1000.5), "0", memory_tuning(),
         "1001", "1302", 1, "1302", 1, "1302", "min", "4Mi", 30, "", "4Mi"},
        // A NaN overhead or sensitivity is no factor at all: raw 200m stays 200m.
        {"non-finite tuning is ignored, never propagated", cpu, profile(0.2, 1, 8), "0",
         with(cpu_tuning(), [](ResourceTuning& t) { t.overhead_percent = kNaN; t.burst_sensitivity = kNaN; }),
         "200m", "200m", 1, "200m", 1, "200m", "", "200m", 50, "", "200m"},
        // max/p95 overflowing to +Inf (a subnormal p95): no factor rather than an infinite one.
        {"an infinite burst ratio is no factor", cpu, profile(0.2, 1, INFINITY), "0", cpu_tuning(),
         "200m", "240m", 1, "240m", 1, "240m", "", "240m", 50, "", "240m"},
    };
    for (const auto& r : rows) {
        SCOPED_TRACE(r.why);
        const auto e = explain_resource(r.kind, r.profile, qty(r.current), r.tuning);
        EXPECT_EQ(e.raw_percentile.to_string(), r.raw);
        EXPECT_EQ(e.after_overhead.to_string(), r.after_overhead);
        EXPECT_NEAR(e.burst_factor, r.burst_factor, 1e-12);
        EXPECT_EQ(e.after_burst.to_string(), r.after_burst);
        EXPECT_NEAR(e.confidence_factor, r.confidence_factor, 1e-12);
        EXPECT_EQ(e.after_confidence.to_string(), r.after_confidence);
        EXPECT_EQ(e.bounds_applied, r.bounds_applied);
        EXPECT_EQ(e.after_bounds.to_string(), r.after_bounds);
        EXPECT_EQ(e.min_change_percent, 10);
        EXPECT_EQ(e.max_change_percent, r.max_change_percent);
        EXPECT_EQ(e.change_filter_applied, r.change_filter_applied);
        EXPECT_EQ(e.after_change_filter.to_string(), r.final);
        EXPECT_EQ(e.final.to_string(), r.final);
        for (const double x : {e.overhead, e.burst_factor, e.confidence, e.confidence_factor, e.max_change_percent})
            EXPECT_TRUE(std::isfinite(x));
    }
}

// Samples every 5 minutes from kDay0; 2304 = 8 days, enough for confidence 1
// (span 7.9965 d; sqrt(2304/24) = 9.8; min/7 > 1 -> 1).
std::vector<UsageSample> every_5m(int n, double value) {
    std::vector<UsageSample> s;
    for (int i = 0; i < n; ++i) s.push_back({kDay0 + i * 300.0, value});
    return s;
}
constexpr int kWeekPlus = 2304;
constexpr double kMiB = 1024.0 * 1024.0;

ResourceRequirements live(ResourceList requests, ResourceList limits = {}) { return {std::move(requests), std::move(limits)}; }

// By value: callers pass the temporary result of recommend_container.
ContainerRecommendation rec_of(const ContainerOutcome& o) {
    if (const auto* r = std::get_if<ContainerRecommendation>(&o)) return *r;
    ADD_FAILURE() << "insufficient data";
    return {};
}

TEST(RecommendContainer, FewerThanMinimumPointsForBothResourcesIsInsufficientData) {
    const auto cpu = every_5m(10, 0.25);
    const auto mem = every_5m(12, 100 * kMiB);
    const auto o = recommend_container({"app", cpu, mem, live(rl({{"cpu", "500m"}}))}, RecommenderSettings{}, kDay0);
    const auto* d = std::get_if<InsufficientData>(&o);
    ASSERT_NE(d, nullptr);
    EXPECT_EQ(d->cpu_points, 10);
    EXPECT_EQ(d->memory_points, 12);
    EXPECT_EQ(d->required, 48);
    EXPECT_EQ(d->collected(), 12);
}

TEST(RecommendContainer, EnoughCpuOnlyRecommendsCpuAndKeepsMemory) {
    const auto cpu = every_5m(kWeekPlus, 0.25);
    const auto mem = every_5m(10, 100 * kMiB);
    const auto& r = rec_of(recommend_container(
        {"app", cpu, mem, live(rl({{"cpu", "500m"}, {"memory", "256Mi"}}))}, RecommenderSettings{}, kDay0 + 1e6));
    // 250m x1.2 = 300m; vs 500m = -40%, inside the 50% cap.
    EXPECT_EQ(r.recommended.cpu_request.to_string(), "300m");
    EXPECT_EQ(r.recommended.memory_request.to_string(), "256Mi");
    EXPECT_TRUE(r.cpu.has_value());
    EXPECT_FALSE(r.memory.has_value());
    EXPECT_EQ(r.data_points, kWeekPlus + 10);
    // memory: 10 points, span 2700 s = 0.03125 d, sqrt(10/24) = 0.645 -> 0.03125/7; mean with cpu's 1.
    EXPECT_NEAR(r.confidence, (1 + 0.03125 / 7) / 2, 1e-12);
    EXPECT_EQ(r.last_updated, kDay0 + 1e6);
    EXPECT_EQ(*r.last_data_time, kDay0 + (kWeekPlus - 1) * 300.0);
}

TEST(RecommendContainer, MinimumDataPointsIsInclusiveAndPartialConfidenceWidens) {
    const auto cpu = every_5m(48, 0.25);
    const auto& r = rec_of(recommend_container({"app", cpu, {}, live({})}, RecommenderSettings{}, kDay0));
    // 48 points: span 47*300 = 14100 s = 0.1631944 d; sqrt(48/24) = 1.414 -> c = 0.1631944/7 = 0.0233135;
    // factor 1 + (1 - c)^2 = 1.9539165; 300m x 1.9539165 = 586.17 -> 587m.
    ASSERT_TRUE(r.cpu);
    EXPECT_NEAR(r.cpu->confidence, 14100.0 / 86400 / 7, 1e-12);
    EXPECT_EQ(r.cpu->after_confidence.to_string(), "587m");
    EXPECT_EQ(r.recommended.cpu_request.to_string(), "587m");
}

TEST(RecommendContainer, MemoryDecreaseIsHeldWhenNotAllowedAndReported) {
    const auto mem = every_5m(kWeekPlus, 100 * kMiB);
    const auto& r = rec_of(recommend_container({"app", {}, mem, live(rl({{"memory", "512Mi"}}))},
                                               RecommenderSettings{}, kDay0));
    // 130Mi vs 512Mi = -74.6% > 30% -> 536870912 x 0.7 = 375809638.4 -> 375809639; below current,
    // and memory allowDecrease defaults to false -> held at 512Mi.
    ASSERT_TRUE(r.memory);
    EXPECT_EQ(r.memory->after_change_filter.to_string(), "375809639");
    EXPECT_EQ(r.memory->final.to_string(), "512Mi");
    EXPECT_EQ(r.memory->final_adjustment, "memory decrease from 512Mi to 358Mi blocked by allowDecrease=false");
    EXPECT_EQ(r.recommended.memory_request.to_string(), "512Mi");
    ASSERT_EQ(r.suppressed.size(), 1u);
    EXPECT_EQ(r.suppressed[0].resource, ResourceKind::Memory);
    EXPECT_EQ(r.suppressed[0].unclamped.to_string(), "375809639");
    EXPECT_EQ(r.suppressed[0].message, "memory decrease blocked by allowDecrease=false for container app (current: 512Mi)");
}

TEST(RecommendContainer, CpuDecreaseIsAllowedByDefaultAndHeldWhenDisallowed) {
    const auto cpu = every_5m(kWeekPlus, 0.25);
    const ContainerUsage u{"app", cpu, {}, live(rl({{"cpu", "500m"}}))};
    EXPECT_EQ(rec_of(recommend_container(u, RecommenderSettings{}, kDay0)).recommended.cpu_request.to_string(), "300m");
    RecommenderSettings s;
    s.cpu.allow_decrease = false;
    const auto& r = rec_of(recommend_container(u, s, kDay0));
    EXPECT_EQ(r.recommended.cpu_request.to_string(), "500m");
    EXPECT_EQ(r.cpu->final_adjustment, "CPU decrease from 500m to 300m blocked by allowDecrease=false");
    ASSERT_EQ(r.suppressed.size(), 1u);
    EXPECT_EQ(r.suppressed[0].message, "CPU decrease blocked by allowDecrease=false for container app (current: 500m)");
}

TEST(RecommendContainer, MemoryFromCpuRatioDerivesMemoryFromTheCpuRecommendation) {
    const auto cpu = every_5m(kWeekPlus, 0.5);
    RecommenderSettings s;
    s.memory.memory_from_cpu_ratio = 2;  // GiB per core
    const auto& r = rec_of(recommend_container({"app", cpu, {}, live({})}, s, kDay0));
    // cpu: 500m x1.2 = 600m. memory: 0.6 cores x 2 GiB = 1288490188.8 -> 1288490188 B;
    // x1.3 = 1675037244.4 -> 1675037245 B; confidence 1 (derived, no uncertainty); no current.
    EXPECT_EQ(r.recommended.cpu_request.to_string(), "600m");
    ASSERT_TRUE(r.memory);
    EXPECT_EQ(r.memory->raw_percentile.to_string(), "1288490188");
    EXPECT_EQ(r.memory->after_overhead.to_string(), "1675037245");
    EXPECT_EQ(r.memory->confidence, 1);
    EXPECT_EQ(r.memory->confidence_factor, 1);
    EXPECT_EQ(r.recommended.memory_request.to_string(), "1675037245");
    EXPECT_EQ(r.memory->final_adjustment, "derived from CPU via memoryFromCpuRatio=2");
    EXPECT_EQ(r.memory_points, 0);
    EXPECT_NEAR(r.confidence, 0.5, 1e-12);  // (cpu 1 + memory 0) / 2
}

TEST(RecommendContainer, MemoryFromCpuRatioHeldDecreaseSaysSo) {
    const auto cpu = every_5m(kWeekPlus, 0.1);
    RecommenderSettings s;
    s.memory.memory_from_cpu_ratio = 0.5;
    const auto& r =
        rec_of(recommend_container({"app", cpu, {}, live(rl({{"cpu", "120m"}, {"memory", "1Gi"}}))}, s, kDay0));
    // cpu: 100m x1.2 = 120m = current -> kept. memory: 0.12 x 0.5 GiB = 64424509.44 -> 64424509 B,
    // x1.3 -> 83751862 B; vs 1Gi -92% -> capped 751619277; held at 1Gi (allowDecrease false).
    EXPECT_EQ(r.recommended.memory_request.to_string(), "1Gi");
    EXPECT_EQ(r.memory->final_adjustment,
              "Memory decrease blocked by allowDecrease=false (derived from CPU via ratio 0.5); "
              "derived from CPU via memoryFromCpuRatio=0.5");
    EXPECT_EQ(r.suppressed.size(), 1u);
}

TEST(RecommendContainer, MemoryFromCpuRatioWithoutEnoughCpuUsesMemorySamples) {
    const auto cpu = every_5m(10, 0.5);
    const auto mem = every_5m(kWeekPlus, 100 * kMiB);
    RecommenderSettings s;
    s.memory.memory_from_cpu_ratio = 2;
    const auto& r = rec_of(recommend_container({"app", cpu, mem, live({})}, s, kDay0));
    EXPECT_FALSE(r.cpu);
    EXPECT_EQ(r.recommended.memory_request.to_string(), "130Mi");  // 100Mi x 1.3
    EXPECT_EQ(r.memory->final_adjustment, "");
}

TEST(RecommendContainer, RequestsAndLimitsKeepsTheLiveRatioRequestsOnlyNeverTouchesLimits) {
    const auto cpu = every_5m(kWeekPlus, 0.25);
    const auto mem = every_5m(kWeekPlus, 150 * kMiB);
    const ContainerUsage u{"app", cpu, mem,
                           live(rl({{"cpu", "200m"}, {"memory", "128Mi"}}), rl({{"cpu", "400m"}, {"memory", "192Mi"}}))};
    RecommenderSettings s;
    s.cpu.controlled_values = s.memory.controlled_values = ControlledValues::RequestsAndLimits;
    const auto& r = rec_of(recommend_container(u, s, kDay0));
    // cpu: 300m (vs 200m: +50%, at the cap); limit x (400/200) = 600m.
    EXPECT_EQ(r.recommended.cpu_request.to_string(), "300m");
    EXPECT_EQ(r.recommended.cpu_limit.to_string(), "600m");
    // memory: 150Mi x1.3 = 204472320 B vs 128Mi = +52% -> capped 134217728 x 1.3 = 174483046.4 -> 174483047;
    // limit x (192/128 = 1.5) = 261724570.5 -> 261724570 B.
    EXPECT_EQ(r.recommended.memory_request.to_string(), "174483047");
    EXPECT_EQ(r.recommended.memory_limit.to_string(), "261724570");

    const auto& only = rec_of(recommend_container(u, RecommenderSettings{}, kDay0));
    EXPECT_EQ(only.recommended.cpu_request.to_string(), "300m");
    EXPECT_EQ(only.recommended.cpu_limit.to_string(), "400m");
    EXPECT_EQ(only.recommended.memory_limit.to_string(), "192Mi");
}

TEST(RecommendContainer, AbsentCurrentValuesAreZeroAndStayWithoutLimits) {
    const auto cpu = every_5m(kWeekPlus, 0.25);
    const auto mem = every_5m(kWeekPlus, 100 * kMiB);
    RecommenderSettings s;
    s.cpu.controlled_values = s.memory.controlled_values = ControlledValues::RequestsAndLimits;
    const auto& r = rec_of(recommend_container({"app", cpu, mem, live({})}, s, kDay0));
    EXPECT_TRUE(r.current == ResourceValues{});
    EXPECT_EQ(r.recommended.cpu_request.to_string(), "300m");
    EXPECT_EQ(r.recommended.memory_request.to_string(), "130Mi");
    // No live limit: none recommended, so the QoS class cannot change.
    EXPECT_TRUE(r.recommended.cpu_limit.is_zero());
    EXPECT_TRUE(r.recommended.memory_limit.is_zero());
    // A memory "decrease" from nothing is no decrease.
    EXPECT_TRUE(r.suppressed.empty());
}

TEST(RecommendContainer, NonFiniteSamplesAreDroppedCountedAndNeverReachAFigure) {
    auto cpu = every_5m(kWeekPlus, 0.25);
    for (std::size_t i = 0; i < cpu.size(); i += 10) cpu[i].value = (i % 20 == 0) ? kNaN : INFINITY;
    const auto& r = rec_of(recommend_container({"app", cpu, {}, live({})}, RecommenderSettings{}, kDay0));
    EXPECT_EQ(r.non_finite_dropped_cpu, 231);  // indices 0, 10, ..., 2300
    EXPECT_EQ(r.cpu_points, kWeekPlus - 231);
    EXPECT_EQ(r.recommended.cpu_request.to_string(), "300m");
    EXPECT_TRUE(std::isfinite(r.confidence));

    const std::vector<UsageSample> all_nan(100, UsageSample{kDay0, kNaN});
    const auto o = recommend_container({"app", all_nan, all_nan, live({})}, RecommenderSettings{}, kDay0);
    const auto* d = std::get_if<InsufficientData>(&o);
    ASSERT_NE(d, nullptr);
    EXPECT_EQ(d->non_finite_dropped_cpu, 100);
    EXPECT_EQ(d->non_finite_dropped_memory, 100);
    EXPECT_EQ(d->collected(), 0);
}

TEST(RecommendContainer, ADailyPeakHourSetsTheFigureAndTriggersTheBurstBoost) {
    auto cpu = every_5m(kWeekPlus, 0.1);
    for (auto& s : cpu)
        if (static_cast<long long>(s.timestamp) % 86400 / 3600 == 2) s.value = 0.5;  // 02:00-02:59 UTC daily
    const auto& r = rec_of(recommend_container({"app", cpu, {}, live({})}, RecommenderSettings{}, kDay0));
    // 96 of 2304 samples are peaks (4.2%): overall p95 = 0.1, bucket 02 p95 = 0.5 -> raw 500m; x1.2 = 600m;
    // max/p95 = 5 > 3: 1 + log2(5) x 0.1 = 1.2321928; 600m x 1.2321928 = 739.3 -> 740m.
    ASSERT_TRUE(r.cpu);
    EXPECT_EQ(r.cpu->raw_percentile.to_string(), "500m");
    EXPECT_NEAR(r.cpu->burst_factor, 1 + std::log2(5.0) * 0.1, 1e-12);
    EXPECT_EQ(r.cpu->final.to_string(), "740m");
}

TEST(RecommendContainer, SamplesOverTheCapAreDownsampled) {
    const auto cpu = every_5m(25'000, 0.25);
    const auto& r = rec_of(recommend_container({"app", cpu, {}, live({})}, RecommenderSettings{}, kDay0));
    EXPECT_EQ(r.cpu_points, 10'000);
    RecommenderSettings uncapped;
    uncapped.max_samples = 0;
    EXPECT_EQ(rec_of(recommend_container({"app", cpu, {}, live({})}, uncapped, kDay0)).cpu_points, 25'000);
}

TEST(RecommendFromPoint, VpaTargetRunsTheChainAtFullConfidence) {
    PointEstimate p{"app", qty("250m"), qty("256Mi"), live(rl({{"cpu", "500m"}, {"memory", "256Mi"}}))};
    const auto r = recommend_from_point(p, RecommenderSettings{}, kDay0, "source: VPA");
    // cpu: 250m x1.2 = 300m; vs 500m = -40% -> 300m.
    EXPECT_EQ(r.recommended.cpu_request.to_string(), "300m");
    // memory: 256Mi x1.3 = 348966092.8 -> 348966093; vs 268435456 = +30.0000001% > 30 ->
    // capped 268435456 x 1.3 = 348966092.8 -> 348966093.
    EXPECT_EQ(r.memory->change_filter_applied, "max_change_capped");
    EXPECT_EQ(r.recommended.memory_request.to_string(), "348966093");
    EXPECT_EQ(r.cpu->final_adjustment, "source: VPA");
    EXPECT_EQ(r.memory->final_adjustment, "source: VPA");
    EXPECT_EQ(r.confidence, 1);
    EXPECT_EQ(r.data_points, 2);

    PointEstimate cpu_only{"app", qty("250m"), std::nullopt, live(rl({{"memory", "256Mi"}}))};
    const auto c = recommend_from_point(cpu_only, RecommenderSettings{}, kDay0, "source: VPA");
    EXPECT_FALSE(c.memory);
    EXPECT_EQ(c.recommended.memory_request.to_string(), "256Mi");
    EXPECT_EQ(c.data_points, 1);
}

TEST(ScaleLimit, KeepsTheLiveRatioAndNeverGoesBelowTheRequest) {
    const auto cpu = ResourceKind::Cpu;
    const auto mem = ResourceKind::Memory;
    // 400/200 = 2; 300m x 2 = 600m.
    EXPECT_EQ(scale_limit(cpu, qty("200m"), qty("400m"), qty("300m")).to_string(), "600m");
    // Guaranteed (ratio 1) stays equal.
    EXPECT_EQ(scale_limit(cpu, qty("500m"), qty("500m"), qty("333m")).to_string(), "333m");
    // 1000/300 = 3.3333; 150m x 3.3333 = 500.00000000000006 -> 500m.
    EXPECT_EQ(scale_limit(cpu, qty("300m"), qty("1"), qty("150m")).to_string(), "500m");
    // memory floors to whole bytes: 174483047 x 1.5 = 261724570.5 -> 261724570.
    EXPECT_EQ(scale_limit(mem, qty("128Mi"), qty("192Mi"), qty("174483047")).to_string(), "261724570");
    // Past 2^53 millis the double product rounds; ratio 1 must still give limit == request.
    EXPECT_EQ(scale_limit(mem, qty("8Ti"), qty("8Ti"), qty("7Ti")).to_string(), "7Ti");
    // No live request or limit: no limit.
    EXPECT_TRUE(scale_limit(cpu, qty("0"), qty("1"), qty("300m")).is_zero());
    EXPECT_TRUE(scale_limit(cpu, qty("200m"), qty("0"), qty("300m")).is_zero());
}

TEST(Staleness, NewestSampleOlderThanTwoStepsAtLeastTenMinutes) {
    struct Row {
        std::optional<double> last;
        double now, step;
        bool stale;
    } rows[] = {
        {std::nullopt, 1000, 300, true},  // no data at all
        {1000, 1000, 300, false},         // fresh
        {1000, 1600, 300, false},         // 600 s = max(2 x 300, 600): not over
        {1000, 1601, 300, true},          // 601 s
        {1000, 1601, 60, true},           // the 10-minute floor: max(120, 600) = 600
        {1000, 8200, 3600, false},        // 7200 s = 2 x 1h
        {1000, 8201, 3600, true},
    };
    for (const auto& r : rows) EXPECT_EQ(is_stale(r.last, r.now, r.step), r.stale) << r.now << " " << r.step;
}

TEST(RecommendWorkload, CollectsContainersLastDataTimeAndStaleness) {
    const auto cpu = every_5m(kWeekPlus, 0.25);
    const auto few = every_5m(5, 0.25);
    const ContainerUsage containers[] = {{"app", cpu, {}, live({})}, {"sidecar", few, few, live({})}};
    const double newest = kDay0 + (kWeekPlus - 1) * 300.0;
    auto w = recommend_workload(containers, RecommenderSettings{}, newest + 60, 300);
    ASSERT_EQ(w.containers.size(), 1u);
    EXPECT_EQ(w.containers[0].name, "app");
    ASSERT_EQ(w.insufficient.size(), 1u);
    EXPECT_EQ(w.insufficient[0].name, "sidecar");
    EXPECT_EQ(*w.last_data_time, newest);
    EXPECT_FALSE(w.stale);
    EXPECT_EQ(w.max_data_points, kWeekPlus);
    EXPECT_TRUE(recommend_workload(containers, RecommenderSettings{}, newest + 3600, 300).stale);
}

TEST(InsufficientDataMessage, SaysNOfMAndTheTimeLeft) {
    // (48 - 12) x 300 s = 10800 s = 3h.
    EXPECT_EQ(insufficient_data_message(12, 48, 300), "Collecting data: 12 of 48 points, about 3h remaining");
    // 38 x 330 s = 12540 s = 209 min.
    EXPECT_EQ(insufficient_data_message(10, 48, 330), "Collecting data: 10 of 48 points, about 3h29m remaining");
    EXPECT_EQ(insufficient_data_message(47, 48, 300), "Collecting data: 47 of 48 points, about 5m remaining");
    EXPECT_EQ(insufficient_data_message(47, 48, 10), "Collecting data: 47 of 48 points, under a minute remaining");
}

}  // namespace
}  // namespace attune::core
