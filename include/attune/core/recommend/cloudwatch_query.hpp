#pragma once
// CloudWatch Container Insights queries for the recommender's CloudWatch
// source (docs/recommender.md#cloudwatch): the GetMetricData call of the
// JSON protocol, built from plain values with the Go Attune v0.1.23's
// SEARCH expression, one per resource and workload:
//
//   SEARCH('{ContainerInsights,ClusterName,Namespace,PodName,ContainerName}
//     MetricName="container_cpu_usage_total" ClusterName="C" Namespace="NS"', 'Average', PERIOD)
//
// Each series found is one pod's container; its label is set to
// "<pod> <container>" with dynamic labels, so the answer says which is
// which. The pods of other workloads in the namespace are filtered out of
// the answer by name prefix (cloudwatch_response.hpp), as the Go original does.
#include <chrono>
#include <string>
#include <string_view>

#include "attune/core/policy/resource_tuning.hpp"  // ResourceKind
#include "attune/core/util/result.hpp"

namespace attune::core {

inline constexpr std::string_view kCloudWatchCpuMetric = "container_cpu_usage_total";
inline constexpr std::string_view kCloudWatchMemoryMetric = "container_memory_working_set";
// The JSON protocol's operation header (X-Amz-Target) and content type.
inline constexpr std::string_view kCloudWatchGetMetricDataTarget = "GraniteServiceVersion20100801.GetMetricData";
inline constexpr std::string_view kCloudWatchContentType = "application/x-amz-json-1.0";
// The MetricDataQuery label: "${PROP('Dim.PodName')} ${PROP('Dim.ContainerName')}".
inline constexpr std::string_view kCloudWatchSeriesLabel = "${PROP('Dim.PodName')} ${PROP('Dim.ContainerName')}";

struct CloudWatchQuerySpec {
    std::string cluster_name;
    std::string namespace_;
    std::chrono::seconds period{300};
};

// rateWindow as a GetMetricData period: whole minutes, at least one (the
// Go original's rounding), at most a day.
std::chrono::seconds cloudwatch_period(std::chrono::seconds rate_window);

// Error "invalid_dimension_value": an empty value, or one with a character
// that could end the SEARCH's quoted strings (only letters, digits, '-',
// '_' and '.' are taken).
Result<std::string> cloudwatch_search_expression(ResourceKind resource, const CloudWatchQuerySpec& spec);

// The GetMetricData request body over [start, end] (seconds since the
// epoch), oldest points first; `next_token` from the previous page, or "".
std::string cloudwatch_request_body(std::string_view expression, std::chrono::seconds period, long long start,
                                    long long end, std::string_view next_token);

}  // namespace attune::core
