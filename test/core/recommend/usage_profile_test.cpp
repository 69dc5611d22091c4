#include "attune/core/recommend/usage_profile.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <random>
#include <limits>
#include <vector>

namespace attune::core {
namespace {

constexpr double kDay0 = 1767225600;  // 2026-01-01T00:00:00Z
constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
constexpr double kInf = std::numeric_limits<double>::infinity();

struct PercentileRow {
    const char* why;
    std::vector<double> values;
    double p;
    double want;
};

// Linear interpolation, rank = p * (n - 1); each row worked by hand.
TEST(InterpolatedPercentile, MatchesTheStatedDefinition) {
    const PercentileRow rows[] = {
        {"empty is 0", {}, 0.95, 0},
        {"one value is itself", {7}, 0.99, 7},
        {"p50 of 1..5: rank 2 -> 3", {1, 2, 3, 4, 5}, 0.50, 3},
        {"p90 of 1..5: rank 3.6 -> 4*0.4 + 5*0.6 = 4.6", {1, 2, 3, 4, 5}, 0.90, 4.6},
        {"p95 of 1..5: rank 3.8 -> 4*0.2 + 5*0.8 = 4.8", {1, 2, 3, 4, 5}, 0.95, 4.8},
        {"p99 of 1..5: rank 3.96 -> 4*0.04 + 5*0.96 = 4.96", {1, 2, 3, 4, 5}, 0.99, 4.96},
        {"order of the input does not matter", {5, 1, 4, 2, 3}, 0.90, 4.6},
        {"two values: rank 0.95 -> 10*0.05 + 20*0.95 = 19.5", {20, 10}, 0.95, 19.5},
        {"ties: p50 of {2,2,2,9}: rank 1.5 -> 2", {9, 2, 2, 2}, 0.50, 2},
    };
    for (const auto& r : rows) {
        std::vector<double> v = r.values;
        EXPECT_NEAR(interpolated_percentile(v, r.p), r.want, 1e-12) << r.why;
    }
}

std::vector<UsageSample> hourly(int hours, double value, double start = kDay0) {
    std::vector<UsageSample> s;
    for (int h = 0; h < hours; ++h) s.push_back({start + h * 3600.0, value});
    return s;
}

// The maximum of the overall pXX and the pXX of each of the
// 24 hour-of-day buckets, so a daily peak hour is covered.
TEST(UsageProfile, APeakHourWinsOverTheOverallPercentile) {
    auto s = hourly(24, 1.0);
    s[5].value = 10;  // 05:00 UTC
    // Overall p95 of {1 x 23, 10}: rank 0.95*23 = 21.85 -> sorted[21] = sorted[22] = 1.
    // Bucket 05 holds only 10, so its p95 is 10.
    const auto p = build_usage_profile(s, 95);
    EXPECT_DOUBLE_EQ(p.percentile_value, 10);
    EXPECT_DOUBLE_EQ(p.max, 10);
}

TEST(UsageProfile, BucketsAreUtcHoursOfDayAcrossDays) {
    // Two days; 03:00 on both days reads 4 and 6, every other hour 1.
    auto s = hourly(48, 1.0);
    s[3].value = 4;
    s[27].value = 6;
    // Bucket 03 = {4, 6}: p50 rank 0.5 -> 4*0.5 + 6*0.5 = 5. Overall p50 = 1.
    EXPECT_DOUBLE_EQ(build_usage_profile(s, 50).percentile_value, 5);
    // p99 of bucket 03: rank 0.99 -> 4*0.01 + 6*0.99 = 5.98.
    EXPECT_NEAR(build_usage_profile(s, 99).percentile_value, 5.98, 1e-12);
}

TEST(UsageProfile, UnknownPercentileReadsAs95) {
    std::vector<UsageSample> s;
    for (int i = 0; i < 5; ++i) s.push_back({kDay0 + i, static_cast<double>(i + 1)});
    // All in hour 00: p95 of 1..5 = 4.8 for both the bucket and overall.
    EXPECT_DOUBLE_EQ(build_usage_profile(s, 42).percentile_value, 4.8);
    EXPECT_DOUBLE_EQ(build_usage_profile(s, 90).percentile_value, 4.6);
}

TEST(UsageProfile, BurstIsMaxOverP95AboveThree) {
    // 100 samples in one hour: 99 x 1 and one 10. p95: rank 94.05 -> 1; max 10; 10/1 = 10 > 3.
    std::vector<UsageSample> s;
    for (int i = 0; i < 100; ++i) s.push_back({kDay0 + i, i == 50 ? 10.0 : 1.0});
    auto p = build_usage_profile(s, 95);
    EXPECT_TRUE(p.burst_detected);
    EXPECT_DOUBLE_EQ(p.burst_magnitude, 10);
    // Exactly 3 is not a burst: 3/1 = 3, not > 3.
    s[50].value = 3;
    p = build_usage_profile(s, 95);
    EXPECT_FALSE(p.burst_detected);
    EXPECT_EQ(p.burst_magnitude, 0);
}

TEST(UsageProfile, ConfidenceFromSpanAndPoints) {
    // No data: 0.
    EXPECT_EQ(build_usage_profile({}, 95).confidence, 0);
    // 24 hourly points: span 23 h = 0.958333 d; sqrt(24/24) = 1; min = 0.958333; /7 = 0.136905.
    auto p = build_usage_profile(hourly(24, 1), 95);
    EXPECT_NEAR(p.span_days, 23.0 / 24, 1e-12);
    EXPECT_NEAR(p.confidence, 23.0 / 24 / 7, 1e-12);
    // 7 days of 5-minute samples: 2016 points, span 2015*300 s = 6.996528 d, sqrt(84) = 9.17:
    // confidence = 6.996528 / 7 = 0.999504 (just under full).
    std::vector<UsageSample> week;
    for (int i = 0; i < 2016; ++i) week.push_back({kDay0 + i * 300.0, 1});
    EXPECT_NEAR(build_usage_profile(week, 95).confidence, 2015.0 * 300 / 86400 / 7, 1e-12);
    // 8 days hourly: span 7.958 d but sqrt(192/24) = 2.828 limits: 2.828/7 = 0.404061.
    EXPECT_NEAR(build_usage_profile(hourly(192, 1), 95).confidence, std::sqrt(8.0) / 7, 1e-12);
    // 60 days hourly: min(59.96, sqrt(60) = 7.746) / 7 > 1 -> clamped to 1.
    EXPECT_EQ(build_usage_profile(hourly(24 * 60, 1), 95).confidence, 1);
}

TEST(UsageProfile, NonFiniteSamplesAreDroppedAndCounted) {
    const std::vector<UsageSample> s = {
        {kDay0, 1}, {kDay0 + 1, kNaN}, {kDay0 + 2, kInf}, {kDay0 + 3, -kInf}, {kDay0 + 4, 2}, {kNaN, 5}};
    const auto p = build_usage_profile(s, 50);
    EXPECT_EQ(p.data_points, 2);
    EXPECT_EQ(p.non_finite_dropped, 4);
    EXPECT_DOUBLE_EQ(p.percentile_value, 1.5);  // p50 of {1, 2}: rank 0.5 -> 1.5
    EXPECT_DOUBLE_EQ(p.newest_timestamp, kDay0 + 4);
    // Nothing finite: an empty profile, still counted.
    const auto none = build_usage_profile(std::vector<UsageSample>{{kDay0, kNaN}}, 95);
    EXPECT_EQ(none.data_points, 0);
    EXPECT_EQ(none.non_finite_dropped, 1);
    EXPECT_EQ(none.percentile_value, 0);
}

TEST(Downsample, KeepsEvenlySpacedSamplesOverTimeWithFirstAndLast) {
    // Out of order in; sorted by time, then indices i*(n-1)/(max-1) = 0, 2, 4.
    const std::vector<UsageSample> s = {{50, 5}, {10, 1}, {40, 4}, {20, 2}, {30, 3}};
    const auto d = downsample(s, 3);
    ASSERT_EQ(d.size(), 3u);
    EXPECT_EQ(d[0].value, 1);
    EXPECT_EQ(d[1].value, 3);
    EXPECT_EQ(d[2].value, 5);
    // A cap of 1 keeps the middle one; at or under the cap, the input as is.
    EXPECT_EQ(downsample(s, 1).at(0).value, 3);
    EXPECT_EQ(downsample(s, 5).at(0).value, 5);
    EXPECT_EQ(downsample(s, 0).size(), 5u);
    // 20,000 -> 10,000: first and last survive.
    std::vector<UsageSample> big;
    for (int i = 0; i < 20'000; ++i) big.push_back({static_cast<double>(i), static_cast<double>(i)});
    const auto b = downsample(big, kMaxProfileSamples);
    ASSERT_EQ(b.size(), kMaxProfileSamples);
    EXPECT_EQ(b.front().value, 0);
    EXPECT_EQ(b.back().value, 19'999);
    EXPECT_EQ(b[1].value, 2);  // index 1 * 19999 / 9999 = 2 (integer division)
}

// The reference: the Go original's BuildProfile, literally (sort every
// bucket and the whole set, interpolate). build_usage_profile skips
// selections when a count proves they cannot matter; this checks, on
// thousands of generated series (ties, constants, zeros, negatives, bursts,
// every percentile), that it never changes a figure.
struct Reference {
    double percentile_value = 0, max = 0, burst_magnitude = 0;
    bool burst = false;
};
double sorted_percentile(const std::vector<double>& v, double p) {  // v sorted
    if (v.empty()) return 0;
    if (v.size() == 1) return v[0];
    const double rank = p * static_cast<double>(v.size() - 1);
    const auto lo = static_cast<std::size_t>(std::floor(rank)), hi = static_cast<std::size_t>(std::ceil(rank));
    if (lo == hi) return v[lo];
    const double f = rank - static_cast<double>(lo);
    return v[lo] * (1 - f) + v[hi] * f;
}
struct SortedSeries {
    std::vector<double> all;
    std::vector<double> bucket[24];
    explicit SortedSeries(const std::vector<UsageSample>& s) {
        for (const auto& x : s) {
            all.push_back(x.value);
            bucket[static_cast<long long>(x.timestamp) / 3600 % 24].push_back(x.value);
        }
        std::sort(all.begin(), all.end());
        for (auto& b : bucket) std::sort(b.begin(), b.end());
    }
    Reference at(double p) const {
        Reference r;
        r.percentile_value = sorted_percentile(all, p);
        for (const auto& b : bucket) r.percentile_value = std::max(r.percentile_value, sorted_percentile(b, p));
        r.max = all.back();
        const double p95 = sorted_percentile(all, 0.95);
        if (p95 > 0 && r.max / p95 > 3) {
            r.burst = true;
            r.burst_magnitude = r.max / p95;
        }
        return r;
    }
};

TEST(UsageProfile, SkippedSelectionsNeverChangeTheFigures) {
    std::mt19937_64 e(7);
    const auto unit = [&] { return static_cast<double>(e() >> 11) / 9007199254740992.0; };
    int bursts = 0, compared = 0;
    for (int round = 0; round < 1000; ++round) {
        const int n = 1 + static_cast<int>(e() % 2500);
        const int shape = static_cast<int>(e() % 6);
        std::vector<UsageSample> s;
        for (int i = 0; i < n; ++i) {
            double v = 0;
            switch (shape) {
                case 0: v = unit(); break;                                   // uniform
                case 1: v = 1 + (e() % 4);break;                             // few distinct values: ties
                case 2: v = 0.5; break;                                      // constant
                case 3: v = unit() < 0.03 ? 10 + unit() * 50 : unit(); break;  // rare spikes: bursts
                case 4: v = unit() < 0.5 ? 0 : unit(); break;                // many zeros
                case 5: v = unit() - 0.7; break;                             // negatives
            }
            s.push_back({kDay0 + static_cast<double>(e() % (86400 * 9)), v});
        }
        const SortedSeries sorted(s);
        for (const int pct : {50, 90, 95, 99}) {
            const auto got = build_usage_profile(s, pct);
            const auto want = sorted.at(pct / 100.0);
            ASSERT_EQ(got.percentile_value, want.percentile_value) << "round " << round << " p" << pct;
            ASSERT_EQ(got.max, want.max);
            ASSERT_EQ(got.burst_detected, want.burst) << "round " << round;
            ASSERT_EQ(got.burst_magnitude, want.burst_magnitude);
            bursts += want.burst;
            ++compared;
        }
    }
    EXPECT_GT(bursts, 300);  // the burst path was exercised, not only the skips
    EXPECT_EQ(compared, 4000);
}

}  // namespace
}  // namespace attune::core
