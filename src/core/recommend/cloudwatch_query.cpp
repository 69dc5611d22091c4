#include "attune/core/recommend/cloudwatch_query.hpp"

#include <boost/json.hpp>

#include <algorithm>

namespace attune::core {

namespace {

bool dimension_value_ok(std::string_view v) {
    return !v.empty() && std::all_of(v.begin(), v.end(), [](char c) {
        return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '-' || c == '_' ||
               c == '.';
    });
}

}  // namespace

std::chrono::seconds cloudwatch_period(std::chrono::seconds rate_window) {
    const auto minutes = (std::max<long long>(rate_window.count(), 60) + 59) / 60;
    return std::chrono::seconds(std::min<long long>(minutes, 24 * 60) * 60);
}

Result<std::string> cloudwatch_search_expression(ResourceKind resource, const CloudWatchQuerySpec& spec) {
    if (!dimension_value_ok(spec.cluster_name))
        return make_error("invalid_dimension_value",
                          "cluster name \"" + spec.cluster_name + "\" cannot be a CloudWatch SEARCH value");
    if (!dimension_value_ok(spec.namespace_))
        return make_error("invalid_dimension_value",
                          "namespace \"" + spec.namespace_ + "\" cannot be a CloudWatch SEARCH value");
    const auto metric = resource == ResourceKind::Cpu ? kCloudWatchCpuMetric : kCloudWatchMemoryMetric;
    return "SEARCH('{ContainerInsights,ClusterName,Namespace,PodName,ContainerName} MetricName=\"" +
           std::string(metric) + "\" ClusterName=\"" + spec.cluster_name + "\" Namespace=\"" + spec.namespace_ +
           "\"', 'Average', " + std::to_string(cloudwatch_period(spec.period).count()) + ")";
}

std::string cloudwatch_request_body(std::string_view expression, std::chrono::seconds period, long long start,
                                    long long end, std::string_view next_token) {
    boost::json::object q;
    q["Id"] = "search0";
    q["Expression"] = expression;
    q["Label"] = kCloudWatchSeriesLabel;
    q["Period"] = cloudwatch_period(period).count();
    q["ReturnData"] = true;
    boost::json::object body;
    body["MetricDataQueries"] = boost::json::array{q};
    body["StartTime"] = start;
    body["EndTime"] = end;
    body["ScanBy"] = "TimestampAscending";
    if (!next_token.empty()) body["NextToken"] = next_token;
    return boost::json::serialize(body);
}

}  // namespace attune::core
