#include "plain_http.hpp"

#include <boost/asio/as_tuple.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <boost/beast/core/flat_buffer.hpp>
#include <boost/beast/core/tcp_stream.hpp>
#include <boost/beast/http.hpp>

#include <charconv>

// GCC 12 reports a false -Wmismatched-new-delete on Asio coroutine frames.
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic ignored "-Wmismatched-new-delete"
#endif

namespace attune::cli {
namespace asio = boost::asio;
namespace beast = boost::beast;

core::result<http_endpoint> parse_http_url(std::string_view flag, std::string_view url) {
    auto bad = [&](const std::string& why) {
        return core::make_error("bad_usage", "invalid argument \"" + std::string(url) + "\" for \"--" +
                                                 std::string(flag) + "\": " + why);
    };
    constexpr std::string_view kScheme = "http://";
    if (url.substr(0, kScheme.size()) != kScheme) return bad("expected an http:// URL");
    url.remove_prefix(kScheme.size());
    http_endpoint e;
    const auto slash = url.find('/');
    std::string_view hostport = url.substr(0, slash);
    if (slash != std::string_view::npos) {
        std::string_view prefix = url.substr(slash);
        while (!prefix.empty() && prefix.back() == '/') prefix.remove_suffix(1);
        e.path_prefix = std::string(prefix);
    }
    if (hostport.empty()) return bad("no host");
    if (hostport.front() == '[') {
        const auto close = hostport.find(']');
        if (close == std::string_view::npos) return bad("unclosed [");
        e.host = std::string(hostport.substr(1, close - 1));
        hostport.remove_prefix(close + 1);
        if (!hostport.empty() && hostport.front() != ':') return bad("expected :port after ]");
    } else {
        const auto colon = hostport.find(':');
        e.host = std::string(hostport.substr(0, colon));
        hostport = colon == std::string_view::npos ? std::string_view{} : hostport.substr(colon);
    }
    if (!hostport.empty()) {
        hostport.remove_prefix(1);
        unsigned p = 0;
        auto [ptr, ec] = std::from_chars(hostport.data(), hostport.data() + hostport.size(), p);
        if (ec != std::errc{} || ptr != hostport.data() + hostport.size() || p == 0 || p > 65535)
            return bad("the port must be a number from 1 to 65535");
        e.port = std::string(hostport);
    }
    if (e.host.empty()) return bad("no host");
    return e;
}

asio::awaitable<plain_http_result> plain_http_exchange(asio::any_io_executor ex, http_endpoint where, http::verb method,
                                                       std::string target, std::string body, std::string content_type,
                                                       std::chrono::milliseconds timeout) {
    plain_http_result out;
    const auto fail = [&](std::string_view step, const boost::system::error_code& ec) {
        out.error = std::string(step) + " http://" + where.host + ":" + where.port + ": " +
                    (ec == beast::error::timeout ? std::string("timed out") : ec.message());
    };
    asio::ip::tcp::resolver resolver(ex);
    // Name resolution has no expiry of its own: a watchdog cancels it.
    asio::steady_timer watchdog(ex);
    watchdog.expires_after(timeout);
    watchdog.async_wait([&resolver](const boost::system::error_code& ec) {
        if (!ec) resolver.cancel();
    });
    auto [rec, endpoints] = co_await resolver.async_resolve(where.host, where.port, asio::as_tuple(asio::use_awaitable));
    watchdog.cancel();
    if (rec) {
        fail("resolve", rec);
        co_return out;
    }
    beast::tcp_stream stream(ex);
    stream.expires_after(timeout);  // one budget for the whole exchange
    auto [cec, ep] = co_await stream.async_connect(endpoints, asio::as_tuple(asio::use_awaitable));
    if (cec) {
        fail("connect", cec);
        co_return out;
    }
    static constexpr beast::http::verb kVerbs[] = {beast::http::verb::get,   beast::http::verb::head,
                                                   beast::http::verb::post,  beast::http::verb::put,
                                                   beast::http::verb::patch, beast::http::verb::delete_};
    beast::http::request<beast::http::string_body> req{kVerbs[static_cast<int>(method)], where.path_prefix + target, 11};
    req.set(beast::http::field::host, where.host + ":" + where.port);
    req.set(beast::http::field::user_agent, "kubectl-attune");
    if (!content_type.empty()) req.set(beast::http::field::content_type, content_type);
    req.body() = std::move(body);
    req.prepare_payload();
    auto [wec, wn] = co_await beast::http::async_write(stream, req, asio::as_tuple(asio::use_awaitable));
    if (wec) {
        fail("write", wec);
        co_return out;
    }
    beast::flat_buffer buf;
    beast::http::response_parser<beast::http::string_body> parser;
    parser.body_limit(16u << 20);
    auto [rdec, rn] = co_await beast::http::async_read(stream, buf, parser, asio::as_tuple(asio::use_awaitable));
    if (rdec) {
        fail("read", rdec);
        co_return out;
    }
    boost::system::error_code ignored;
    stream.socket().shutdown(asio::ip::tcp::socket::shutdown_both, ignored);
    out.ok = true;
    out.status = parser.get().result_int();
    out.body = std::move(parser.get().body());
    co_return out;
}

}  // namespace attune::cli
