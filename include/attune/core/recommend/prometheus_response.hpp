#pragma once
// Decoding Prometheus' HTTP API answers (/api/v1/query_range and
// /api/v1/query): matrix, vector and scalar results into series of samples.
// Pure; the body comes in as text. `status: "error"` and malformed JSON are
// clear errors, never exceptions. NaN, +Inf and -Inf samples are dropped
// and counted per series (for attune_nan_inf_samples_total).
#include <cstddef>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "attune/core/util/result.hpp"
#include "attune/core/recommend/usage_profile.hpp"  // UsageSample

namespace attune::core {

struct PromSeries {
    std::map<std::string, std::string, std::less<>> labels;  // the series' "metric" object
    std::vector<UsageSample> samples;                        // finite values only, in answer order
    int non_finite_dropped = 0;
};

struct PromResponse {
    std::string result_type;  // "matrix" | "vector" | "scalar"
    std::vector<PromSeries> series;
    std::vector<std::string> warnings;
    std::size_t series_total = 0;  // in the answer, before the series cap
    bool series_capped = false;    // partial data: Ready=True PrometheusSeriesCapped
    bool samples_capped = false;   // partial data: the sample cap was reached
};

struct PromDecodeLimits {
    // Default as the Go original's series cap. When it bites, one series per
    // distinct value of `prefer_distinct_label` is kept first (so no
    // container loses all of its data to another's pods), then the rest in
    // answer order.
    std::size_t max_series = 5000;
    std::string prefer_distinct_label = "container";
    std::size_t max_samples = 2'000'000;  // over all series
};

// One decoded sample into its series under an answer-wide sample cap (the
// Prometheus and Datadog decoders): a non-finite value or time is dropped
// and counted in the series, a sample past `max` is dropped and `capped` set.
struct SampleCap {
    std::size_t max = 0;  // 0: no cap
    std::size_t taken = 0;
    bool capped = false;
    void add(PromSeries& series, const UsageSample& sample);
};

// Error codes: "prometheus_error" (status "error"; the message carries
// errorType and error), "invalid_response" (not JSON, or not the API's
// shape; the message names the JSON path).
Result<PromResponse> decode_prometheus_response(std::string_view body, const PromDecodeLimits& limits = {});

// Series grouped by one label's value (for usage queries: "container"),
// concatenated in answer order (several pods under PodAggregation None).
// A series without the label is grouped under "".
struct GroupedSamples {
    std::vector<UsageSample> samples;
    int non_finite_dropped = 0;
    int series = 0;
};
std::map<std::string, GroupedSamples, std::less<>> group_by_label(const PromResponse& r, std::string_view label);

}  // namespace attune::core
