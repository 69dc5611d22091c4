#pragma once
// Decoding Datadog's GET /api/v1/query answers into the series the
// recommender reads (the same PromResponse the Prometheus path decodes to,
// so both sources end in the same estimator). Pure; the body comes in as text.
//
//   {"status":"ok","series":[{"scope":"...","tag_set":["kube_container_name:app",...],
//                             "pointlist":[[<ms>,<value>|null],...]},...]}
//
// Each series becomes one PromSeries whose "container" label is its
// kube_container_name tag ("" when it has none, as the Go original groups
// it); timestamps go from milliseconds to seconds; CPU points from
// nanocores to cores. A null point is a gap in Datadog's rollup and is
// skipped; a non-finite one is dropped and counted. `status: "error"` and
// malformed JSON are clear errors, never exceptions.
#include <chrono>
#include <string>
#include <string_view>

#include "attune/core/policy/resource_tuning.hpp"  // ResourceKind
#include "attune/core/recommend/prometheus_response.hpp"
#include "attune/core/util/result.hpp"

namespace attune::core {

// Error codes: "datadog_error" (status "error", or an "errors" list; the
// message carries Datadog's text), "invalid_response" (not JSON, or not the
// API's shape; the message names the JSON path). `limits.max_series` and
// `max_samples` cap the answer as for Prometheus (series_capped, samples_capped).
Result<PromResponse> decode_datadog_response(std::string_view body, ResourceKind resource,
                                             const PromDecodeLimits& limits = {});

// Datadog's error text from a non-200 body ({"errors":["..."]}), joined
// with "; "; "" when the body is not that shape.
std::string datadog_error_text(std::string_view body);

// How long to leave Datadog alone after a 429: X-RateLimit-Reset (seconds
// until the limit's period resets), else X-RateLimit-Period, else a minute;
// a header that is not a whole number of seconds counts as absent. At
// least 1 s, at most an hour, so a broken header cannot silence the source for good.
inline constexpr std::chrono::seconds kDatadogDefaultRateLimitWait{60};
std::chrono::seconds datadog_rate_limit_wait(std::string_view reset_header, std::string_view period_header);

}  // namespace attune::core
