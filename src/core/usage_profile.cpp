#include "attune/core/usage_profile.hpp"

#include <algorithm>
#include <array>
#include <cmath>

namespace attune::core {

namespace {

constexpr int kHours = 24;
constexpr double kBurstRatio = 3.0;

double fraction_of(int percentile) {
    switch (percentile) {
        case 50: return 0.50;
        case 90: return 0.90;
        case 99: return 0.99;
        default: return 0.95;
    }
}

// UTC hour of day of a Unix timestamp, floor-based so pre-1970 values stay in 0..23.
int utc_hour(double timestamp) {
    const auto secs = static_cast<long long>(std::floor(timestamp));
    long long h = secs / 3600;
    if (secs % 3600 < 0) --h;
    return static_cast<int>(((h % kHours) + kHours) % kHours);
}

}  // namespace

std::vector<UsageSample> downsample(std::span<const UsageSample> samples, std::size_t max_samples) {
    if (max_samples == 0 || samples.size() <= max_samples) return {samples.begin(), samples.end()};
    std::vector<UsageSample> sorted(samples.begin(), samples.end());
    std::stable_sort(sorted.begin(), sorted.end(),
                     [](const UsageSample& a, const UsageSample& b) { return a.timestamp < b.timestamp; });
    std::vector<UsageSample> out;
    out.reserve(max_samples);
    if (max_samples == 1) {
        out.push_back(sorted[sorted.size() / 2]);
        return out;
    }
    const std::size_t n = sorted.size();
    for (std::size_t i = 0; i < max_samples; ++i) out.push_back(sorted[i * (n - 1) / (max_samples - 1)]);
    return out;
}

double interpolated_percentile(std::span<double> values, double p) {
    if (values.empty()) return 0;
    if (values.size() == 1) return values[0];
    const double rank = p * static_cast<double>(values.size() - 1);
    const auto lower = static_cast<std::size_t>(std::floor(rank));
    const auto upper = static_cast<std::size_t>(std::ceil(rank));
    std::nth_element(values.begin(), values.begin() + static_cast<std::ptrdiff_t>(lower), values.end());
    const double lo = values[lower];
    if (lower == upper) return lo;
    // After nth_element everything past `lower` is >= lo: the next order
    // statistic is the smallest of them.
    const double hi = *std::min_element(values.begin() + static_cast<std::ptrdiff_t>(lower) + 1, values.end());
    const double fraction = rank - static_cast<double>(lower);
    return lo * (1 - fraction) + hi * fraction;
}

UsageProfile build_usage_profile(std::span<const UsageSample> samples, int percentile) {
    UsageProfile out;
    std::array<std::size_t, kHours + 1> offset{};  // bucket h is [offset[h], offset[h+1])
    double oldest = 0, newest = 0;
    std::size_t finite = 0;
    for (const auto& s : samples) {
        if (!std::isfinite(s.value) || !std::isfinite(s.timestamp)) {
            ++out.non_finite_dropped;
            continue;
        }
        if (finite == 0 || s.timestamp < oldest) oldest = s.timestamp;
        if (finite == 0 || s.timestamp > newest) newest = s.timestamp;
        ++finite;
        ++offset[static_cast<std::size_t>(utc_hour(s.timestamp)) + 1];
    }
    if (finite == 0) return out;
    for (int h = 0; h < kHours; ++h) offset[h + 1] += offset[h];

    // One counting-sort pass lays the values out bucket by bucket; the
    // overall percentiles work on a second copy.
    std::vector<double> by_hour(finite), overall;
    overall.reserve(finite);
    std::array<std::size_t, kHours> fill{};
    std::copy(offset.begin(), offset.end() - 1, fill.begin());
    for (const auto& s : samples) {
        if (!std::isfinite(s.value) || !std::isfinite(s.timestamp)) continue;
        by_hour[fill[static_cast<std::size_t>(utc_hour(s.timestamp))]++] = s.value;
        overall.push_back(s.value);
    }

    const double p = fraction_of(percentile);
    out.max = *std::max_element(overall.begin(), overall.end());
    out.p95 = interpolated_percentile(overall, 0.95);
    double best = p == 0.95 ? out.p95 : interpolated_percentile(overall, p);
    for (int h = 0; h < kHours; ++h) {
        const std::span<double> bucket(by_hour.data() + offset[h], offset[h + 1] - offset[h]);
        if (!bucket.empty()) best = std::max(best, interpolated_percentile(bucket, p));
    }
    out.percentile_value = best;

    if (out.p95 > 0) {
        const double ratio = out.max / out.p95;
        if (ratio > kBurstRatio) {
            out.burst_detected = true;
            out.burst_magnitude = ratio;
        }
    }

    out.data_points = static_cast<int>(finite);
    out.newest_timestamp = newest;
    out.span_days = (newest - oldest) / 3600.0 / 24.0;
    const double raw = std::min(out.span_days, std::sqrt(static_cast<double>(finite) / 24.0)) / 7.0;
    out.confidence = std::clamp(raw, 0.0, 1.0);
    return out;
}

}  // namespace attune::core
