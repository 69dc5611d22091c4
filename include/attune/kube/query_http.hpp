#pragma once
// What the metrics query clients (Prometheus, Datadog) share over the
// runtime's HTTP(S) pool: the pool for one endpoint with its TLS trust and
// connect-time address filter, a transport failure as a query error, and a
// bounded excerpt of an answer's body for messages. `who` names the service
// in every message ("prometheus", "datadog").
#include <attune/core/util/result.hpp>
#include <attune/http/https_client.hpp>
#include <attune/http/url.hpp>

#include <boost/asio/any_io_executor.hpp>

#include <chrono>
#include <functional>
#include <memory>
#include <string>
#include <string_view>

namespace attune::kube {

struct QueryHttpOptions {
    QueryHttpOptions() = default;
    std::string ca_file;  // PEM CA bundle for https; empty: the system trust store
    std::string ca_pem;   // a PEM bundle given inline, added to ca_file's
    bool insecure_skip_verify = false;
    // Judges every address the host resolves to, at connect time ("" allowed,
    // else why not): http::ClientOptions::endpoint_filter. Empty: no check.
    std::function<std::string(std::string_view ip)> endpoint_filter;
    std::chrono::milliseconds query_timeout{30'000};  // the whole exchange of one query
    std::size_t max_response_bytes = 32u << 20;
    std::size_t max_connections = 4;
};

// Error "invalid_config": an unreadable CA bundle or TLS material OpenSSL refuses.
core::Result<std::unique_ptr<http::HttpsClient>> make_query_http_client(boost::asio::any_io_executor ex,
                                                                        const http::ServerUrl& url,
                                                                        const QueryHttpOptions& options,
                                                                        std::string_view who);

// A failed exchange as a query error: "timeout", "response_too_large",
// "cancelled", "address_refused" (the endpoint_filter refused every address
// the host resolved to) or "unreachable".
core::Error query_transport_error(const http::ExchangeResult& r, std::string_view who, std::string_view address);

// The first 200 bytes of a body on one line, "..." when cut.
std::string body_excerpt(const std::string& body);

}  // namespace attune::kube
