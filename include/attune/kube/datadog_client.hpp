#pragma once
// The Datadog metrics query client (the shell around the core's Datadog
// queries and response decoding, core/recommend/datadog_*.hpp): GET
// /api/v1/query?from=&to=&query= with the DD-API-KEY and
// DD-APPLICATION-KEY headers, over the runtime's HTTPS pool (kube/query_http.hpp).
// The v1 query endpoint does not page: one answer holds every series.
// Every expected failure is an outcome the caller turns into a condition;
// nothing here throws for I/O, and the keys never appear in a message.
#include <attune/core/policy/resource_tuning.hpp>
#include <attune/core/recommend/prometheus_response.hpp>
#include <attune/core/util/result.hpp>
#include <attune/kube/query_http.hpp>

#include <boost/asio/any_io_executor.hpp>
#include <boost/asio/awaitable.hpp>

#include <chrono>
#include <memory>
#include <string>

namespace attune::kube {

struct DatadogSettings {
    DatadogSettings() = default;
    std::string base_url;  // https://api.<site>, or the manager's --datadog-url
    std::string api_key;   // DD-API-KEY
    std::string app_key;   // DD-APPLICATION-KEY; "" : not sent
    QueryHttpOptions http;
    core::PromDecodeLimits decode;
};

// Error codes of a query: those of query_transport_error ("unreachable",
// "address_refused", "timeout", "response_too_large", "cancelled"), and
//   "unauthorized"     401/403: the keys are wrong or lack the permission
//   "rate_limited"     429; DatadogOutcome::retry_after says for how long
//   "http_status"      any other non-200 answer
//   "datadog_error"    Datadog answered status "error" (a bad query)
//   "invalid_response" a 200 whose body is not the API's JSON
struct DatadogOutcome {
    DatadogOutcome() : result(core::make_error("cancelled", "no outcome")) {}  // for co_spawn
    DatadogOutcome(core::Result<core::PromResponse> r, std::chrono::nanoseconds d, unsigned status)
        : result(std::move(r)), duration(d), http_status(status) {}
    core::Result<core::PromResponse> result;
    std::chrono::nanoseconds duration{0};
    unsigned http_status = 0;             // 0 when no answer came
    std::chrono::seconds retry_after{0};  // 429: core::datadog_rate_limit_wait of its headers
};

class DatadogClient {
public:
    // Error "invalid_config": a base URL that is not an https URL (the keys
    // go with every request), a key that is empty or not a header value, TLS.
    static core::Result<std::shared_ptr<DatadogClient>> create(boost::asio::any_io_executor ex,
                                                               DatadogSettings settings);
    ~DatadogClient();
    DatadogClient(const DatadogClient&) = delete;
    DatadogClient& operator=(const DatadogClient&) = delete;

    // One query over [from, to] (seconds since the epoch); CPU answers in cores.
    boost::asio::awaitable<DatadogOutcome> query(std::string query, core::ResourceKind resource, long long from,
                                                 long long to);

    // Fails queries in flight and refuses new ones (manager shutdown).
    void shutdown() noexcept;
    const std::string& base_url() const noexcept;

private:
    struct impl;
    explicit DatadogClient(std::shared_ptr<impl> i);
    std::shared_ptr<impl> impl_;
};

}  // namespace attune::kube
