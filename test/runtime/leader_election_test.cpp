#include "run_coro.hpp"
#include "scripted_tls_server.hpp"
#include "test_certs.hpp"

#include <attune/kube/leader_election.hpp>
#include <attune/kube/micro_time.hpp>

#include <boost/asio/co_spawn.hpp>
#include <boost/asio/detached.hpp>
#include <boost/json.hpp>

#include <gtest/gtest.h>

namespace attune::kube {
namespace {
using namespace std::chrono_literals;
using Act = LeaseFsm::Action;
using Tp = LeaseFsm::Clock::time_point;
namespace json = boost::json;
namespace asio = boost::asio;

LeaderElectionConfig cfg() { return {"attune-system", "attune-manager", "me", 15s, 10s, 2s}; }

LeaseRecord held_by(std::string holder, std::string renew, std::string rv = "1") {
    LeaseRecord r;
    r.holder = std::move(holder);
    r.duration_seconds = 15;
    r.renew_time = std::move(renew);
    r.resource_version = std::move(rv);
    return r;
}

TEST(LeaseFsm, CreatesMissingLease) {
    LeaseFsm f(cfg());
    EXPECT_EQ(f.decide(std::nullopt, Tp{}), Act::Create);
}

TEST(LeaseFsm, WaitsForOtherHolderUntilExpiryOnOurClock) {
    LeaseFsm f(cfg());
    const Tp t0 = Tp{} + 100s;
    EXPECT_EQ(f.decide(held_by("other", "r1"), t0), Act::Wait);
    EXPECT_EQ(f.decide(held_by("other", "r1"), t0 + 14s), Act::Wait);
    // The holder renewed: the observation clock restarts.
    EXPECT_EQ(f.decide(held_by("other", "r2", "2"), t0 + 14s), Act::Wait);
    EXPECT_EQ(f.decide(held_by("other", "r2", "2"), t0 + 28s), Act::Wait);
    EXPECT_EQ(f.decide(held_by("other", "r2", "2"), t0 + 29s), Act::Take);
}

TEST(LeaseFsm, ReleasedLeaseIsTakenAtOnce) {
    LeaseFsm f(cfg());
    EXPECT_EQ(f.decide(held_by("", "r"), Tp{}), Act::Take);
}

TEST(LeaseFsm, OwnLeaseIsRenewedAndLeadershipNeedsFreshRenewals) {
    LeaseFsm f(cfg());
    const Tp t0 = Tp{} + 1s;
    EXPECT_FALSE(f.is_leader(t0));
    EXPECT_EQ(f.decide(held_by("me", "r"), t0), Act::Renew);
    f.on_write(true, t0);
    EXPECT_TRUE(f.is_leader(t0 + 9s));
    f.on_write(false, t0 + 9s);
    EXPECT_FALSE(f.is_leader(t0 + 10s));  // renew deadline passed
}

TEST(LeaseFsm, ShortDurationFromReleaseIsHonoured) {
    LeaseFsm f(cfg());
    auto r = held_by("other", "r");
    r.duration_seconds = 1;
    EXPECT_EQ(f.decide(r, Tp{}), Act::Wait);
    EXPECT_EQ(f.decide(r, Tp{} + 1s), Act::Take);
}

TEST(MicroTime, Formats) {
    const auto t = std::chrono::system_clock::time_point(std::chrono::seconds(1767225600) + std::chrono::microseconds(42));
    EXPECT_EQ(format_micro_time(t), "2026-01-01T00:00:00.000042Z");
}

TEST(LeaderElector, AcquiresRenewsAndReleasesCleanly) {
    using test::ScriptedReply;
    asio::io_context io;
    test::ScriptedTlsServer server{io, test::pki().server_cert_pem, test::pki().server_key_pem};
    const std::string lease_me =
        R"({"kind":"Lease","metadata":{"name":"attune-manager","namespace":"attune-system","resourceVersion":"5"},)"
        R"("spec":{"holderIdentity":"me","leaseDurationSeconds":15,"acquireTime":"a","renewTime":"b","leaseTransitions":0}})";
    server.script(ScriptedReply::status(404, "NotFound", "leases \"attune-manager\" not found"));
    server.script(ScriptedReply::http(201, lease_me));
    RestConfig rc;
    rc.host = "127.0.0.1";
    rc.port = std::to_string(server.port());
    rc.tls.ca_pem = test::pki().ca_pem;
    Client c(io.get_executor(), rc);
    LeaderElector le(c, cfg());
    int started = 0, stopped = 0;
    le.on_started_leading([&] { ++started; });
    le.on_stopped_leading([&] { ++stopped; });
    test::run_coro(io, le.step());
    server.script(
        ScriptedReply::http(200, lease_me));  // read before release isn't needed; this is the release PUT answer
    test::run_coro(io, [&]() -> asio::awaitable<void> {
        // Simulate run(): became leader, then shut down.
        co_await le.release();
    }());
    const auto& r = server.requests();
    ASSERT_EQ(r.size(), 3u);
    EXPECT_EQ(r[0].method, "GET");
    EXPECT_EQ(r[1].method, "POST");
    auto created = json::parse(r[1].body);
    EXPECT_EQ(created.at("spec").at("holderIdentity").as_string(), "me");
    EXPECT_EQ(created.at("spec").at("leaseDurationSeconds").as_int64(), 15);
    EXPECT_EQ(r[2].method, "PUT");
    EXPECT_EQ(r[2].target, "/apis/coordination.k8s.io/v1/namespaces/attune-system/leases/attune-manager?fieldManager=attune");
    auto released = json::parse(r[2].body);
    EXPECT_EQ(released.at("spec").at("holderIdentity").as_string(), "");
    EXPECT_EQ(released.at("spec").at("leaseDurationSeconds").as_int64(), 1);
    EXPECT_EQ(released.at("metadata").at("resourceVersion").as_string(), "5");
}

const std::string kLeaseMe =
    R"({"kind":"Lease","metadata":{"name":"attune-manager","namespace":"attune-system","resourceVersion":"5"},)"
    R"("spec":{"holderIdentity":"me","leaseDurationSeconds":15,"acquireTime":"a","renewTime":"b","leaseTransitions":0}})";

RestConfig config_for(const test::ScriptedTlsServer& server) {
    RestConfig rc;
    rc.host = "127.0.0.1";
    rc.port = std::to_string(server.port());
    rc.tls.ca_pem = test::pki().ca_pem;
    return rc;
}

test::ScriptedReply hang() {
    test::ScriptedReply r;
    r.after = test::ScriptedReply::Then::Hang;
    return r;
}

// The renewal runs outside the shared request queue. With
// the queue's only slot held by a request the apiserver never answers, the
// lease is still read and renewed on its own connection.
TEST(LeaderElector, RenewalBypassesASharedQueueStuckBehindAHungRequest) {
    asio::io_context io;
    test::ScriptedTlsServer server{io, test::pki().server_cert_pem, test::pki().server_key_pem};
    server.script(hang());                                   // the worker's request
    server.script(test::ScriptedReply::http(200, kLeaseMe));  // lease GET
    server.script(test::ScriptedReply::http(200, kLeaseMe));  // lease PUT (renew)
    ClientSettings st;
    st.max_inflight = 1;
    st.max_queued = 4;
    Client c(io.get_executor(), config_for(server), st);
    asio::co_spawn(io, [&]() -> asio::awaitable<void> { (void)co_await c.get(resources::pods(), "ns", "stuck"); },
                   asio::detached);
    for (int i = 0; i < 200 && server.requests().empty(); ++i) io.run_for(10ms);
    ASSERT_EQ(server.requests().size(), 1u);
    LeaderElector le(c, cfg());
    test::run_coro(io, le.step());
    ASSERT_EQ(server.requests().size(), 3u);
    EXPECT_EQ(server.requests()[1].method, "GET");
    EXPECT_EQ(server.requests()[2].method, "PUT");
    EXPECT_NE(server.requests()[2].connection, server.requests()[0].connection);
    EXPECT_TRUE(le.is_leader());
}

// A renewal the apiserver never answers ends at the renew deadline instead
// of hanging in the client's timeouts and retries.
TEST(LeaderElector, AHungLeaseCallEndsAtTheRenewDeadline) {
    asio::io_context io;
    test::ScriptedTlsServer server{io, test::pki().server_cert_pem, test::pki().server_key_pem};
    server.script(hang());
    Client c(io.get_executor(), config_for(server));
    LeaderElector le(c, {"attune-system", "attune-manager", "me", 3s, 1s, 1s});
    const auto start = std::chrono::steady_clock::now();
    test::run_coro(io, le.step());
    const auto took = std::chrono::steady_clock::now() - start;
    EXPECT_GE(took, 900ms);
    EXPECT_LT(took, 2500ms);
    EXPECT_FALSE(le.is_leader());
}

// Fencing by time, not by the campaign loop: once the renew deadline has
// passed since the last successful renewal, is_leader() is false even though
// no step ran to notice, and the client refuses writes through the fence.
TEST(LeaderElector, LeadershipLapsesAtTheRenewDeadlineWithoutTheLoopNoticing) {
    asio::io_context io;
    test::ScriptedTlsServer server{io, test::pki().server_cert_pem, test::pki().server_key_pem};
    server.script(test::ScriptedReply::status(404, "NotFound", "leases \"attune-manager\" not found"));
    server.script(test::ScriptedReply::http(201, kLeaseMe));
    Client c(io.get_executor(), config_for(server));
    auto fake = LeaseFsm::Clock::time_point{} + 1000s;
    LeaderElector le(c, cfg(), nullptr, [&] { return fake; });
    c.set_write_fence([&](LeaseFsm::Clock::time_point) { return le.is_leader(); });
    test::run_coro(io, le.step());
    ASSERT_TRUE(le.is_leader());
    EXPECT_EQ(le.fence().valid_until, LeaseFsm::Clock::time_point{} + 1010s);
    fake += 9s;
    EXPECT_TRUE(le.is_leader());
    fake += 1s;  // the renew deadline (10 s) passed without a renewal
    EXPECT_FALSE(le.is_leader());
    EXPECT_FALSE(le.fence().leader);
    auto w = test::run_coro(io, c.patch(resources::pods(), "ns", "p", PatchType::JsonMerge, "{}"));
    ASSERT_FALSE(w.ok());
    EXPECT_TRUE(w.error().is_fenced());
    EXPECT_EQ(server.requests().size(), 2u);  // the lease GET and POST only
}

}  // namespace
}  // namespace attune::kube
