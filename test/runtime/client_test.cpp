// Behaviour of kube::Client against a scripted loopback HTTPS server.
#include "fast_client_settings.hpp"
#include "run_coro.hpp"
#include "scripted_tls_server.hpp"
#include "test_certs.hpp"

#include <attune/kube/client.hpp>
#include <attune/kube/object_cache.hpp>
#include <attune/kube/pod_protobuf.hpp>

#include <boost/asio/co_spawn.hpp>
#include <boost/asio/detached.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/json.hpp>

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include <unistd.h>

#include <spdlog/sinks/ringbuffer_sink.h>
#include <spdlog/spdlog.h>

namespace attune::kube {
namespace {
using namespace std::chrono_literals;
using test::pki;
using test::run_coro;
using test::ScriptedReply;
using test::ScriptedTlsServer;
namespace asio = boost::asio;
namespace json = boost::json;
using Steady = std::chrono::steady_clock;

RestConfig config_for(const ScriptedTlsServer& s) {
    RestConfig c;
    c.host = "127.0.0.1";
    c.port = std::to_string(s.port());
    c.tls.ca_pem = pki().ca_pem;
    c.credentials = TokenSource::fixed("s3cret");
    return c;
}

ClientSettings fast_settings() { return test::fast_client_settings(); }

const std::string kPodJson =
    R"({"kind":"Pod","apiVersion":"v1","metadata":{"name":"p","namespace":"ns","resourceVersion":"7"}})";

struct ClientTest : ::testing::Test {
    asio::io_context io;
    ScriptedTlsServer server{io, pki().server_cert_pem, pki().server_key_pem};
};

TEST_F(ClientTest, GetSendsBearerTokenAndParsesObject) {
    server.script(ScriptedReply::http(200, kPodJson));
    Client c(io.get_executor(), config_for(server), fast_settings());
    auto r = run_coro(io, c.get(resources::pods(), "ns", "p"));
    ASSERT_TRUE(r.ok()) << r.error().describe();
    EXPECT_EQ(r->at("metadata").at("name").as_string(), "p");
    ASSERT_EQ(server.requests().size(), 1u);
    EXPECT_EQ(server.requests()[0].target, "/api/v1/namespaces/ns/pods/p");
    EXPECT_NE(server.requests()[0].head.find("Authorization: Bearer s3cret"), std::string::npos);
}

// A projected token rotated and the old one revoked: the 401 makes the client
// read the file again and send once more with the new token.
TEST_F(ClientTest, UnauthorizedWithARotatedTokenFileSendsAgainWithTheNewToken) {
    const auto dir = std::filesystem::temp_directory_path() / ("attune-token-" + std::to_string(::getpid()));
    std::filesystem::create_directories(dir);
    const auto file = dir / "token";
    std::ofstream(file) << "old-token\n";
    auto cfg = config_for(server);
    cfg.credentials = TokenSource::from_file(file);  // re-read every 60 s: not before this test ends
    Client c(io.get_executor(), cfg, fast_settings());
    std::ofstream(file, std::ios::trunc) << "new-token\n";
    server.script(ScriptedReply::status(401, "Unauthorized", "Unauthorized"));
    server.script(ScriptedReply::http(200, kPodJson));
    auto r = run_coro(io, c.get(resources::pods(), "ns", "p"));
    std::filesystem::remove_all(dir);
    ASSERT_TRUE(r.ok()) << r.error().describe();
    ASSERT_EQ(server.requests().size(), 2u);
    EXPECT_NE(server.requests()[0].head.find("Authorization: Bearer old-token"), std::string::npos);
    EXPECT_NE(server.requests()[1].head.find("Authorization: Bearer new-token"), std::string::npos);
}

TEST_F(ClientTest, UnauthorizedWithAnUnchangedTokenIsTheAnswer) {
    const auto dir = std::filesystem::temp_directory_path() / ("attune-token-same-" + std::to_string(::getpid()));
    std::filesystem::create_directories(dir);
    const auto file = dir / "token";
    std::ofstream(file) << "only-token\n";
    auto cfg = config_for(server);
    cfg.credentials = TokenSource::from_file(file);
    Client c(io.get_executor(), cfg, fast_settings());
    server.script(ScriptedReply::status(401, "Unauthorized", "Unauthorized"));
    server.script(ScriptedReply::http(200, kPodJson));
    auto r = run_coro(io, c.get(resources::pods(), "ns", "p"));
    std::filesystem::remove_all(dir);
    ASSERT_FALSE(r.ok());
    EXPECT_EQ(r.error().code, 401);
    EXPECT_EQ(server.requests().size(), 1u) << "sent again with the same token";
}

TEST_F(ClientTest, KeepAliveReusesOneConnection) {
    server.script(ScriptedReply::http(200, kPodJson));
    server.script(ScriptedReply::http(200, kPodJson));
    Client c(io.get_executor(), config_for(server), fast_settings());
    run_coro(io, [&]() -> asio::awaitable<void> {
        auto a = co_await c.get(resources::pods(), "ns", "p");
        auto b = co_await c.get(resources::pods(), "ns", "p");
        EXPECT_TRUE(a.ok());
        EXPECT_TRUE(b.ok());
    }());
    EXPECT_EQ(server.connections(), 1);
    EXPECT_EQ(c.pool().open, 1u);
}

TEST_F(ClientTest, TooManyRequestsHonoursRetryAfterThroughRateLimiter) {
    server.script(ScriptedReply::status(429, "TooManyRequests", "slow down", {"Retry-After: 2"}));
    server.script(ScriptedReply::http(200, kPodJson));
    Client c(io.get_executor(), config_for(server), fast_settings());
    auto r = run_coro(io, c.get(resources::pods(), "ns", "p"));
    ASSERT_TRUE(r.ok()) << r.error().describe();
    ASSERT_EQ(server.requests().size(), 2u);
    EXPECT_GE(server.requests()[1].at - server.requests()[0].at, 2s);
    // Both attempts took a token from the client rate limiter.
    EXPECT_EQ(c.rate_limiter_reservations(), 2u);
}

// Leader fencing (docs/safety.md): with a fence installed, a write is asked
// about before it is sent; reads are never fenced.
TEST_F(ClientTest, WriteFenceRefusesWritesAndLetsReadsThrough) {
    server.script(ScriptedReply::http(200, kPodJson));
    Client c(io.get_executor(), config_for(server), fast_settings());
    bool leader = false;
    c.set_write_fence([&](Steady::time_point) { return leader; });
    auto w = run_coro(io, c.patch(resources::pods(), "ns", "p", PatchType::JsonMerge, "{}"));
    ASSERT_FALSE(w.ok());
    EXPECT_TRUE(w.error().is_fenced()) << w.error().describe();
    EXPECT_EQ(server.requests().size(), 0u);
    auto r = run_coro(io, c.get(resources::pods(), "ns", "p"));
    EXPECT_TRUE(r.ok());
    EXPECT_EQ(server.requests().size(), 1u);
}

// A standby serves its own secure /metrics: TokenReview and
// SubjectAccessReview store nothing, so the fence lets them through; any
// other create stays fenced.
TEST_F(ClientTest, WriteFenceLetsReviewsThroughAndFencesOtherCreates) {
    server.script(ScriptedReply::http(201, R"({"kind":"TokenReview","status":{"authenticated":false}})"));
    server.script(ScriptedReply::http(201, R"({"kind":"SubjectAccessReview","status":{"allowed":false}})"));
    Client c(io.get_executor(), config_for(server), fast_settings());
    c.set_write_fence([](Steady::time_point) { return false; });
    const ResourceType token_reviews("authentication.k8s.io", "v1", "tokenreviews", "TokenReview", false);
    const ResourceType access_reviews("authorization.k8s.io", "v1", "subjectaccessreviews", "SubjectAccessReview",
                                      false);
    const ResourceType local_reviews("authorization.k8s.io", "v1", "localsubjectaccessreviews",
                                     "LocalSubjectAccessReview", true);
    auto t = run_coro(io, c.create(token_reviews, "", boost::json::object{{"kind", "TokenReview"}}));
    EXPECT_TRUE(t.ok()) << t.error().describe();
    auto a = run_coro(io, c.create(access_reviews, "", boost::json::object{{"kind", "SubjectAccessReview"}}));
    EXPECT_TRUE(a.ok()) << a.error().describe();
    EXPECT_EQ(server.requests().size(), 2u);
    auto p = run_coro(io, c.create(resources::pods(), "ns", boost::json::object{{"kind", "Pod"}}));
    ASSERT_FALSE(p.ok());
    EXPECT_TRUE(p.error().is_fenced());
    auto l = run_coro(io, c.create(local_reviews, "ns", boost::json::object{}));
    ASSERT_FALSE(l.ok());
    EXPECT_TRUE(l.error().is_fenced());
    EXPECT_EQ(server.requests().size(), 2u);
}

// The bug this fixes: a leader stuck in retries kept writing after its
// lease lapsed. The fence is asked again before every retry.
TEST_F(ClientTest, WriteFenceStopsARetryLoopWhenLeadershipLapses) {
    for (int i = 0; i < 3; ++i)
        server.script(ScriptedReply::status(429, "TooManyRequests", "busy", {"Retry-After: 1"}));
    Client c(io.get_executor(), config_for(server), fast_settings());
    const auto lapse = Steady::now() + 500ms;
    c.set_write_fence([&](Steady::time_point now) { return now < lapse; });
    auto w = run_coro(io, c.patch(resources::pods(), "ns", "p", PatchType::JsonMerge, "{}"));
    ASSERT_FALSE(w.ok());
    EXPECT_TRUE(w.error().is_fenced()) << w.error().describe();
    EXPECT_EQ(server.requests().size(), 1u);  // the retry after Retry-After: 1 was never sent
}

// --watch-namespaces: a request whose path names a namespace outside the
// fence's set never leaves, whatever its verb; cluster-scoped paths and the
// watched namespaces pass.
TEST_F(ClientTest, NamespaceFenceRefusesPathsOutsideTheWatchedNamespaces) {
    for (int i = 0; i < 3; ++i) server.script(ScriptedReply::http(200, kPodJson));
    Client c(io.get_executor(), config_for(server), fast_settings());
    c.set_namespace_fence([](std::string_view ns) { return ns == "ns"; });
    auto get_other = run_coro(io, c.get(resources::pods(), "other", "p"));
    ASSERT_FALSE(get_other.ok());
    EXPECT_EQ(get_other.error().kind, ErrorKind::OutOfScope);
    EXPECT_NE(get_other.error().describe().find("namespace other is not one of --watch-namespaces"), std::string::npos)
        << get_other.error().describe();
    auto resize_other =
        run_coro(io, c.patch(resources::pods(), "other", "p", PatchType::StrategicMerge, "{}", "resize"));
    EXPECT_EQ(resize_other.error().kind, ErrorKind::OutOfScope);
    auto watch_other = run_coro(io, c.watch(resources::pods(), "other", WatchOptions{}));
    EXPECT_EQ(watch_other.error().kind, ErrorKind::OutOfScope);
    EXPECT_EQ(server.requests().size(), 0u);  // nothing was sent
    EXPECT_TRUE(run_coro(io, c.get(resources::pods(), "ns", "p")).ok());
    EXPECT_TRUE(run_coro(io, c.get(resources::nodes(), "", "n1")).ok());
    EXPECT_TRUE(run_coro(io, c.get_path("/version")).ok());
    ASSERT_EQ(server.requests().size(), 3u);
    EXPECT_EQ(server.requests()[0].target, "/api/v1/namespaces/ns/pods/p");
}

TEST_F(ClientTest, TooManyRequestsWithoutRetryAfterBacksOff) {
    server.script(ScriptedReply::status(429, "TooManyRequests", "slow down"));
    server.script(ScriptedReply::status(429, "TooManyRequests", "slow down"));
    server.script(ScriptedReply::http(201, kPodJson));
    Client c(io.get_executor(), config_for(server), fast_settings());
    // 429 means "not processed": even a create is retried.
    auto r = run_coro(io, c.create(resources::pods(), "ns", json::parse(kPodJson)));
    ASSERT_TRUE(r.ok()) << r.error().describe();
    ASSERT_EQ(server.requests().size(), 3u);
    EXPECT_GE(server.requests()[1].at - server.requests()[0].at, 10ms);
    EXPECT_GE(server.requests()[2].at - server.requests()[1].at, 20ms);
    EXPECT_EQ(c.rate_limiter_reservations(), 3u);
}

TEST_F(ClientTest, TooManyRequestsGivesUpAfterMaxRetries) {
    for (int i = 0; i < 4; ++i) server.script(ScriptedReply::status(429, "TooManyRequests", "no"));
    Client c(io.get_executor(), config_for(server), fast_settings());
    auto r = run_coro(io, c.get(resources::pods(), "ns", "p"));
    ASSERT_FALSE(r.ok());
    EXPECT_TRUE(r.error().is_too_many_requests());
    EXPECT_EQ(r.error().attempts, 4u);
    EXPECT_FALSE(r.error().retry_after.has_value());
    EXPECT_EQ(server.requests().size(), 4u);
}

TEST_F(ClientTest, ServiceUnavailableRetriedForGet) {
    server.script(ScriptedReply::status(503, "ServiceUnavailable", "later"));
    server.script(ScriptedReply::http(200, kPodJson));
    Client c(io.get_executor(), config_for(server), fast_settings());
    auto r = run_coro(io, c.get(resources::pods(), "ns", "p"));
    ASSERT_TRUE(r.ok()) << r.error().describe();
    EXPECT_EQ(server.requests().size(), 2u);
}

TEST_F(ClientTest, ServiceUnavailableNotRetriedForCreateWithoutRetryAfter) {
    server.script(ScriptedReply::status(503, "ServiceUnavailable", "later"));
    Client c(io.get_executor(), config_for(server), fast_settings());
    auto r = run_coro(io, c.create(resources::pods(), "ns", json::parse(kPodJson)));
    ASSERT_FALSE(r.ok());
    EXPECT_EQ(r.error().code, 503);
    EXPECT_EQ(r.error().reason, "ServiceUnavailable");
    EXPECT_EQ(server.requests().size(), 1u);
}

TEST_F(ClientTest, ConflictIsSurfacedWithStatus) {
    server.script(ScriptedReply::status(409, "Conflict", "the object has been modified"));
    Client c(io.get_executor(), config_for(server), fast_settings());
    auto r = run_coro(io, c.patch(resources::pods(), "ns", "p", PatchType::StrategicMerge, "{}", "resize"));
    ASSERT_FALSE(r.ok());
    EXPECT_TRUE(r.error().is_conflict());
    EXPECT_EQ(r.error().message, "the object has been modified");
    ASSERT_EQ(server.requests().size(), 1u);
    EXPECT_EQ(server.requests()[0].method, "PATCH");
    EXPECT_EQ(server.requests()[0].target, "/api/v1/namespaces/ns/pods/p/resize?fieldManager=attune");
    EXPECT_NE(server.requests()[0].head.find("application/strategic-merge-patch+json"), std::string::npos);
}

TEST_F(ClientTest, ServerSideApplySendsFieldManagerAndForce) {
    server.script(ScriptedReply::http(200, kPodJson));
    Client c(io.get_executor(), config_for(server), fast_settings());
    WriteOptions wo;
    wo.field_manager = "attune-status";
    wo.force = true;
    auto r = run_coro(io, c.patch(resources::attune_policies(), "ns", "pol", PatchType::Apply, "{}", "status", wo));
    ASSERT_TRUE(r.ok()) << r.error().describe();
    EXPECT_EQ(server.requests()[0].target,
              "/apis/attune.io/v1alpha1/namespaces/ns/attunepolicies/pol/status?fieldManager=attune-status&force=true");
    EXPECT_NE(server.requests()[0].head.find("application/apply-patch+yaml"), std::string::npos);
}

TEST_F(ClientTest, ResetMidBodyRetriesGet) {
    auto partial = ScriptedReply::http(200, kPodJson);
    partial.pieces[0].second.resize(partial.pieces[0].second.size() - 20);  // Content-Length promises more
    partial.after = ScriptedReply::Then::Reset;
    server.script(partial);
    server.script(ScriptedReply::http(200, kPodJson));
    Client c(io.get_executor(), config_for(server), fast_settings());
    auto r = run_coro(io, c.get(resources::pods(), "ns", "p"));
    ASSERT_TRUE(r.ok()) << r.error().describe();
    EXPECT_EQ(server.requests().size(), 2u);
    EXPECT_EQ(server.connections(), 2);
}

TEST_F(ClientTest, ResetMidBodyNotRetriedForCreate) {
    auto partial = ScriptedReply::http(201, kPodJson);
    partial.pieces[0].second.resize(partial.pieces[0].second.size() - 20);
    partial.after = ScriptedReply::Then::Reset;
    server.script(partial);
    Client c(io.get_executor(), config_for(server), fast_settings());
    auto r = run_coro(io, c.create(resources::pods(), "ns", json::parse(kPodJson)));
    ASSERT_FALSE(r.ok());
    EXPECT_EQ(r.error().kind, ErrorKind::Transport);
    EXPECT_EQ(r.error().transport, http::Failure::ConnectionReset);
    EXPECT_EQ(server.requests().size(), 1u);
}

TEST_F(ClientTest, SlowBodyHitsReadTimeout) {
    ScriptedReply slow;
    slow.pieces.push_back({0ms, "HTTP/1.1 200 OK\r\nContent-Length: 100\r\n\r\n{"});
    for (int i = 0; i < 10; ++i) slow.pieces.push_back({300ms, " "});  // drips past the read budget
    server.script(slow);
    auto s = fast_settings();
    s.retry.max_retries = 0;
    s.transport.limits.read = 1s;
    Client c(io.get_executor(), config_for(server), s);
    const auto t0 = Steady::now();
    auto r = run_coro(io, c.get(resources::pods(), "ns", "p"));
    ASSERT_FALSE(r.ok());
    EXPECT_TRUE(r.error().is_timeout()) << r.error().describe();
    EXPECT_GE(Steady::now() - t0, 1s);
}

TEST_F(ClientTest, SilentServerHitsReadTimeout) {
    ScriptedReply silent;
    silent.after = ScriptedReply::Then::Hang;
    server.script(silent);
    auto s = fast_settings();
    s.retry.max_retries = 0;
    s.transport.limits.read = 500ms;
    Client c(io.get_executor(), config_for(server), s);
    const auto t0 = Steady::now();
    auto r = run_coro(io, c.get(resources::pods(), "ns", "p"));
    ASSERT_FALSE(r.ok());
    EXPECT_TRUE(r.error().is_timeout()) << r.error().describe();
    EXPECT_GE(Steady::now() - t0, 500ms);
}

// A LIST that times out is what an overloaded apiserver looks like: its
// retry is logged at info, where operators look, other retries at debug.
TEST_F(ClientTest, TimedOutListRetryIsLoggedAtInfo) {
    ScriptedReply silent;
    silent.after = ScriptedReply::Then::Hang;
    server.script(silent);
    server.script(silent);
    auto s = fast_settings();
    s.retry.max_retries = 1;
    s.transport.limits.read = 200ms;
    Client c(io.get_executor(), config_for(server), s);
    auto sink = std::make_shared<spdlog::sinks::ringbuffer_sink_mt>(16);
    auto logger = std::make_shared<spdlog::logger>("capture", sink);
    logger->set_level(spdlog::level::info);
    auto previous = spdlog::default_logger();
    spdlog::set_default_logger(logger);
    ListOptions lo;
    lo.limit = 500;
    auto r = run_coro(io, c.list(resources::pods(), "", lo));
    spdlog::set_default_logger(previous);
    ASSERT_FALSE(r.ok());
    EXPECT_TRUE(r.error().is_timeout()) << r.error().describe();
    const auto lines = sink->last_formatted();
    ASSERT_EQ(lines.size(), 1u);
    EXPECT_NE(lines[0].find("[info]"), std::string::npos) << lines[0];
    EXPECT_NE(lines[0].find("kube request retry verb=list"), std::string::npos) << lines[0];
    EXPECT_NE(lines[0].find("failure=timeout"), std::string::npos) << lines[0];
}

TEST(ClientTimeouts, MissingTlsHandshakeHitsHandshakeTimeout) {
    asio::io_context io;
    ScriptedTlsServer server{io, pki().server_cert_pem, pki().server_key_pem, ScriptedTlsServer::Mode::NoHandshake};
    auto s = fast_settings();
    s.retry.max_retries = 0;
    s.transport.limits.handshake = 500ms;
    Client c(io.get_executor(), config_for(server), s);
    const auto t0 = Steady::now();
    auto r = run_coro(io, c.get(resources::pods(), "ns", "p"));
    ASSERT_FALSE(r.ok());
    EXPECT_TRUE(r.error().is_timeout()) << r.error().describe();
    EXPECT_GE(Steady::now() - t0, 500ms);
}

TEST(ClientTls, CertificateForAnotherIpIsRejected) {
    asio::io_context io;
    ScriptedTlsServer server{io, pki().wrong_ip_cert_pem, pki().wrong_ip_key_pem};
    server.script(ScriptedReply::http(200, kPodJson));
    auto s = fast_settings();
    Client c(io.get_executor(), config_for(server), s);
    auto r = run_coro(io, c.get(resources::pods(), "ns", "p"));
    ASSERT_FALSE(r.ok());
    EXPECT_EQ(r.error().transport, http::Failure::TlsHandshake);
    EXPECT_TRUE(server.requests().empty());
}

TEST(ClientTls, HostnameVerifiedAgainstDnsSan) {
    asio::io_context io;
    ScriptedTlsServer server{io, pki().server_cert_pem, pki().server_key_pem};
    server.script(ScriptedReply::http(200, kPodJson));
    auto cfg = config_for(server);
    cfg.tls.server_name = "localhost";
    Client ok(io.get_executor(), cfg, fast_settings());
    EXPECT_TRUE(run_coro(io, ok.get(resources::pods(), "ns", "p")).ok());

    cfg.tls.server_name = "not-localhost";
    auto s = fast_settings();
    Client bad(io.get_executor(), cfg, s);
    auto r = run_coro(io, bad.get(resources::pods(), "ns", "p"));
    ASSERT_FALSE(r.ok());
    EXPECT_EQ(r.error().transport, http::Failure::TlsHandshake);
}

TEST(ClientTls, UntrustedCaIsRejected) {
    asio::io_context io;
    ScriptedTlsServer server{io, pki().server_cert_pem, pki().server_key_pem};
    auto cfg = config_for(server);
    cfg.tls.ca_pem = pki().client_cert_pem;  // a valid certificate, but not the issuer
    Client c(io.get_executor(), cfg, fast_settings());
    auto r = run_coro(io, c.get(resources::pods(), "ns", "p"));
    ASSERT_FALSE(r.ok());
    EXPECT_EQ(r.error().transport, http::Failure::TlsHandshake);
}

TEST_F(ClientTest, WatchHttpGoneIsTypedError) {
    server.script(ScriptedReply::status(410, "Expired", "too old resource version: 5 (10)"));
    Client c(io.get_executor(), config_for(server), fast_settings());
    WatchOptions wo;
    wo.resource_version = "5";
    wo.timeout_seconds = 60;
    auto r = run_coro(io, c.watch(resources::pods(), "", wo));
    ASSERT_FALSE(r.ok());
    EXPECT_TRUE(r.error().is_gone());
    EXPECT_EQ(r.error().reason, "Expired");
    EXPECT_FALSE(r.error().retry_after.has_value());
    EXPECT_EQ(server.requests()[0].target,
              "/api/v1/pods?watch=1&resourceVersion=5&allowWatchBookmarks=true&timeoutSeconds=60");
}

TEST_F(ClientTest, WatchTooManyRequestsCarriesRetryAfter) {
    server.script(ScriptedReply::status(429, "TooManyRequests", "busy", {"Retry-After: 3"}));
    Client c(io.get_executor(), config_for(server), fast_settings());
    WatchOptions wo;
    wo.resource_version = "5";
    auto r = run_coro(io, c.watch(resources::pods(), "", wo));
    ASSERT_FALSE(r.ok());
    EXPECT_TRUE(r.error().is_too_many_requests());
    ASSERT_TRUE(r.error().retry_after.has_value());
    EXPECT_EQ(*r.error().retry_after, std::chrono::seconds(3));
    EXPECT_EQ(server.requests().size(), 1u);  // the reflector, not the client, decides when to reopen
}

TEST_F(ClientTest, ListAllFollowsContinueTokens) {
    server.script(ScriptedReply::http(
        200,
        R"({"kind":"PodList","metadata":{"resourceVersion":"10","continue":"c1"},"items":[{"metadata":{"name":"a"}}]})"));
    server.script(
        ScriptedReply::
            http(200, R"({"kind":"PodList","metadata":{"resourceVersion":"10"},"items":[{"metadata":{"name":"b"}}]})"));
    Client c(io.get_executor(), config_for(server), fast_settings());
    ListOptions lo;
    lo.limit = 1;
    auto r = run_coro(io, c.list_all(resources::pods(), "ns", lo));
    ASSERT_TRUE(r.ok()) << r.error().describe();
    EXPECT_EQ(r->items.size(), 2u);
    EXPECT_EQ(r->resource_version, "10");
    EXPECT_EQ(server.requests()[0].target, "/api/v1/namespaces/ns/pods?limit=1");
    EXPECT_EQ(server.requests()[1].target, "/api/v1/namespaces/ns/pods?continue=c1&limit=1");
}

std::string pod_list_fixture(const std::string& name) {
    std::ifstream in(std::string(ATTUNE_TEST_DATA_DIR) + "/pod_lists/" + name, std::ios::binary);
    std::stringstream b;
    b << in.rdbuf();
    return b.str();
}

// With protobuf_items, a list asks for protobuf (JSON accepted too) and the
// answer's own encoding picks the decoder: the sink sees JSON either way.
TEST_F(ClientTest, ListStreamDecodesWhicheverEncodingTheServerChose) {
    server.script(ScriptedReply::http(200, pod_list_fixture("fixture-v1.36.3.pb"),
                                      {"Content-Type: application/vnd.kubernetes.protobuf"}));
    server.script(
        ScriptedReply::
            http(200, R"({"kind":"PodList","metadata":{"resourceVersion":"10"},"items":[{"metadata":{"name":"b"}}]})"));
    Client c(io.get_executor(), config_for(server), fast_settings());
    ListOptions lo;
    lo.protobuf_items = pod_from_protobuf;
    std::vector<std::string> names;
    auto sink = [&](json::value&& v) { names.emplace_back(meta_string(v, "name")); };
    auto pb = run_coro(io, c.list_stream(resources::pods(), "fixture", lo, sink));
    ASSERT_TRUE(pb.ok()) << pb.error().describe();
    EXPECT_TRUE(pb->protobuf);
    EXPECT_EQ(pb->item_count, 6u);
    EXPECT_EQ(names.size(), 6u);
    EXPECT_FALSE(pb->resource_version.empty());
    auto js = run_coro(io, c.list_stream(resources::pods(), "fixture", lo, sink));
    ASSERT_TRUE(js.ok()) << js.error().describe();
    EXPECT_FALSE(js->protobuf);
    EXPECT_EQ(names.back(), "b");
    ASSERT_EQ(server.requests().size(), 2u);
    EXPECT_NE(server.requests()[0].head.find("Accept: application/vnd.kubernetes.protobuf, application/json"),
              std::string::npos);
}

TEST_F(ClientTest, ListWithoutProtobufItemsAsksForJsonOnly) {
    server.script(ScriptedReply::http(200, R"({"kind":"PodList","metadata":{"resourceVersion":"1"},"items":[]})"));
    Client c(io.get_executor(), config_for(server), fast_settings());
    auto r = run_coro(io, c.list(resources::pods(), "ns", ListOptions{}));
    ASSERT_TRUE(r.ok()) << r.error().describe();
    EXPECT_NE(server.requests()[0].head.find("Accept: application/json"), std::string::npos);
    EXPECT_EQ(server.requests()[0].head.find("protobuf"), std::string::npos);
}

TEST_F(ClientTest, ACorruptProtobufListIsADecodeError) {
    auto body = pod_list_fixture("fixture-v1.36.3.pb");
    body.resize(body.size() / 2);
    server.script(ScriptedReply::http(200, body));
    Client c(io.get_executor(), config_for(server), fast_settings());
    ListOptions lo;
    lo.protobuf_items = pod_from_protobuf;
    auto r = run_coro(io, c.list_stream(resources::pods(), "fixture", lo, [](json::value&&) {}));
    ASSERT_FALSE(r.ok());
    EXPECT_EQ(r.error().kind, ErrorKind::Decode);
    EXPECT_NE(r.error().describe().find("protobuf"), std::string::npos) << r.error().describe();
}

// A paged LIST takes one token: its continuation pages go one at a time after
// the previous answer and cannot burst. Retries still take tokens.
TEST_F(ClientTest, OnlyTheFirstPageOfAPagedListTakesARateLimiterToken) {
    server.script(ScriptedReply::http(
        200,
        R"({"kind":"PodList","metadata":{"resourceVersion":"10","continue":"c1"},"items":[{"metadata":{"name":"a"}}]})"));
    server.script(ScriptedReply::http(
        200,
        R"({"kind":"PodList","metadata":{"resourceVersion":"10","continue":"c2"},"items":[{"metadata":{"name":"b"}}]})"));
    server.script(
        ScriptedReply::
            http(200, R"({"kind":"PodList","metadata":{"resourceVersion":"10"},"items":[{"metadata":{"name":"c"}}]})"));
    server.script(ScriptedReply::http(200, kPodJson));
    Client c(io.get_executor(), config_for(server), fast_settings());
    ListOptions lo;
    lo.limit = 1;
    auto r = run_coro(io, c.list_all(resources::pods(), "ns", lo));
    ASSERT_TRUE(r.ok()) << r.error().describe();
    EXPECT_EQ(r->items.size(), 3u);
    EXPECT_EQ(c.rate_limiter_reservations(), 1u);
    ASSERT_TRUE(run_coro(io, c.get(resources::pods(), "ns", "p")).ok());
    EXPECT_EQ(c.rate_limiter_reservations(), 2u);
}

TEST_F(ClientTest, PoolBoundSerialisesConcurrentRequests) {
    for (int i = 0; i < 3; ++i) {
        auto r = ScriptedReply::http(200, kPodJson);
        r.pieces[0].first = 50ms;
        server.script(r);
    }
    auto s = fast_settings();
    s.transport.max_connections = 1;
    Client c(io.get_executor(), config_for(server), s);
    int ok = 0;
    run_coro(io, [&]() -> asio::awaitable<void> {
        auto ex = co_await asio::this_coro::executor;
        for (int i = 0; i < 2; ++i)
            asio::co_spawn(ex, c.get(resources::pods(), "ns", "p"),
                           [&](std::exception_ptr, Client::JsonResult r) { ok += r.ok(); });
        auto r = co_await c.get(resources::pods(), "ns", "p");
        ok += r.ok();
        asio::steady_timer t(ex, 300ms);
        co_await t.async_wait(asio::use_awaitable);
    }());
    EXPECT_EQ(ok, 3);
    EXPECT_EQ(server.connections(), 1);  // one connection, reused in turn
    EXPECT_LE(c.pool().open, 1u);
}

TEST_F(ClientTest, OversizedBodyIsRefusedNotRetried) {
    server.script(ScriptedReply::http(200, std::string(4096, ' ') + kPodJson));
    auto s = fast_settings();
    s.transport.max_body_bytes = 1024;
    Client c(io.get_executor(), config_for(server), s);
    auto r = run_coro(io, c.get(resources::pods(), "ns", "p"));
    ASSERT_FALSE(r.ok());
    EXPECT_EQ(r.error().transport, http::Failure::BodyTooLarge);
    EXPECT_EQ(server.requests().size(), 1u);
}

TEST_F(ClientTest, ShutdownAbortsRequestsInFlight) {
    ScriptedReply silent;
    silent.after = ScriptedReply::Then::Hang;
    server.script(silent);
    auto s = fast_settings();
    s.transport.limits.read = 10s;
    Client c(io.get_executor(), config_for(server), s);
    const auto t0 = Steady::now();
    auto r = run_coro(io, [&]() -> asio::awaitable<Client::JsonResult> {
        asio::steady_timer t(co_await asio::this_coro::executor, 100ms);
        t.async_wait([&](boost::system::error_code) { c.shutdown(); });
        auto res = co_await c.get(resources::pods(), "ns", "p");
        co_return res;
    }());
    ASSERT_FALSE(r.ok());
    EXPECT_EQ(r.error().kind, ErrorKind::Cancelled) << r.error().describe();
    EXPECT_LT(Steady::now() - t0, 5s);
    auto after = run_coro(io, c.get(resources::pods(), "ns", "p"));
    EXPECT_EQ(after.error().kind, ErrorKind::Cancelled);
}

TEST_F(ClientTest, FullQueueRejectsImmediately) {
    ScriptedReply slow = ScriptedReply::http(200, kPodJson);
    slow.pieces[0].first = 300ms;
    server.script(slow);
    auto s = fast_settings();
    s.max_inflight = 1;
    s.max_queued = 0;
    Client c(io.get_executor(), config_for(server), s);
    run_coro(io, [&]() -> asio::awaitable<void> {
        asio::co_spawn(co_await asio::this_coro::executor, c.get(resources::pods(), "ns", "p"), asio::detached);
        asio::steady_timer t(co_await asio::this_coro::executor, 50ms);
        co_await t.async_wait(asio::use_awaitable);
        auto r = co_await c.get(resources::pods(), "ns", "p");
        EXPECT_FALSE(r.ok());
        EXPECT_EQ(r.error().kind, ErrorKind::QueueFull);
        EXPECT_EQ(c.metrics().request_queue_rejected.Value(), 1.0);
    }());
}

}  // namespace
}  // namespace attune::kube
