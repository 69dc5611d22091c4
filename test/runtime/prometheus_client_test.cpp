// kube::PrometheusClient against a loopback scripted server, plain
// HTTP and TLS: every way a Prometheus can answer (or not) is an outcome.
#include "../runtime/run_coro.hpp"
#include "../runtime/scripted_tls_server.hpp"
#include "../runtime/test_certs.hpp"

#include <attune/kube/prometheus_client.hpp>

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
using Steady = std::chrono::steady_clock;

constexpr const char* kMatrix = R"({"status":"success","data":{"resultType":"matrix","result":[
  {"metric":{"container":"app"},"values":[[1767225600,"0.25"],[1767225900,"NaN"],[1767226200,"0.3"]]},
  {"metric":{"container":"sidecar"},"values":[[1767225600,"+Inf"]]}]}})";

struct PrometheusClientTest : ::testing::TestWithParam<bool> {  // true: TLS
    boost::asio::io_context io;
    std::unique_ptr<ScriptedTlsServer> server;

    void SetUp() override {
        server = std::make_unique<ScriptedTlsServer>(io, pki().server_cert_pem, pki().server_key_pem,
                                                     GetParam() ? ScriptedTlsServer::Mode::Normal
                                                                : ScriptedTlsServer::Mode::Plain);
    }

    PrometheusSettings settings() {
        PrometheusSettings s;
        s.address = std::string(GetParam() ? "https" : "http") + "://127.0.0.1:" + std::to_string(server->port()) + "/prom";
        if (GetParam()) {
            ca = std::filesystem::temp_directory_path() / ("attune-prom-ca-" + std::to_string(::getpid()) + ".pem");
            std::ofstream(ca) << pki().ca_pem;
            s.ca_file = ca.string();
        }
        s.query_timeout = 2s;
        return s;
    }
    std::shared_ptr<PrometheusClient> client(PrometheusSettings s) {
        auto c = PrometheusClient::create(io.get_executor(), std::move(s));
        EXPECT_TRUE(c.ok()) << (c.ok() ? "" : c.error().message);
        return c.ok() ? c.value() : nullptr;
    }
    PrometheusOutcome range(PrometheusClient& c) {
        return run_coro(io, c.query_range("max by (container) (x)", 1767225600, 1767226200, 300s));
    }
    void TearDown() override {
        if (!ca.empty()) std::filesystem::remove(ca);
    }
    std::filesystem::path ca;
};

TEST_P(PrometheusClientTest, AGoodMatrixDecodesWithNaNSamplesDroppedAndCounted) {
    server->script(ScriptedReply::http(200, kMatrix));
    auto s = settings();
    s.headers = {{"X-Scope-OrgID", "tenant-a"}};
    s.query_parameters = {{"dedup", "true"}};
    auto c = client(s);
    const auto o = range(*c);
    ASSERT_TRUE(o.result.ok()) << o.result.error().message;
    EXPECT_EQ(o.http_status, 200u);
    const auto& series = o.result.value().series;
    ASSERT_EQ(series.size(), 2u);
    EXPECT_EQ(series[0].samples.size(), 2u);
    EXPECT_EQ(series[0].non_finite_dropped, 1);
    EXPECT_EQ(series[1].non_finite_dropped, 1);
    EXPECT_GT(o.duration.count(), 0);
    // One POST to the path prefix, extra parameters in the URL, the form in the body.
    ASSERT_EQ(server->requests().size(), 1u);
    const auto& req = server->requests()[0];
    EXPECT_EQ(req.method, "POST");
    EXPECT_EQ(req.target, "/prom/api/v1/query_range?dedup=true");
    EXPECT_EQ(req.body, "query=max%20by%20%28container%29%20%28x%29&start=1767225600.000&end=1767226200.000&step=300");
    EXPECT_NE(req.head.find("X-Scope-OrgID: tenant-a"), std::string::npos);
}

TEST_P(PrometheusClientTest, StatusErrorIsAPrometheusError) {
    server->script(
        ScriptedReply::http(400, R"({"status":"error","errorType":"bad_data","error":"parse error at char 3"})"));
    auto c = client(settings());
    const auto o = range(*c);
    ASSERT_FALSE(o.result.ok());
    EXPECT_EQ(o.result.error().code, "prometheus_error");
    EXPECT_EQ(o.result.error().message, "prometheus error (bad_data): parse error at char 3");
    EXPECT_EQ(o.http_status, 400u);
}

TEST_P(PrometheusClientTest, GarbageIsAnInvalidResponse) {
    server->script(ScriptedReply::http(200, "<html>I am not Prometheus</html>"));
    auto c = client(settings());
    const auto o = range(*c);
    ASSERT_FALSE(o.result.ok());
    EXPECT_EQ(o.result.error().code, "invalid_response");
}

TEST_P(PrometheusClientTest, AHangingPrometheusTimesOut) {
    ScriptedReply hang;
    hang.after = ScriptedReply::Then::Hang;
    server->script(hang);
    auto s = settings();
    s.query_timeout = 400ms;
    auto c = client(s);
    const auto t0 = Steady::now();
    const auto o = range(*c);
    const auto took = Steady::now() - t0;
    ASSERT_FALSE(o.result.ok());
    EXPECT_EQ(o.result.error().code, "timeout");
    EXPECT_GE(took, 350ms);
    EXPECT_LT(took, 5s);
}

TEST_P(PrometheusClientTest, AHugeBodyHitsTheSizeLimit) {
    std::string body = R"({"status":"success","data":{"resultType":"matrix","result":[)";
    body += std::string(256 * 1024, ' ') + "]}}";
    server->script(ScriptedReply::http(200, body));
    auto s = settings();
    s.max_response_bytes = 64 * 1024;
    auto c = client(s);
    const auto o = range(*c);
    ASSERT_FALSE(o.result.ok());
    EXPECT_EQ(o.result.error().code, "response_too_large");
}

TEST_P(PrometheusClientTest, A503IsAnHttpStatusOutcome) {
    server->script(ScriptedReply::http(503, "upstream unavailable"));
    auto c = client(settings());
    const auto o = range(*c);
    ASSERT_FALSE(o.result.ok());
    EXPECT_EQ(o.result.error().code, "http_status");
    EXPECT_EQ(o.http_status, 503u);
    EXPECT_NE(o.result.error().message.find("503: upstream unavailable"), std::string::npos);
}

TEST_P(PrometheusClientTest, AnInstantVectorQuery) {
    server->script(ScriptedReply::http(200, R"({"status":"success","data":{"resultType":"vector","result":[
      {"metric":{"pod":"web-1"},"value":[1767225600,"0.2"]}]}})"));
    auto c = client(settings());
    const auto o = run_coro(io, c->query("sum by (pod) (x)", 1767225600.5));
    ASSERT_TRUE(o.result.ok()) << o.result.error().message;
    EXPECT_EQ(o.result.value().series.at(0).labels.at("pod"), "web-1");
    EXPECT_EQ(server->requests().at(0).body, "query=sum%20by%20%28pod%29%20%28x%29&time=1767225600.500");
}

TEST_P(PrometheusClientTest, ARotatedTokenIsReReadAfterA401) {
    const auto tok = std::filesystem::temp_directory_path() / ("attune-prom-token-" + std::to_string(::getpid()));
    std::ofstream(tok) << "old-token";
    server->script(ScriptedReply::http(401, "bad token"));
    server->script(ScriptedReply::http(200, kMatrix));
    auto s = settings();
    s.bearer_token_file = tok.string();
    auto c = client(s);
    std::ofstream(tok) << "new-token";  // rotated after the client read it
    const auto o = range(*c);
    EXPECT_TRUE(o.result.ok());
    ASSERT_EQ(server->requests().size(), 2u);
    EXPECT_NE(server->requests()[1].head.find("Authorization: Bearer new-token"), std::string::npos);
    // Still refused after the re-read: unauthorized, no loop.
    server->script(ScriptedReply::http(403, "no"));
    server->script(ScriptedReply::http(403, "no"));
    const auto refused = range(*c);
    ASSERT_FALSE(refused.result.ok());
    EXPECT_EQ(refused.result.error().code, "unauthorized");
    EXPECT_EQ(server->requests().size(), 4u);
    std::filesystem::remove(tok);
}

TEST_P(PrometheusClientTest, AStoppedPrometheusIsUnreachable) {
    auto s = settings();
    server->stop();
    server.reset();
    auto c = client(s);
    const auto o = range(*c);
    ASSERT_FALSE(o.result.ok());
    EXPECT_EQ(o.result.error().code, "unreachable");
}

// kubectl attune doctor's probe: GET /-/healthy under the path prefix.
TEST_P(PrometheusClientTest, HealthyIsAGetOfTheHealthEndpoint) {
    server->script(ScriptedReply::http(200, "Prometheus Server is Healthy.\n"));
    auto s = settings();
    s.headers = {{"X-Scope-OrgID", "tenant-a"}};
    auto c = client(s);
    const auto r = run_coro(io, c->healthy(3s)).result;
    ASSERT_TRUE(r.ok()) << r.error().message;
    ASSERT_EQ(server->requests().size(), 1u);
    EXPECT_EQ(server->requests()[0].method, "GET");
    EXPECT_EQ(server->requests()[0].target, "/prom/-/healthy");
    EXPECT_NE(server->requests()[0].head.find("X-Scope-OrgID: tenant-a"), std::string::npos);
}

TEST_P(PrometheusClientTest, HealthyReportsAnUnhealthyAnswerAndAHang) {
    server->script(ScriptedReply::http(503, "Service Unavailable"));
    auto c = client(settings());
    const auto bad = run_coro(io, c->healthy(3s)).result;
    ASSERT_FALSE(bad.ok());
    EXPECT_EQ(bad.error().code, "http_status");
    EXPECT_NE(bad.error().message.find("503"), std::string::npos);

    ScriptedReply hang;
    hang.after = ScriptedReply::Then::Hang;
    server->script(hang);
    const auto t0 = Steady::now();
    const auto slow = run_coro(io, c->healthy(300ms)).result;
    ASSERT_FALSE(slow.ok());
    EXPECT_EQ(slow.error().code, "timeout");
    EXPECT_LT(Steady::now() - t0, 5s);
}

INSTANTIATE_TEST_SUITE_P(PlainAndTls, PrometheusClientTest, ::testing::Values(false, true),
                         [](const auto& param_info) { return param_info.param ? "Tls" : "PlainHttp"; });

TEST(PrometheusClientConfig, BadConfigurationIsAnErrorNotACrash) {
    boost::asio::io_context io;
    const struct {
        PrometheusSettings s;
        const char* in_message;
    } rows[] = {
        {[] {
             PrometheusSettings s;
             s.address = "prometheus:9090";
             return s;
         }(),
         "missing scheme"},
        {[] {
             PrometheusSettings s;
             s.address = "ftp://p";
             return s;
         }(),
         "only http"},
        {[] {
             PrometheusSettings s;
             s.address = "http://p";
             s.query_parameters = {{"Step", "1"}};
             return s;
         }(),
         "\"Step\" is set by Attune"},
        {[] {
             PrometheusSettings s;
             s.address = "http://p";
             s.headers = {{"X-A", "v\r\nX-B: injected"}};
             return s;
         }(),
         "not a valid header"},
        {[] {
             PrometheusSettings s;
             s.address = "https://p";
             s.ca_file = "/nonexistent/ca.pem";
             return s;
         }(),
         "cannot be read"},
        {[] {
             PrometheusSettings s;
             s.address = "http://p";
             s.bearer_token_file = "/nonexistent/token";
             return s;
         }(),
         "bearer token"},
    };
    for (const auto& r : rows) {
        auto c = PrometheusClient::create(io.get_executor(), r.s);
        ASSERT_FALSE(c.ok()) << r.in_message;
        EXPECT_EQ(c.error().code, "invalid_config");
        EXPECT_NE(c.error().message.find(r.in_message), std::string::npos) << c.error().message;
    }
}

}  // namespace
}  // namespace attune::kube
