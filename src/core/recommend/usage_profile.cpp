#include "attune/core/recommend/usage_profile.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <limits>
#include <memory>

namespace attune::core {

namespace {

constexpr int kHours = 24;
constexpr double kBurstRatio = 3.0;
constexpr std::uint8_t kSkipped = 0xff;

double fraction_of(int percentile) {
    switch (percentile) {
        case 50: return 0.50;
        case 90: return 0.90;
        case 99: return 0.99;
        default: return 0.95;
    }
}

// UTC hour of day of Unix timestamps, floor-based so pre-1970 values stay
// in 0..23. Samples come in time order, so the hour is recomputed only
// when a timestamp leaves the hour of the previous one.
class HourOfDay {
public:
    std::uint8_t operator()(double timestamp) {
        if (timestamp >= start_ && timestamp < start_ + 3600) return hour_;
        if (!(std::fabs(timestamp) < 9e15)) return 0;  // no real timestamp; keeps the cast defined
        auto secs = static_cast<long long>(timestamp);
        if (static_cast<double>(secs) > timestamp) --secs;
        long long h = secs / 3600;
        if (secs % 3600 < 0) --h;
        start_ = static_cast<double>(h * 3600);
        hour_ = static_cast<std::uint8_t>(((h % kHours) + kHours) % kHours);
        return hour_;
    }

private:
    double start_ = std::numeric_limits<double>::infinity();
    std::uint8_t hour_ = 0;
};

std::size_t lower_rank(double p, std::size_t n) {
    return n < 2 ? 0 : static_cast<std::size_t>(std::floor(p * static_cast<double>(n - 1)));
}

// The interpolated percentile p of `values` when its ranks lie in the top
// few: one pass keeping the k largest in a tiny sorted buffer beats
// nth_element's branchy partitioning there (a bucket's p95 or p99).
constexpr std::size_t kTopFew = 8;
double top_few_percentile(std::span<const double> values, double p) {
    const std::size_t n = values.size();
    const double rank = p * static_cast<double>(n - 1);
    const auto lower = static_cast<std::size_t>(std::floor(rank));
    const auto upper = static_cast<std::size_t>(std::ceil(rank));
    const std::size_t k = n - lower;  // top[0] is the k-th largest = ascending index `lower`
    std::array<double, kTopFew> top{};
    std::size_t filled = 0;
    for (const double v : values) {
        if (filled < k) {
            std::size_t j = filled++;
            for (; j > 0 && top[j - 1] > v; --j) top[j] = top[j - 1];
            top[j] = v;
        } else if (v > top[0]) {
            std::size_t j = 0;
            for (; j + 1 < k && top[j + 1] < v; ++j) top[j] = top[j + 1];
            top[j] = v;
        }
    }
    if (lower == upper) return top[0];
    const double fraction = rank - static_cast<double>(lower);
    return top[0] * (1 - fraction) + top[1] * fraction;
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

namespace {

// The interpolated percentile p of `values`, given that every element
// before `split` is <= every element from `split` on: only the side that
// holds p's lower rank is partitioned. Everything past that rank is then
// >= it, so the next order statistic is the smallest of those.
double percentile_with_split(std::span<double> values, double p, std::size_t split) {
    const double rank = p * static_cast<double>(values.size() - 1);
    const auto lower = static_cast<std::size_t>(std::floor(rank));
    const auto upper = static_cast<std::size_t>(std::ceil(rank));
    const auto at = [&](std::size_t i) { return values.begin() + static_cast<std::ptrdiff_t>(i); };
    if (lower < split)
        std::nth_element(values.begin(), at(lower), at(split));
    else
        std::nth_element(at(split), at(lower), values.end());
    const double lo = values[lower];
    if (lower == upper) return lo;
    const double hi = *std::min_element(at(lower + 1), values.end());
    const double fraction = rank - static_cast<double>(lower);
    return lo * (1 - fraction) + hi * fraction;
}

}  // namespace

double interpolated_percentile(std::span<double> values, double p) {
    if (values.empty()) return 0;
    if (values.size() == 1) return values[0];
    if (values.size() - lower_rank(p, values.size()) <= kTopFew) return top_few_percentile(values, p);
    return percentile_with_split(values, p, values.size());
}

UsageProfile build_usage_profile(std::span<const UsageSample> samples, int percentile) {
    UsageProfile out;
    std::array<std::size_t, kHours + 1> offset{};  // bucket h is [offset[h], offset[h+1])
    // Uninitialised on purpose: every slot is written before it is read.
    const std::unique_ptr<std::uint8_t[]> hour(new std::uint8_t[samples.size()]);
    HourOfDay hour_of;
    double oldest = 0, newest = 0, max = 0;
    std::size_t finite = 0;
    for (std::size_t i = 0; i < samples.size(); ++i) {
        const auto& s = samples[i];
        if (!std::isfinite(s.value) || !std::isfinite(s.timestamp)) {
            hour[i] = kSkipped;
            ++out.non_finite_dropped;
            continue;
        }
        if (finite == 0) {
            oldest = newest = s.timestamp;
            max = s.value;
        }
        oldest = std::min(oldest, s.timestamp);
        newest = std::max(newest, s.timestamp);
        max = std::max(max, s.value);
        ++finite;
        hour[i] = hour_of(s.timestamp);
        ++offset[hour[i] + 1u];
    }
    if (finite == 0) return out;
    for (int h = 0; h < kHours; ++h) offset[h + 1] += offset[h];

    // One counting-sort pass lays the values out bucket by bucket. The
    // bucket selections only reorder inside their buckets, so the same
    // array (the same multiset) then serves the overall percentiles.
    const std::unique_ptr<double[]> storage(new double[finite]);
    const std::span<double> values(storage.get(), finite);
    std::array<std::size_t, kHours> fill{};
    std::copy(offset.begin(), offset.end() - 1, fill.begin());
    for (std::size_t i = 0; i < samples.size(); ++i)
        if (hour[i] != kSkipped) values[fill[hour[i]]++] = samples[i].value;

    const double p = fraction_of(percentile);
    // An empty bucket's percentile is 0 and takes part in the maximum, as in
    // the Go original (only all-negative data can tell the difference).
    bool any_empty = false;
    for (int h = 0; h < kHours; ++h) any_empty = any_empty || offset[h] == offset[h + 1];
    double best = any_empty ? 0 : -std::numeric_limits<double>::infinity();
    for (int h = 0; h < kHours; ++h) {
        const std::span<double> bucket(storage.get() + offset[h], offset[h + 1] - offset[h]);
        if (!bucket.empty()) best = std::max(best, interpolated_percentile(bucket, p));
    }
    out.max = max;

    // Overall: p95 first (the burst test needs it anyway). Its selection
    // leaves everything above its rank behind it, so p99 is then selected
    // from those few values only, p50/p90 from the rest.
    const double p95 = interpolated_percentile(values, 0.95);
    double overall = p95;
    if (p != 0.95) {
        const std::size_t split = lower_rank(0.95, finite) + 1;
        const bool partitioned = finite - lower_rank(0.95, finite) > kTopFew;  // p95 went through nth_element
        overall = partitioned ? percentile_with_split(values, p, split) : interpolated_percentile(values, p);
    }
    out.percentile_value = std::max(best, overall);
    if (p95 > 0) {
        const double ratio = max / p95;
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
