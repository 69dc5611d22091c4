// controller::PrometheusClients: which token each query carries, and the
// SSRF rule on what a Prometheus host resolves to, against a loopback
// scripted server (plain HTTP; the transport itself is prometheus_client_test's).
#include "../runtime/run_coro.hpp"
#include "../runtime/scripted_tls_server.hpp"

#include <attune/controller/prometheus_clients.hpp>

#include <boost/asio/io_context.hpp>

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include <unistd.h>

namespace attune::controller {
namespace {
using namespace std::chrono_literals;
using test::run_coro;
using test::ScriptedReply;
using test::ScriptedTlsServer;
using Steady = std::chrono::steady_clock;

constexpr const char* kEmpty = R"({"status":"success","data":{"resultType":"vector","result":[]}})";

struct PrometheusClientsTest : ::testing::Test {
    boost::asio::io_context io;
    ScriptedTlsServer server{io, "", "", ScriptedTlsServer::Mode::Plain};
    std::filesystem::path token =
        std::filesystem::temp_directory_path() / ("attune-prom-flag-token-" + std::to_string(::getpid()));

    void SetUp() override { std::ofstream(token) << "flag-token"; }
    void TearDown() override { std::filesystem::remove(token); }

    std::string at(const char* host) { return std::string("http://") + host + ":" + std::to_string(server.port()); }
    static core::PrometheusSource source(std::string address) {
        core::PrometheusSource s;
        s.origin = "spec.metricsSource.prometheus";
        s.address = std::move(address);
        return s;
    }
    PrometheusClientsOptions options() {
        PrometheusClientsOptions o;
        o.bearer_token_file = token.string();
        o.token_origins = {at("127.0.0.1")};
        o.allow_plaintext_credentials = true;  // the scripted server speaks plain HTTP
        o.allow_local_addresses = true;
        o.query_timeout = 2s;
        return o;
    }
    // The query's outcome and the Authorization header the server saw ("" : none).
    std::pair<kube::PrometheusOutcome, std::string> ask(PrometheusClients& clients, const std::string& address,
                                                        const std::string& secret_token = "") {
        auto c = clients.get(source(address), secret_token, "", Steady::now());
        EXPECT_TRUE(c.ok()) << (c.ok() ? "" : c.error().message);
        if (!c.ok()) return {kube::PrometheusOutcome(), ""};
        const auto before = server.requests().size();
        auto o = run_coro(io, c.value()->query("up", 1767225600));
        if (server.requests().size() == before) return {std::move(o), ""};
        const auto& head = server.requests().back().head;
        const auto p = head.find("Authorization: ");
        return {std::move(o), p == std::string::npos ? "" : head.substr(p + 15, head.find("\r\n", p) - p - 15)};
    }
};

// The finding: a policy pointing at any server collected the manager's token.
// "localhost" reaches the same server as the listed 127.0.0.1, but is another
// origin, as an attacker's host would be.
TEST_F(PrometheusClientsTest, TheManagersTokenGoesOnlyToListedOrigins) {
    PrometheusClients clients(io.get_executor(), options());
    server.script(ScriptedReply::http(200, kEmpty));
    EXPECT_EQ(ask(clients, at("127.0.0.1")).second, "Bearer flag-token");
    server.script(ScriptedReply::http(200, kEmpty));
    EXPECT_EQ(ask(clients, at("127.0.0.1") + "/prometheus").second, "Bearer flag-token");  // a path plays no part
    server.script(ScriptedReply::http(200, kEmpty));
    EXPECT_EQ(ask(clients, at("localhost")).second, "");
    // Where it matters the status says why: a 401 names the withheld token.
    server.script(ScriptedReply::http(401, "who are you"));
    const auto refused = ask(clients, at("localhost") + "/x");
    EXPECT_EQ(refused.second, "");
    ASSERT_FALSE(refused.first.result.ok());
    EXPECT_EQ(refused.first.result.error().code, "unauthorized");
    EXPECT_NE(refused.first.result.error().message.find("--prometheus-bearer-token-file token is not sent to "
                                                         "http://localhost:" + std::to_string(server.port()) +
                                                         ": it is not in --prometheus-token-addresses"),
              std::string::npos)
        << refused.first.result.error().message;
}

TEST_F(PrometheusClientsTest, APolicysSecretTokenGoesWhereItsPolicyPointsAndNotInTheClearWithoutTheOptIn) {
    PrometheusClients clients(io.get_executor(), options());
    server.script(ScriptedReply::http(200, kEmpty));
    EXPECT_EQ(ask(clients, at("localhost"), "secret-token").second, "Bearer secret-token");
    auto o = options();
    o.allow_plaintext_credentials = false;
    PrometheusClients strict(io.get_executor(), o);
    const auto c = strict.get(source(at("localhost")), "secret-token", "", Steady::now());
    ASSERT_FALSE(c.ok());
    EXPECT_EQ(c.error().code, "invalid_config");
    EXPECT_NE(c.error().message.find("--allow-plaintext-prometheus-credentials"), std::string::npos);
    // The manager's own token is not sent in the clear either, even to a listed http origin.
    server.script(ScriptedReply::http(200, kEmpty));
    EXPECT_EQ(ask(strict, at("127.0.0.1")).second, "");
}

// The connect-time SSRF rule: "localhost" passes no literal check here, and
// resolves to loopback; without the local flag nothing is connected to.
TEST_F(PrometheusClientsTest, AHostThatResolvesToLoopbackIsRefusedAtConnectUnlessLocalAddressesAreAllowed) {
    auto o = options();
    o.allow_local_addresses = false;
    PrometheusClients strict(io.get_executor(), o);
    const auto r = ask(strict, at("localhost"));
    ASSERT_FALSE(r.first.result.ok());
    EXPECT_EQ(r.first.result.error().code, "address_refused");
    EXPECT_NE(r.first.result.error().message.find("127.0.0.1 is a loopback address; loopback is allowed only when "
                                                  "the manager runs with --allow-local-metrics-addresses"),
              std::string::npos)
        << r.first.result.error().message;
    EXPECT_EQ(server.connections(), 0);

    PrometheusClients local(io.get_executor(), options());
    server.script(ScriptedReply::http(200, kEmpty));
    EXPECT_TRUE(ask(local, at("localhost")).first.result.ok());
    EXPECT_EQ(server.connections(), 1);
}

}  // namespace
}  // namespace attune::controller
