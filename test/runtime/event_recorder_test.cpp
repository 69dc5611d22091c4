#include "run_coro.hpp"
#include "scripted_tls_server.hpp"
#include "test_certs.hpp"

#include <attune/kube/event_recorder.hpp>

#include <boost/json.hpp>

#include <gtest/gtest.h>

namespace attune::kube {
namespace {
using namespace std::chrono_literals;
using Verdict = EventSeriesTracker::Verdict;
using Tp = EventSeriesTracker::Clock::time_point;
namespace json = boost::json;
namespace asio = boost::asio;

K8sEvent resized(std::string pod = "web-1", std::string note = "cpu 100m -> 200m") {
    return K8sEvent{{"v1", "Pod", "shop", std::move(pod), "uid-1"}, "Normal", "Resized", "Resize", std::move(note)};
}

TEST(EventSeries, RepeatsBecomeOneSeriesPatchedAtMostPerInterval) {
    EventSeriesTracker t({360s, 30s, 100});
    const Tp t0 = Tp{} + 1000s;
    auto d1 = t.observe(resized(), t0);
    EXPECT_EQ(d1.what, Verdict::Create);
    t.created(d1.key, "web-1.abc");
    auto d2 = t.observe(resized(), t0 + 1s);
    EXPECT_EQ(d2.what, Verdict::Suppress);  // within the patch interval
    EXPECT_EQ(d2.count, 2);
    EXPECT_EQ(t.due(t0 + 2s).size(), 0u);
    auto due = t.due(t0 + 31s);
    ASSERT_EQ(due.size(), 1u);
    EXPECT_EQ(due[0].count, 2);
    auto d3 = t.observe(resized(), t0 + 31s);
    EXPECT_EQ(d3.what, Verdict::Patch);
    EXPECT_EQ(d3.count, 3);
    EXPECT_EQ(d3.event_name, "web-1.abc");
    t.patched(d3.key, t0 + 31s);
    EXPECT_TRUE(t.due(t0 + 100s).empty());
}

TEST(EventSeries, DifferentNoteOrObjectIsADifferentEvent) {
    EventSeriesTracker t({360s, 30s, 100});
    EXPECT_EQ(t.observe(resized(), Tp{}).what, Verdict::Create);
    EXPECT_EQ(t.observe(resized("web-2"), Tp{}).what, Verdict::Create);
    EXPECT_EQ(t.observe(resized("web-1", "other"), Tp{}).what, Verdict::Create);
    EXPECT_EQ(t.size(), 3u);
}

TEST(EventSeries, QuietPeriodStartsANewSeries) {
    EventSeriesTracker t({360s, 30s, 100});
    auto d = t.observe(resized(), Tp{});
    t.created(d.key, "x");
    EXPECT_EQ(t.observe(resized(), Tp{} + 361s).what, Verdict::Create);
}

TEST(EventSeries, TrackingIsBounded) {
    EventSeriesTracker t({360s, 30s, 3});
    for (int i = 0; i < 10; ++i) t.observe(resized("p" + std::to_string(i)), Tp{} + std::chrono::seconds(i));
    EXPECT_EQ(t.size(), 3u);
    EXPECT_EQ(t.observe(resized("p9"), Tp{} + 20s).what, Verdict::Suppress);  // still tracked
    EXPECT_EQ(t.observe(resized("p0"), Tp{} + 20s).what, Verdict::Create);    // evicted long ago
}

// Emits resized() twice through a recorder whose client talks to a server
// answering `replies` in turn (retries 1 ms apart); returns what it received.
std::vector<test::RecordedRequest> emit_twice(std::vector<test::ScriptedReply> replies) {
    asio::io_context io;
    test::ScriptedTlsServer server{io, test::pki().server_cert_pem, test::pki().server_key_pem};
    for (auto& r : replies) server.script(std::move(r));
    RestConfig rc;
    rc.host = "127.0.0.1";
    rc.port = std::to_string(server.port());
    rc.tls.ca_pem = test::pki().ca_pem;
    ClientSettings fast;
    fast.retry.backoff = {std::chrono::milliseconds(1), 1.0, std::chrono::milliseconds(1), 0.0};
    Client c(io.get_executor(), rc, fast);
    EventRecorder rec(c, "attune.io/manager", "attune-0", {360s, 0s, 100});
    test::run_coro(io, [&]() -> asio::awaitable<void> {
        co_await rec.emit(resized());
        co_await rec.emit(resized());
    }());
    return server.requests();
}

TEST(EventRecorder, CreatesThenPatchesSeriesCount) {
    using test::ScriptedReply;
    const auto r = emit_twice({ScriptedReply::http(201, "{}"), ScriptedReply::http(200, "{}")});
    ASSERT_EQ(r.size(), 2u);
    EXPECT_EQ(r[0].method, "POST");
    EXPECT_EQ(r[0].target, "/apis/events.k8s.io/v1/namespaces/shop/events?fieldManager=attune");
    auto ev = json::parse(r[0].body);
    EXPECT_EQ(ev.at("reason").as_string(), "Resized");
    EXPECT_EQ(ev.at("regarding").at("uid").as_string(), "uid-1");
    EXPECT_EQ(ev.at("reportingController").as_string(), "attune.io/manager");
    const std::string name(ev.at("metadata").at("name").as_string());
    EXPECT_EQ(r[1].method, "PATCH");
    EXPECT_EQ(r[1].target, "/apis/events.k8s.io/v1/namespaces/shop/events/" + name + "?fieldManager=attune");
    EXPECT_EQ(json::parse(r[1].body).at("series").at("count").as_int64(), 2);
}

TEST(EventRecorder, ACreateLostToAResetIsSentAgainAndAlreadyExistsCountsAsCreated) {
    using test::ScriptedReply;
    ScriptedReply lost;  // the apiserver goes away after reading the request
    lost.after = ScriptedReply::Then::Reset;
    const auto r = emit_twice({lost, ScriptedReply::status(409, "AlreadyExists", "events.events.k8s.io already exists"),
                               ScriptedReply::http(200, "{}")});
    ASSERT_EQ(r.size(), 3u);
    EXPECT_EQ(r[0].method, "POST");
    EXPECT_EQ(r[1].method, "POST");
    EXPECT_EQ(r[1].body, r[0].body);  // the same name: a replay, never a second Event
    const std::string name(json::parse(r[0].body).at("metadata").at("name").as_string());
    // The series goes on from the Event the lost attempt created.
    EXPECT_EQ(r[2].method, "PATCH");
    EXPECT_EQ(r[2].target, "/apis/events.k8s.io/v1/namespaces/shop/events/" + name + "?fieldManager=attune");
}

}  // namespace
}  // namespace attune::kube
