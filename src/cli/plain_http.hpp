#pragma once
// One plain-HTTP exchange (Prometheus and Pushgateway speak http:// here),
// with a deadline over connect, write and read, and a bounded body.
//
// Stopgap: the runtime's client speaks only HTTPS today. When src/http's
// client gains plain http:// (issue #7's Prometheus client), this file goes
// and its callers use that client.
#include <attune/core/result.hpp>
#include <attune/http/message.hpp>

#include <boost/asio/any_io_executor.hpp>
#include <boost/asio/awaitable.hpp>

#include <chrono>
#include <string>
#include <string_view>

namespace attune::cli {

struct http_endpoint {
    std::string host;
    std::string port = "80";
    std::string path_prefix;  // "" or "/prefix" (no trailing slash)
};

// "http://127.0.0.1:9091", "http://pushgateway.monitoring.svc:9091/base".
// Error code "bad_usage" naming the flag.
core::result<http_endpoint> parse_http_url(std::string_view flag, std::string_view url);

struct plain_http_result {
    bool ok = false;  // a response arrived (any status)
    unsigned status = 0;
    std::string body;
    std::string error;  // when !ok
};

boost::asio::awaitable<plain_http_result> plain_http_exchange(boost::asio::any_io_executor ex, http_endpoint where,
                                                              http::verb method, std::string target, std::string body,
                                                              std::string content_type,
                                                              std::chrono::milliseconds timeout);

}  // namespace attune::cli
