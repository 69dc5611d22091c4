#pragma once
// The Prometheus HTTP API client (the shell around the core's PromQL and
// response decoding): range and instant queries over the runtime's HTTP(S)
// pool. Every expected failure is an outcome the caller turns into a
// condition (PrometheusUnavailable): unreachable, timeout, a non-200 answer,
// an oversized or garbage body, a Prometheus error. Nothing here throws for
// I/O, and a bad configuration is an error at create(), not a crash.
#include <attune/core/recommend/prometheus_response.hpp>
#include <attune/core/util/result.hpp>

#include <boost/asio/any_io_executor.hpp>
#include <boost/asio/awaitable.hpp>

#include <chrono>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <string_view>

namespace attune::kube {

struct PrometheusSettings {
    PrometheusSettings() = default;
    std::string address;  // http(s)://host[:port][/path-prefix]
    std::map<std::string, std::string> headers;           // added to every query
    std::map<std::string, std::string> query_parameters;  // added to every query URL (dedup=true, ...)
    std::string ca_file;            // PEM CA bundle for https; empty: the system trust store
    std::string ca_pem;             // a PEM bundle given inline (tls.ca, a Secret's), added to ca_file's
    bool insecure_skip_verify = false;
    std::string bearer_token_file;  // re-read when it changes, and once after a 401/403; empty: none
    std::string bearer_token;       // a token given as is (a Secret's); wins over bearer_token_file
    // Why the manager's own token is not sent here (core::decide_prometheus_token),
    // appended to a 401/403 message so the policy's status says it; "" : nothing withheld.
    std::string withheld_token_note;
    // Judges every address the host resolves to, at connect time ("" allowed,
    // else why not): http::ClientOptions::endpoint_filter. Empty: no check.
    std::function<std::string(std::string_view ip)> endpoint_filter;
    std::chrono::milliseconds query_timeout{30'000};  // the whole exchange of one query
    std::size_t max_response_bytes = 32u << 20;
    std::size_t max_connections = 4;
    core::PromDecodeLimits decode;
};

// Error codes of a query:
//   "unreachable"        resolve, connect, TLS or the connection failed
//   "address_refused"    the endpoint_filter refused every address the host resolved to
//   "timeout"            query_timeout passed
//   "response_too_large" the body exceeded max_response_bytes
//   "unauthorized"       401/403, also after re-reading the token file
//   "http_status"        any other non-200 answer without a Prometheus error body
//   "prometheus_error"   Prometheus answered status "error" (bad query, 422 timeout, ...)
//   "invalid_response"   a 200 whose body is not the API's JSON
//   "cancelled"          shutdown()
struct PrometheusOutcome {
    // Asio's co_spawn needs a default value for a coroutine that threw.
    PrometheusOutcome() : result(core::make_error("cancelled", "no outcome")) {}
    PrometheusOutcome(core::Result<core::PromResponse> r, std::chrono::nanoseconds d, unsigned status)
        : result(std::move(r)), duration(d), http_status(status) {}
    core::Result<core::PromResponse> result;
    std::chrono::nanoseconds duration{0};  // for attune_prometheus_query_duration_seconds
    unsigned http_status = 0;              // 0 when no answer came
};

// GET /-/healthy: the time it took, or why it is not healthy (the error
// codes of a query; "http_status" for an answer other than 200).
struct PrometheusHealth {
    PrometheusHealth() : result(core::make_error("cancelled", "no outcome")) {}  // for co_spawn
    explicit PrometheusHealth(core::Result<std::chrono::milliseconds> r) : result(std::move(r)) {}
    core::Result<std::chrono::milliseconds> result;
};

class PrometheusClient {
public:
    // Error "invalid_config": a bad address, an unreadable CA bundle or
    // token file, a reserved query parameter (query, time, start, end,
    // step, timeout in any case) or a header that is not a valid token.
    static core::Result<std::shared_ptr<PrometheusClient>> create(boost::asio::any_io_executor ex,
                                                                  PrometheusSettings settings);
    ~PrometheusClient();
    PrometheusClient(const PrometheusClient&) = delete;
    PrometheusClient& operator=(const PrometheusClient&) = delete;

    // /api/v1/query_range; times in seconds since the epoch.
    boost::asio::awaitable<PrometheusOutcome> query_range(std::string query, double start, double end,
                                                          std::chrono::seconds step);
    // /api/v1/query at `time`.
    boost::asio::awaitable<PrometheusOutcome> query(std::string query, double time);

    // GET <address>/-/healthy with the same headers, token and TLS settings,
    // bounded by `timeout` (kubectl attune doctor).
    boost::asio::awaitable<PrometheusHealth> healthy(std::chrono::milliseconds timeout);

    // Fails queries in flight and refuses new ones (manager shutdown).
    void shutdown() noexcept;
    const std::string& address() const noexcept;

private:
    struct impl;
    explicit PrometheusClient(std::shared_ptr<impl> i);
    std::shared_ptr<impl> impl_;
};

}  // namespace attune::kube
