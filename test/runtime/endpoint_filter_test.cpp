// http::ClientOptions::endpoint_filter: every address the host resolves to
// is judged at connect time, and only an allowed one is connected to.
#include "run_coro.hpp"
#include "scripted_tls_server.hpp"

#include <attune/http/https_client.hpp>

#include <boost/asio/io_context.hpp>

#include <gtest/gtest.h>

#include <algorithm>

namespace attune::http {
namespace {
using namespace std::chrono_literals;
using test::run_coro;
using test::ScriptedReply;
using test::ScriptedTlsServer;

ClientOptions plain(std::function<std::string(std::string_view)> filter) {
    ClientOptions o;
    o.tls = false;
    o.limits.connect = 2s;
    o.limits.write = 2s;
    o.limits.read = 5s;
    o.endpoint_filter = std::move(filter);
    return o;
}

ExchangeResult get(boost::asio::io_context& io, HttpsClient& c) {
    Request r;
    r.target = "/api/v1/query";
    return run_coro(io, c.send(r));
}

// "localhost" is a name: the literal check cannot see what it resolves to;
// the filter sees every address, and refusing them all means no connection.
TEST(EndpointFilter, ANameWhoseEveryAddressIsRefusedIsNeverConnectedTo) {
    boost::asio::io_context io;
    ScriptedTlsServer server(io, "", "", ScriptedTlsServer::Mode::Plain);
    server.script(ScriptedReply::http(200, "{}"));
    std::vector<std::string> seen;
    HttpsClient c(io.get_executor(), "localhost", std::to_string(server.port()), TlsOptions{},
                  plain([&](std::string_view ip) {
                      seen.emplace_back(ip);
                      return std::string(ip) + " is refused";
                  }));
    const auto r = get(io, c);
    EXPECT_EQ(r.kind, Failure::Connect);
    EXPECT_EQ(r.ec, make_error_code(boost::asio::error::access_denied));
    EXPECT_FALSE(r.request_sent);
    EXPECT_NE(r.detail.find("127.0.0.1 is refused"), std::string::npos) << r.detail;
    EXPECT_NE(std::find(seen.begin(), seen.end(), "127.0.0.1"), seen.end());
    EXPECT_EQ(server.connections(), 0);
    EXPECT_TRUE(server.requests().empty());
}

// Only the allowed addresses are tried: with 127.0.0.1 allowed the request
// goes there; the other answers (::1 where the resolver gives it) are not.
TEST(EndpointFilter, OnlyAllowedAddressesAreConnectedTo) {
    boost::asio::io_context io;
    ScriptedTlsServer server(io, "", "", ScriptedTlsServer::Mode::Plain);
    server.script(ScriptedReply::http(200, "{}"));
    HttpsClient c(io.get_executor(), "localhost", std::to_string(server.port()), TlsOptions{},
                  plain([](std::string_view ip) { return ip == "127.0.0.1" ? std::string() : "not this one"; }));
    const auto r = get(io, c);
    ASSERT_TRUE(r.ok()) << to_string(r.kind) << " " << r.ec.message() << " " << r.detail;
    EXPECT_EQ(r.resp.status, 200u);
    EXPECT_EQ(r.detail, "");
    EXPECT_EQ(server.connections(), 1);
}

TEST(EndpointFilter, NoFilterConnectsAsBefore) {
    boost::asio::io_context io;
    ScriptedTlsServer server(io, "", "", ScriptedTlsServer::Mode::Plain);
    server.script(ScriptedReply::http(200, "{}"));
    HttpsClient c(io.get_executor(), "127.0.0.1", std::to_string(server.port()), TlsOptions{}, plain(nullptr));
    EXPECT_TRUE(get(io, c).ok());
}

}  // namespace
}  // namespace attune::http
