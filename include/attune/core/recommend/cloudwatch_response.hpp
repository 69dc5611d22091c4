#pragma once
// Reading CloudWatch's GetMetricData answers (JSON protocol) into the series
// the recommender reads: the same PromResponse the Prometheus path decodes
// to, so every source ends in the same estimator. Pure; bodies come in as text.
//
//   {"MetricDataResults":[{"Id":"search0","Label":"<pod> <container>","StatusCode":"Complete",
//                          "Timestamps":[<epoch seconds>,...],"Values":[<number>,...]}],
//    "NextToken":"...","Messages":[]}
//
// A result whose pod does not start with the workload's prefix is another
// workload's and is skipped (the Go original's filter). Each pod and
// container is one series, labelled "container" and "pod", continued across
// pages; CPU values go from cpuUnit to cores. Errors are CloudWatch's own
// words: a throttling or an authentication error is told apart so the
// shell can back off or name the credentials.
#include <chrono>
#include <map>
#include <string>
#include <string_view>

#include "attune/core/policy/policy.hpp"           // CloudWatchCpuUnit
#include "attune/core/policy/resource_tuning.hpp"  // ResourceKind
#include "attune/core/recommend/prometheus_response.hpp"
#include "attune/core/util/result.hpp"

namespace attune::core {

// What one point of container_cpu_usage_total is worth in cores.
double cloudwatch_cpu_divisor(CloudWatchCpuUnit unit);

// The pages of one GetMetricData query, gathered.
class CloudWatchAnswer {
public:
    CloudWatchAnswer(ResourceKind resource, CloudWatchCpuUnit unit, std::string pod_prefix,
                     const PromDecodeLimits& limits = {});
    // One 200 answer. Its NextToken ("" : it was the last page), or an error:
    // "invalid_response" (not JSON, or not the API's shape; the message
    // names the JSON path), "cloudwatch_error" (a result with StatusCode
    // Forbidden or InternalError, with CloudWatch's messages).
    Result<std::string> add_page(std::string_view body);
    int pages() const noexcept { return pages_; }
    PromResponse take() { return std::move(response_); }

private:
    double divide_by_ = 1;
    std::string pod_prefix_;
    PromDecodeLimits limits_;
    SampleCap cap_;
    PromResponse response_;
    std::map<std::string, std::size_t, std::less<>> by_label_;  // series index by "<pod> <container>"
    int pages_ = 0;
};

// A non-200 answer's error: the JSON protocol's {"__type":"...#Code",
// "message":"..."} or, failing that, the x-amzn-query-error header
// ("Code;Sender"); code "" when the answer has neither.
struct CloudWatchError {
    std::string code;
    std::string message;
};
CloudWatchError cloudwatch_error(std::string_view body, std::string_view query_error_header);

// Throttling, as AWS's SDKs classify it: 429, or one of the throttling codes.
bool cloudwatch_throttled(unsigned status, std::string_view code);
// The request's signature or credentials were refused: 401/403, or one of
// the authentication codes (a wrong secret key is SignatureDoesNotMatch).
bool cloudwatch_auth_error(unsigned status, std::string_view code);

// AWS's standard retry mode: at most this many attempts of one request,
// throttled ones retried after min(jitter x 2^attempt s, 20 s), jitter
// drawn in [0, 1] by the shell.
inline constexpr int kCloudWatchMaxAttempts = 3;
std::chrono::milliseconds cloudwatch_retry_delay(int attempt, double jitter);

}  // namespace attune::core
