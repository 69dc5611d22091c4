// The aggregator coroutines against a scripted apiserver (the runtime's
// loopback TLS test server): nothing is written before a pass completes, the
// status goes to the status subresource as a merge patch, an unchanged status
// is not written again, a failed write hands the policy back for a retry, and
// a slow apiserver neither grows the inbox nor holds up aggregation: only the
// newest status is sent once it answers. Reports are applied in batches: a
// policy's status is computed once per batch window, not once per report.
#include <attune/controller/status_aggregator.hpp>

#include "../runtime/run_coro.hpp"
#include "scripted_client.hpp"

#include <boost/asio/as_tuple.hpp>
#include <boost/asio/co_spawn.hpp>
#include <boost/asio/detached.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <boost/json/parse.hpp>

#include <prometheus/registry.h>

#include <gtest/gtest.h>

namespace attune::controller {
namespace {
namespace asio = boost::asio;
namespace json = boost::json;
using namespace std::chrono_literals;
using attune::test::ScriptedReply;

const core::Timestamp kT0{std::chrono::seconds(1'767'225'600)};

WorkloadReport rep(std::string name, core::IdleKind idle) {
    WorkloadReport r;
    r.ns = "shop";
    r.kind = "Deployment";
    r.name = std::move(name);
    r.uid = r.name + "-uid";
    r.api_version = "apps/v1";
    r.idle = idle;
    r.hpa_name = "h";
    r.selected_by = {"web"};
    return r;
}

PolicyPassPlan plan(std::vector<std::string> targets) {
    PolicyPassPlan p;
    p.policy.ns = "shop";
    p.policy.name = "web";
    p.policy.generation = 3;
    p.context.generation = 3;
    p.context.uid = "web-uid";
    p.targets = std::move(targets);
    return p;
}

std::vector<std::string> keys(int n) {
    std::vector<std::string> out;
    for (int i = 0; i < n; ++i) out.push_back("shop/Deployment/w" + std::to_string(i));
    return out;
}

struct Harness {
    asio::io_context io;
    attune::test::ScriptedTlsServer server{io, attune::test::pki().server_cert_pem, test::pki().server_key_pem};
    std::unique_ptr<kube::Client> client = test::scripted_client(io, server);
    prometheus::Registry registry;
    ControllerMetrics metrics{registry};
    // Events are decided and kept here, not sent: the server sees only status writes.
    EventQueue events{io.get_executor(), nullptr, 16, &metrics, [] { return kT0; }};
    std::vector<std::pair<std::string, bool>> outcomes;
    std::unique_ptr<StatusAggregator> agg;

    // window: the aggregator's batch window (0 in the tests that are not about it).
    explicit Harness(std::chrono::milliseconds window = 0ms) {
        agg = std::make_unique<StatusAggregator>(
            io.get_executor(), *client, &events, &metrics, nullptr,
            [this](const std::string& k, bool failed) { outcomes.emplace_back(k, failed); }, [] { return kT0; });
        agg->set_batch_window(window);
        asio::co_spawn(io, agg->run(), asio::detached);
        asio::co_spawn(io, agg->run_writer(), asio::detached);
    }

    // Lets the coroutines work for a while.
    void settle(std::chrono::milliseconds d = 300ms) {
        attune::test::run_coro(io, [this, d]() -> asio::awaitable<void> {
            asio::steady_timer t(io);
            t.expires_after(d);
            co_await t.async_wait(asio::as_tuple(asio::use_awaitable));
        }());
    }
};

TEST(StatusAggregator, WritesTheStatusSubresourceOnceThePassCompletes) {
    Harness h;
    h.server.script(ScriptedReply::http(200, R"({"metadata":{"resourceVersion":"9"}})"));
    h.agg->begin_pass(plan({"shop/Deployment/a", "shop/Deployment/b"}));
    h.agg->report(rep("a", core::IdleKind::ManualZero));
    h.settle();
    EXPECT_TRUE(h.server.requests().empty()) << "wrote before b reported";

    h.agg->report(rep("b", core::IdleKind::HPAScaledToZero));
    h.settle();
    const auto& r = h.server.requests();
    ASSERT_EQ(r.size(), 1u);
    EXPECT_EQ(r[0].method, "PATCH");
    EXPECT_EQ(r[0].target.substr(0, r[0].target.find('?')),
              "/apis/attune.io/v1alpha1/namespaces/shop/attunepolicies/web/status");
    EXPECT_NE(r[0].head.find("application/merge-patch+json"), std::string::npos);
    auto body = json::parse(r[0].body);
    EXPECT_EQ(body.at("status").at("observedGeneration").as_int64(), 3);
    EXPECT_EQ(body.at("status").at("idleWorkloads").as_array().size(), 2u);
    EXPECT_EQ(body.at("status").at("workloads").at("discovered").as_int64(), 2);
    EXPECT_EQ(body.at("status").at("conditions").as_array()[0].at("reason").as_string(), "Monitoring");
    EXPECT_EQ(body.at("status").at("lastReconcileTime").as_string(), "2026-01-01T00:00:00Z");
    ASSERT_EQ(h.outcomes.size(), 1u);
    EXPECT_EQ(h.outcomes[0], std::make_pair(std::string("shop/AttunePolicy/web"), false));
    // The HPAScaledToZero Event went to the event queue, regarding the workload.
    ASSERT_EQ(h.events.pending().size(), 1u);
    EXPECT_EQ(h.events.pending()[0].reason, "HPAScaledToZero");
    EXPECT_EQ(h.events.pending()[0].regarding.name, "b");

    // The same state again: no Event, no write.
    h.agg->report(rep("b", core::IdleKind::HPAScaledToZero));
    h.settle();
    EXPECT_EQ(h.server.requests().size(), 1u);
    EXPECT_EQ(h.events.pending().size(), 1u);
}

double completions(Harness& h) { return h.metrics.passes.Add({{"result", "complete"}}).Value(); }

TEST(StatusAggregator, ABatchOfReportsCompletesEachPolicyOnce) {
    Harness h;
    h.server.script(ScriptedReply::http(200, R"({"metadata":{"resourceVersion":"9"}})"));
    h.agg->begin_pass(plan(keys(20)));
    for (int i = 0; i < 20; ++i) h.agg->report(rep("w" + std::to_string(i), core::IdleKind::None));
    h.settle();
    EXPECT_EQ(completions(h), 1.0);
    // The pass is complete; twenty reports arriving together (a resync) are
    // one completion, not twenty.
    for (int i = 0; i < 20; ++i) h.agg->report(rep("w" + std::to_string(i), core::IdleKind::None));
    h.settle();
    EXPECT_EQ(completions(h), 2.0);
}

TEST(StatusAggregator, ReportsSpreadOverAWindowCompleteThePolicyOncePerWindow) {
    Harness h(1500ms);  // far longer than the reports take, even on a loaded machine
    h.server.script(ScriptedReply::http(200, R"({"metadata":{"resourceVersion":"9"}})"));
    h.agg->begin_pass(plan(keys(10)));
    for (int i = 0; i < 10; ++i) h.agg->report(rep("w" + std::to_string(i), core::IdleKind::None));
    h.settle(50ms);
    EXPECT_EQ(completions(h), 1.0);
    // One report every 20 ms for 200 ms, all inside the window that began
    // with the first completion: applied together when it ends.
    for (int i = 0; i < 10; ++i) {
        h.agg->report(rep("w" + std::to_string(i), core::IdleKind::None));
        h.settle(20ms);
    }
    EXPECT_EQ(completions(h), 1.0) << "completed before the window ended";
    h.settle(1700ms);
    EXPECT_EQ(completions(h), 2.0);
}

TEST(StatusAggregator, FailedWriteHandsThePolicyBack) {
    Harness h;
    h.server.script(ScriptedReply::status(422, "Invalid", "nope"));
    h.agg->begin_pass(plan({"shop/Deployment/a"}));
    h.agg->report(rep("a", core::IdleKind::ManualZero));
    h.settle();
    ASSERT_EQ(h.server.requests().size(), 1u);
    ASSERT_EQ(h.outcomes.size(), 1u);
    EXPECT_TRUE(h.outcomes[0].second);
}

TEST(StatusAggregator, AForbiddenWriteIsToldInAnEventThatNamesThePermission) {
    Harness h;
    const std::string denied = "attunepolicies.attune.io \"web\" is forbidden: User \"system:serviceaccount:a:m\" "
                               "cannot patch resource \"attunepolicies/status\" in API group \"attune.io\"";
    h.server.script(ScriptedReply::status(403, "Forbidden", denied));
    h.agg->begin_pass(plan({"shop/Deployment/a"}));
    h.agg->report(rep("a", core::IdleKind::ManualZero));
    h.settle();
    ASSERT_EQ(h.outcomes.size(), 1u);
    EXPECT_TRUE(h.outcomes[0].second) << "the pass must run again";
    ASSERT_EQ(h.events.pending().size(), 1u);
    const auto& ev = h.events.pending()[0];
    EXPECT_EQ(ev.reason, "StatusWriteForbidden");
    EXPECT_EQ(ev.type, "Warning");
    EXPECT_EQ(ev.regarding.kind, "AttunePolicy");
    EXPECT_EQ(ev.regarding.name, "web");
    EXPECT_EQ(ev.regarding.uid, "web-uid");
    EXPECT_NE(ev.note.find("attunepolicies/status"), std::string::npos) << ev.note;
}

TEST(StatusAggregator, AWriteFailingForAnotherReasonSendsNoEvent) {
    Harness h;
    h.server.script(ScriptedReply::status(500, "InternalError", "etcd is sad"));
    h.agg->begin_pass(plan({"shop/Deployment/a"}));
    h.agg->report(rep("a", core::IdleKind::ManualZero));
    h.settle();
    ASSERT_EQ(h.outcomes.size(), 1u);
    EXPECT_TRUE(h.events.pending().empty());
}

TEST(StatusAggregator, ASlowApiserverNeitherGrowsTheInboxNorHoldsUpAggregation) {
    Harness h;
    auto slow = ScriptedReply::http(200, R"({"metadata":{"resourceVersion":"9"}})");
    slow.pieces[0].first = 1500ms;  // the apiserver takes 1.5 s to answer the first write
    h.server.script(slow);
    h.server.script(ScriptedReply::http(200, R"({"metadata":{"resourceVersion":"10"}})"));
    h.agg->begin_pass(plan({"shop/Deployment/a"}));
    h.agg->report(rep("a", core::IdleKind::ManualZero));
    h.settle(200ms);
    ASSERT_EQ(h.server.requests().size(), 1u);  // on the wire, unanswered

    // A thousand reports while it waits: the inbox holds the newest one only.
    for (int i = 0; i < 1000; ++i) {
        h.agg->report(rep("a", i % 2 ? core::IdleKind::None : core::IdleKind::ManualZero));
        ASSERT_LE(h.agg->backlog(), 1u);
    }
    h.settle(200ms);
    // Aggregation went on: the newest state (active) is computed already, and
    // one write, the newest, waits behind the slow one.
    EXPECT_EQ(h.agg->backlog(), 0u);
    ASSERT_NE(h.agg->latest("shop", "web"), nullptr);
    EXPECT_TRUE(h.agg->latest("shop", "web")->idle_workloads.empty());
    EXPECT_EQ(h.agg->pending_writes(), 1u);
    EXPECT_EQ(h.server.requests().size(), 1u);

    h.settle(2000ms);
    const auto& r = h.server.requests();
    ASSERT_EQ(r.size(), 2u);
    EXPECT_TRUE(json::parse(r[1].body).at("status").at("idleWorkloads").as_array().empty());
    EXPECT_EQ(h.agg->pending_writes(), 0u);
}

}  // namespace
}  // namespace attune::controller
