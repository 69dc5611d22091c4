// The aggregator coroutine against a scripted apiserver (the runtime's
// loopback TLS test server): nothing is written before a pass completes, the
// status goes to the status subresource as a merge patch, an unchanged status
// is not written again, and a failed write hands the policy back for a retry.
#include <attune/controller/status_aggregator.hpp>

#include "../runtime/run_coro.hpp"
#include "../runtime/scripted_tls_server.hpp"
#include "../runtime/test_certs.hpp"

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
using test::scripted_reply;

workload_report rep(std::string name, core::IdleKind idle) {
    workload_report r;
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

policy_pass_plan plan(std::vector<std::string> targets) {
    policy_pass_plan p;
    p.policy.ns = "shop";
    p.policy.name = "web";
    p.policy.generation = 3;
    p.targets = std::move(targets);
    return p;
}

struct harness {
    asio::io_context io;
    test::scripted_tls_server server{io, test::pki().server_cert_pem, test::pki().server_key_pem};
    std::unique_ptr<kube::client> client;
    std::unique_ptr<kube::event_recorder> events;
    prometheus::Registry registry;
    controller_metrics metrics{registry};
    std::vector<std::pair<std::string, bool>> outcomes;
    std::unique_ptr<status_aggregator> agg;

    harness() {
        kube::rest_config rc;
        rc.host = "127.0.0.1";
        rc.port = std::to_string(server.port());
        rc.tls.ca_pem = test::pki().ca_pem;
        kube::client_settings s;
        s.retry.max_retries = 0;
        client = std::make_unique<kube::client>(io.get_executor(), rc, s);
        events = std::make_unique<kube::event_recorder>(*client, "attune.io/attune-manager", "test");
        agg = std::make_unique<status_aggregator>(io.get_executor(), *client, events.get(), &metrics,
                                                  [this](const std::string& k, bool failed) {
                                                      outcomes.emplace_back(k, failed);
                                                  });
        asio::co_spawn(io, agg->run(), asio::detached);
    }

    // Lets the aggregator work for a while, then stops it.
    void settle() {
        test::run_coro(io, [this]() -> asio::awaitable<void> {
            asio::steady_timer t(io);
            t.expires_after(300ms);
            co_await t.async_wait(asio::as_tuple(asio::use_awaitable));
        }());
    }
};

TEST(StatusAggregator, WritesTheStatusSubresourceOnceThePassCompletes) {
    harness h;
    h.server.script(scripted_reply::http(201, "{}"));  // the HPAScaledToZero Event
    h.server.script(scripted_reply::http(200, R"({"metadata":{"resourceVersion":"9"}})"));
    h.agg->begin_pass(plan({"shop/Deployment/a", "shop/Deployment/b"}));
    h.agg->report(rep("a", core::IdleKind::ManualZero));
    h.settle();
    EXPECT_TRUE(h.server.requests().empty()) << "wrote before b reported";

    h.agg->report(rep("b", core::IdleKind::HPAScaledToZero));
    h.settle();
    const auto& r = h.server.requests();
    ASSERT_EQ(r.size(), 2u);
    EXPECT_EQ(r[0].method, "POST");
    EXPECT_NE(r[0].target.find("/apis/events.k8s.io/v1/namespaces/shop/events"), std::string::npos);
    EXPECT_EQ(json::parse(r[0].body).at("reason").as_string(), "HPAScaledToZero");
    EXPECT_EQ(r[1].method, "PATCH");
    EXPECT_EQ(r[1].target.substr(0, r[1].target.find('?')),
              "/apis/attune.io/v1alpha1/namespaces/shop/attunepolicies/web/status");
    EXPECT_NE(r[1].head.find("application/merge-patch+json"), std::string::npos);
    auto body = json::parse(r[1].body);
    EXPECT_EQ(body.at("status").at("observedGeneration").as_int64(), 3);
    EXPECT_EQ(body.at("status").at("idleWorkloads").as_array().size(), 2u);
    ASSERT_EQ(h.outcomes.size(), 1u);
    EXPECT_EQ(h.outcomes[0], std::make_pair(std::string("shop/AttunePolicy/web"), false));

    // The same state again: no Event, no write.
    h.agg->report(rep("b", core::IdleKind::HPAScaledToZero));
    h.settle();
    EXPECT_EQ(h.server.requests().size(), 2u);
}

TEST(StatusAggregator, FailedWriteHandsThePolicyBack) {
    harness h;
    h.server.script(scripted_reply::status(422, "Invalid", "nope"));
    h.agg->begin_pass(plan({"shop/Deployment/a"}));
    h.agg->report(rep("a", core::IdleKind::ManualZero));
    h.settle();
    ASSERT_EQ(h.server.requests().size(), 1u);
    ASSERT_EQ(h.outcomes.size(), 1u);
    EXPECT_TRUE(h.outcomes[0].second);
}

}  // namespace
}  // namespace attune::controller
