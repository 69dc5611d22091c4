#pragma once
// The CloudWatch GetMetricData client (the shell around the core's
// CloudWatch queries and answers, core/recommend/cloudwatch_*.hpp, and its
// SigV4 signing, core/aws/sigv4.hpp): POST / of the JSON protocol
// (X-Amz-Target GraniteServiceVersion20100801.GetMetricData), each page
// signed for the "monitoring" service of the policy's region, every page
// followed through NextToken. A throttled page is retried as AWS's
// standard retry mode does (core::cloudwatch_retry_delay), up to
// core::kCloudWatchMaxAttempts; then the query fails as "rate_limited".
// Expected failures are outcomes; no credential appears in a message.
#include <attune/core/aws/sigv4.hpp>
#include <attune/core/policy/policy.hpp>
#include <attune/core/recommend/prometheus_response.hpp>
#include <attune/core/util/result.hpp>
#include <attune/kube/query_http.hpp>

#include <boost/asio/any_io_executor.hpp>
#include <boost/asio/awaitable.hpp>

#include <chrono>
#include <memory>
#include <string>

namespace attune::kube {

struct CloudWatchSettings {
    CloudWatchSettings() = default;
    std::string base_url;  // https://monitoring.<region>.amazonaws.com, or the manager's --cloudwatch-url
    std::string region;    // the signature's scope
    QueryHttpOptions http;
    core::PromDecodeLimits decode;
    int max_pages = 100;  // a longer answer is kept as far as it went, marked capped
};

struct CloudWatchQuery {
    std::string expression;  // core::cloudwatch_search_expression
    core::ResourceKind resource = core::ResourceKind::Cpu;
    core::CloudWatchCpuUnit cpu_unit = core::CloudWatchCpuUnit::Millicores;
    std::string pod_prefix;
    std::chrono::seconds period{300};
    long long start = 0;  // seconds since the epoch
    long long end = 0;
};

// Error codes of a query: those of query_transport_error ("unreachable",
// "address_refused", "timeout", "response_too_large", "cancelled"), and
//   "unauthorized"     the signature or the credentials were refused (a wrong
//                      secret key is SignatureDoesNotMatch), with AWS's code
//   "rate_limited"     still throttled after every retry
//   "http_status"      any other non-200 answer, with AWS's code and message
//   "cloudwatch_error", "invalid_response"  as core::CloudWatchAnswer
struct CloudWatchOutcome {
    CloudWatchOutcome() : result(core::make_error("cancelled", "no outcome")) {}  // for co_spawn
    explicit CloudWatchOutcome(core::Result<core::PromResponse> r) : result(std::move(r)) {}
    core::Result<core::PromResponse> result;
    std::chrono::nanoseconds duration{0};
    unsigned http_status = 0;  // of the last answer; 0 when none came
    int pages = 0;
    int throttled = 0;  // throttled answers retried or given up on
};

class CloudWatchClient {
public:
    // Error "invalid_config": a base URL that is not https (the signed
    // requests carry the session token), a region that is not a name, TLS.
    static core::Result<std::shared_ptr<CloudWatchClient>> create(boost::asio::any_io_executor ex,
                                                                  CloudWatchSettings settings);
    ~CloudWatchClient();
    CloudWatchClient(const CloudWatchClient&) = delete;
    CloudWatchClient& operator=(const CloudWatchClient&) = delete;

    boost::asio::awaitable<CloudWatchOutcome> query(CloudWatchQuery q, core::AwsCredentials credentials);

    // Fails queries in flight and refuses new ones (manager shutdown).
    void shutdown() noexcept;
    const std::string& base_url() const noexcept;

private:
    struct impl;
    explicit CloudWatchClient(std::shared_ptr<impl> i);
    std::shared_ptr<impl> impl_;
};

}  // namespace attune::kube
