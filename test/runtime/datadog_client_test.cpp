// kube::DatadogClient against a loopback scripted TLS server: the request
// it sends (path, window, keys), and every way Datadog can answer (or not)
// as an outcome.
#include "../runtime/run_coro.hpp"
#include "../runtime/scripted_tls_server.hpp"
#include "../runtime/test_certs.hpp"

#include <attune/kube/datadog_client.hpp>

#include <boost/asio/io_context.hpp>

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include <unistd.h>

namespace attune::kube {
namespace {
using namespace std::chrono_literals;
using test::pki;
using test::run_coro;
using test::ScriptedReply;
using test::ScriptedTlsServer;

constexpr const char* kSeries = R"({"status":"ok","series":[
  {"tag_set":["kube_container_name:app"],"pointlist":[[1767225600000,250000000],[1767225900000,null]]}]})";

struct DatadogClientTest : ::testing::Test {
    boost::asio::io_context io;
    std::unique_ptr<ScriptedTlsServer> server;
    std::filesystem::path ca;

    void SetUp() override {
        server = std::make_unique<ScriptedTlsServer>(io, pki().server_cert_pem, pki().server_key_pem,
                                                     ScriptedTlsServer::Mode::Normal);
        ca = std::filesystem::temp_directory_path() / ("attune-dd-ca-" + std::to_string(::getpid()) + ".pem");
        std::ofstream(ca) << pki().ca_pem;
    }
    void TearDown() override { std::filesystem::remove(ca); }

    DatadogSettings settings() {
        DatadogSettings s;
        s.base_url = "https://127.0.0.1:" + std::to_string(server->port());
        s.api_key = "api-secret";
        s.app_key = "app-secret";
        s.http.ca_file = ca.string();
        s.http.query_timeout = 2s;
        return s;
    }
    std::shared_ptr<DatadogClient> client(DatadogSettings s) {
        auto c = DatadogClient::create(io.get_executor(), std::move(s));
        EXPECT_TRUE(c.ok()) << (c.ok() ? "" : c.error().message);
        return c.ok() ? c.value() : nullptr;
    }
    DatadogOutcome query(DatadogClient& c, core::ResourceKind r = core::ResourceKind::Cpu) {
        return run_coro(io, c.query("avg:kubernetes.cpu.usage.total{kube_namespace:shop} by {kube_container_name}", r,
                                    1767222000, 1767225600));
    }
};

TEST_F(DatadogClientTest, OneGetWithTheWindowTheQueryAndBothKeys) {
    server->script(ScriptedReply::http(200, kSeries));
    auto c = client(settings());
    const auto o = query(*c);
    ASSERT_TRUE(o.result.ok()) << o.result.error().message;
    EXPECT_EQ(o.http_status, 200u);
    ASSERT_EQ(o.result.value().series.size(), 1u);
    EXPECT_EQ(o.result.value().series[0].labels.at("container"), "app");
    EXPECT_DOUBLE_EQ(o.result.value().series[0].samples.at(0).value, 0.25);
    ASSERT_EQ(server->requests().size(), 1u);
    const auto& req = server->requests()[0];
    EXPECT_EQ(req.method, "GET");
    EXPECT_EQ(req.target,
              "/api/v1/query?from=1767222000&to=1767225600&query=avg%3Akubernetes.cpu.usage.total%7Bkube_namespace%"
              "3Ashop%7D%20by%20%7Bkube_container_name%7D");
    EXPECT_NE(req.head.find("DD-API-KEY: api-secret"), std::string::npos);
    EXPECT_NE(req.head.find("DD-APPLICATION-KEY: app-secret"), std::string::npos);
}

TEST_F(DatadogClientTest, NoApplicationKeyNoHeader) {
    server->script(ScriptedReply::http(200, kSeries));
    auto s = settings();
    s.app_key.clear();
    auto c = client(s);
    ASSERT_TRUE(query(*c).result.ok());
    EXPECT_EQ(server->requests().at(0).head.find("DD-APPLICATION-KEY"), std::string::npos);
}

TEST_F(DatadogClientTest, EachAnswerIsItsOutcomeAndNoMessageHoldsAKey) {
    const struct {
        const char* what;
        ScriptedReply reply;
        const char* code;
        const char* message;
        unsigned status;
        std::chrono::seconds retry_after;
    } rows[] = {
        {"403", ScriptedReply::http(403, R"({"errors":["Forbidden"]})"), "unauthorized",
         "refused the query with 403: Forbidden (check the API and application keys)", 403, 0s},
        {"401 text", ScriptedReply::http(401, "nope"), "unauthorized", "refused the query with 401: nope", 401, 0s},
        {"429 with its reset",
         ScriptedReply::http(429, R"({"errors":["Rate limit exceeded"]})",
                             {"X-RateLimit-Reset: 17", "X-RateLimit-Period: 60"}),
         "rate_limited", "rate-limited the query (429): Rate limit exceeded", 429, 17s},
        {"429 without headers", ScriptedReply::http(429, ""), "rate_limited", "(429)", 429, 60s},
        {"400 query error", ScriptedReply::http(400, R"({"status":"error","error":"Error parsing query"})"),
         "datadog_error", "datadog query error: Error parsing query", 400, 0s},
        {"503", ScriptedReply::http(503, "upstream unavailable"), "http_status", "answered 503: upstream unavailable",
         503, 0s},
        {"a 200 of garbage", ScriptedReply::http(200, "<html>no</html>"), "invalid_response", "not JSON", 200, 0s},
        {"a 200 with status error", ScriptedReply::http(200, R"({"status":"error","error":"bad"})"), "datadog_error",
         "datadog query error: bad", 200, 0s},
    };
    for (const auto& r : rows) {
        SCOPED_TRACE(r.what);
        server->script(r.reply);
        auto c = client(settings());
        const auto o = query(*c);
        ASSERT_FALSE(o.result.ok());
        EXPECT_EQ(o.result.error().code, r.code);
        EXPECT_NE(o.result.error().message.find(r.message), std::string::npos) << o.result.error().message;
        EXPECT_EQ(o.result.error().message.find("secret"), std::string::npos) << o.result.error().message;
        EXPECT_EQ(o.http_status, r.status);
        EXPECT_EQ(o.retry_after, r.retry_after);
    }
}

TEST_F(DatadogClientTest, AHangingDatadogTimesOut) {
    ScriptedReply hang;
    hang.after = ScriptedReply::Then::Hang;
    server->script(hang);
    auto s = settings();
    s.http.query_timeout = 400ms;
    auto c = client(s);
    const auto t0 = std::chrono::steady_clock::now();
    const auto o = query(*c);
    ASSERT_FALSE(o.result.ok());
    EXPECT_EQ(o.result.error().code, "timeout");
    EXPECT_LT(std::chrono::steady_clock::now() - t0, 5s);
}

TEST_F(DatadogClientTest, TheConnectTimeFilterRefusesLoopback) {
    auto s = settings();
    s.http.endpoint_filter = [](std::string_view ip) { return std::string(ip) + " is a loopback address"; };
    auto c = client(s);
    const auto o = query(*c);
    ASSERT_FALSE(o.result.ok());
    EXPECT_EQ(o.result.error().code, "address_refused");
    EXPECT_TRUE(server->requests().empty());
}

TEST_F(DatadogClientTest, PlainHttpAndBadKeysAreRefusedAtCreate) {
    const struct {
        std::string url, api, app;
        const char* message;
    } rows[] = {
        {"http://127.0.0.1:1", "k", "", "is not https: the API and application keys go with every query"},
        {"api.datadoghq.com", "k", "", "datadog URL"},
        {"https://api.datadoghq.com", "", "", "the Datadog API key is empty"},
        {"https://api.datadoghq.com", "k\r\nX: y", "", "not a header value"},
        {"https://api.datadoghq.com", "k", "a\nb", "the Datadog application key is not a header value"},
    };
    for (const auto& r : rows) {
        DatadogSettings s;
        s.base_url = r.url;
        s.api_key = r.api;
        s.app_key = r.app;
        auto c = DatadogClient::create(io.get_executor(), s);
        ASSERT_FALSE(c.ok()) << r.url;
        EXPECT_EQ(c.error().code, "invalid_config");
        EXPECT_NE(c.error().message.find(r.message), std::string::npos) << c.error().message;
    }
}

}  // namespace
}  // namespace attune::kube
