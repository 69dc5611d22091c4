#pragma once
// One resource's usage history, summarised for the recommender: the
// configured percentile (the larger of the overall one and that of each of
// the 24 UTC hour-of-day buckets), the burst signal and the confidence.
//
// Percentile definition (kept, so figures match the Go original): linear
// interpolation between the closest ranks of the sorted finite values,
// rank = p * (n - 1) (Hyndman-Fan type 7, numpy's default). One sample gives
// itself; an empty bucket gives 0.
#include <cstddef>
#include <span>
#include <vector>

namespace attune::core {

struct UsageSample {
    double timestamp = 0;  // seconds since the Unix epoch (Prometheus' unit)
    double value = 0;      // cores for cpu, bytes for memory
};

// The sample cap before any percentile work: at most 10,000.
inline constexpr std::size_t kMaxProfileSamples = 10'000;

// At most `max_samples` samples, evenly spaced by index over the samples
// sorted by time (a stable sort: ties keep their input order), with the
// first and the last kept: index i of the output is sorted[i * (n-1) / (max-1)].
// Input at or under the cap is returned as is (unsorted). max_samples 0: no cap.
std::vector<UsageSample> downsample(std::span<const UsageSample> samples, std::size_t max_samples);

struct UsageProfile {
    // max(overall pXX, pXX of every non-empty UTC hour-of-day bucket);
    // pXX is 50, 90, 95 or 99 (anything else reads as 95, as the Go original).
    double percentile_value = 0;
    double max = 0;                // overall
    bool burst_detected = false;   // overall max / overall p95 > 3
    double burst_magnitude = 0;    // max / p95 when detected, else 0
    int data_points = 0;           // finite samples used
    int non_finite_dropped = 0;    // NaN / +Inf / -Inf samples ignored
    double span_days = 0;          // (newest - oldest finite timestamp) / 86400
    double confidence = 0;         // clamp(min(span_days, sqrt(points / 24)) / 7, 0, 1)
    double newest_timestamp = 0;   // of a finite sample; 0 when there is none
};

// Non-finite values are dropped (and counted); no value reaching the
// result is NaN or infinite. Applies no cap: downsample() first.
UsageProfile build_usage_profile(std::span<const UsageSample> samples, int percentile);

// The interpolated percentile p (0..1) of `values`, reordering them
// (selection, not a full sort). Empty: 0. Exposed for its table test.
double interpolated_percentile(std::span<double> values, double p);

}  // namespace attune::core
