// http::HttpsClient below the kube layer: plain HTTP as a stream choice
// inside the same pool, and the per-request budget.
#include "run_coro.hpp"
#include "scripted_tls_server.hpp"
#include "test_certs.hpp"

#include <attune/http/https_client.hpp>
#include <attune/http/url.hpp>

#include <boost/asio/io_context.hpp>

#include <gtest/gtest.h>

namespace attune::http {
namespace {
using namespace std::chrono_literals;
using test::pki;
using test::run_coro;
using test::ScriptedReply;
using test::ScriptedTlsServer;
using Steady = std::chrono::steady_clock;

ClientOptions plain_options() {
    ClientOptions o;
    o.tls = false;
    o.limits.connect = 2s;
    o.limits.write = 2s;
    o.limits.read = 10s;
    return o;
}

Request get(std::string target) {
    Request r;
    r.target = std::move(target);
    return r;
}

TEST(HttpClient, PlainHttpExchangesAndKeepsTheConnection) {
    boost::asio::io_context io;
    ScriptedTlsServer server(io, "", "", ScriptedTlsServer::Mode::Plain);
    server.script(ScriptedReply::http(200, R"({"a":1})"));
    server.script(ScriptedReply::http(200, R"({"b":2})"));
    HttpsClient c(io.get_executor(), "127.0.0.1", std::to_string(server.port()), TlsOptions{}, plain_options());
    run_coro(io, [&]() -> boost::asio::awaitable<void> {
        auto a = co_await c.send(get("/one"));
        auto b = co_await c.send(get("/two"));
        EXPECT_TRUE(a.ok()) << to_string(a.kind);
        EXPECT_EQ(a.resp.status, 200u);
        EXPECT_EQ(a.resp.body, R"({"a":1})");
        EXPECT_EQ(b.resp.body, R"({"b":2})");
    }());
    ASSERT_EQ(server.requests().size(), 2u);
    EXPECT_EQ(server.requests()[1].target, "/two");
    EXPECT_NE(server.requests()[0].head.find("Host: 127.0.0.1:" + std::to_string(server.port())), std::string::npos);
    EXPECT_EQ(server.connections(), 1);
}

TEST(HttpClient, TlsClientAgainstAPlainServerFailsCleanly) {
    boost::asio::io_context io;
    ScriptedTlsServer server(io, "", "", ScriptedTlsServer::Mode::Plain);
    server.script(ScriptedReply::http(200, "{}"));
    ClientOptions o = plain_options();
    o.tls = true;
    o.limits.handshake = 1s;
    TlsOptions t;
    t.ca_pem = pki().ca_pem;
    HttpsClient c(io.get_executor(), "127.0.0.1", std::to_string(server.port()), t, o);
    auto r = run_coro(io, c.send(get("/")));
    EXPECT_FALSE(r.ok());
    // Cleanly: a plain server reads the ClientHello as the start of a
    // request and waits for more, so the handshake's own limit ends it, as a
    // timeout, and the request itself never left.
    EXPECT_EQ(r.kind, Failure::Timeout) << to_string(r.kind);
    EXPECT_FALSE(r.request_sent);
}

TEST(HttpClient, ThePerRequestBudgetBoundsAHangingServer) {
    boost::asio::io_context io;
    ScriptedTlsServer server(io, "", "", ScriptedTlsServer::Mode::Plain);
    ScriptedReply hang;
    hang.after = ScriptedReply::Then::Hang;  // reads the request, never answers
    server.script(hang);
    HttpsClient c(io.get_executor(), "127.0.0.1", std::to_string(server.port()), TlsOptions{}, plain_options());
    auto req = get("/slow");
    req.timeout = 300ms;
    const auto t0 = Steady::now();
    auto r = run_coro(io, c.send(req));
    const auto took = Steady::now() - t0;
    EXPECT_EQ(r.kind, Failure::Timeout);
    EXPECT_GE(took, 250ms);
    EXPECT_LT(took, 5s);  // far below the 10 s read limit
}

TEST(HttpClient, TheBodyLimitFires) {
    boost::asio::io_context io;
    ScriptedTlsServer server(io, "", "", ScriptedTlsServer::Mode::Plain);
    server.script(ScriptedReply::http(200, std::string(64 * 1024, 'x')));
    auto o = plain_options();
    o.max_body_bytes = 1024;
    HttpsClient c(io.get_executor(), "127.0.0.1", std::to_string(server.port()), TlsOptions{}, o);
    auto r = run_coro(io, c.send(get("/big")));
    EXPECT_EQ(r.kind, Failure::BodyTooLarge);
}

TEST(ServerUrl, SplitsSchemeHostPortAndPrefix) {
    auto u = split_server_url("http://prometheus.monitoring:9090/prom/");
    EXPECT_EQ(u.scheme, "http");
    EXPECT_EQ(u.host, "prometheus.monitoring");
    EXPECT_EQ(u.port, "9090");
    EXPECT_EQ(u.path_prefix, "/prom");
    u = split_server_url("http://10.0.0.1");
    EXPECT_EQ(u.port, "80");
    u = split_server_url("https://[fd00::1]");
    EXPECT_EQ(u.host, "fd00::1");
    EXPECT_EQ(u.port, "443");
    for (const char* bad : {"ftp://h", "h:80", "http://", "http://u:p@h", "http://h:0", "http://h:x", "http://[::1",
                            "http://h/?q=1", "http://h#f"})
        EXPECT_THROW(split_server_url(bad), std::invalid_argument) << bad;
}

}  // namespace
}  // namespace attune::http
