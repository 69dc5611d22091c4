// The export writer against a scripted apiserver (the runtime's loopback TLS
// test server): a first write is a merge patch that falls back to a create,
// the same generation is not written twice, a workload that left its policy
// has its ConfigMap deleted, and a refused write is an ExportFailed Event
// naming what the apiserver refused, tried again after the retry delay.
#include <attune/controller/recommendation_exporter.hpp>

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
const std::string kPath = "/api/v1/namespaces/shop/configmaps/web-policy-web-recommendations";

StoredRecommendation entry(std::uint64_t generation, bool export_on = true) {
    auto eff = std::make_shared<core::EffectivePolicy>();
    eff->update_strategy.export_.config_map = export_on;
    StoredRecommendation e;
    e.workload = {"shop", "Deployment", "web"};
    e.workload_uid = "web-uid";
    e.policy = "web-policy";
    e.effective = std::move(eff);
    core::ContainerRecommendation c;
    c.name = "app";
    c.recommended.cpu_request = core::Quantity::from_milli(250);
    c.recommended.memory_request = core::Quantity::from_value(128 << 20, core::Quantity::Format::BinarySI);
    c.confidence = 0.5;
    e.recommendation.containers = {c};
    e.computed_at = kT0;
    e.generation = generation;
    return e;
}

const kube::ObjectReference kPolicy{"attune.io/v1alpha1", "AttunePolicy", "shop", "web-policy", "policy-uid"};

struct Harness {
    asio::io_context io;
    attune::test::ScriptedTlsServer server{io, attune::test::pki().server_cert_pem, test::pki().server_key_pem};
    std::unique_ptr<kube::Client> client = test::scripted_client(io, server);
    prometheus::Registry registry;
    ControllerMetrics metrics{registry};
    EventQueue events{io.get_executor(), nullptr, 16, &metrics, [] { return kT0; }};
    RecommendationExporter exporter{io.get_executor(), *client, events, [] { return kT0 + std::chrono::seconds(5); },
                                    400ms};

    Harness() { asio::co_spawn(io, exporter.run(), asio::detached); }

    void settle(std::chrono::milliseconds d = 300ms) {
        attune::test::run_coro(io, [this, d]() -> asio::awaitable<void> {
            asio::steady_timer t(io);
            t.expires_after(d);
            co_await t.async_wait(asio::as_tuple(asio::use_awaitable));
        }());
    }
};

std::string path_of(const attune::test::RecordedRequest& r) { return r.target.substr(0, r.target.find('?')); }

TEST(RecommendationExporter, MergePatchesAndCreatesWhenMissingThenWritesEachGenerationOnce) {
    Harness h;
    h.server.script(ScriptedReply::status(404, "NotFound", "configmaps \"web-policy-web-recommendations\" not found"));
    h.server.script(ScriptedReply::http(201, R"({"metadata":{"resourceVersion":"7"}})"));
    h.exporter.recommended(entry(1), kPolicy, "");
    h.settle();
    const auto& r = h.server.requests();
    ASSERT_EQ(r.size(), 2u);
    EXPECT_EQ(r[0].method, "PATCH");
    EXPECT_EQ(path_of(r[0]), kPath);
    EXPECT_NE(r[0].head.find("application/merge-patch+json"), std::string::npos);
    EXPECT_EQ(r[1].method, "POST");
    EXPECT_EQ(path_of(r[1]), "/api/v1/namespaces/shop/configmaps");
    const auto body = json::parse(r[1].body);
    EXPECT_EQ(body.at("data").at("app.cpu-request"), "250m");
    EXPECT_EQ(body.at("data").at("last-updated"), "2026-01-01T00:00:05Z");
    EXPECT_EQ(body.at("metadata").at("ownerReferences").at(0).at("uid"), "policy-uid");

    // The same generation again (a refresh): nothing is sent.
    h.exporter.recommended(entry(1), kPolicy, "");
    h.settle();
    EXPECT_EQ(h.server.requests().size(), 2u);
    // A new one: one merge patch.
    h.server.script(ScriptedReply::http(200, R"({"metadata":{"resourceVersion":"8"}})"));
    h.exporter.recommended(entry(2), kPolicy, "");
    h.settle();
    ASSERT_EQ(h.server.requests().size(), 3u);
    EXPECT_EQ(h.server.requests()[2].method, "PATCH");
    EXPECT_TRUE(h.events.pending().empty());
}

TEST(RecommendationExporter, APolicyWithoutExportWritesNothing) {
    Harness h;
    h.exporter.recommended(entry(1, false), kPolicy, "");
    h.exporter.workload_left(entry(1, false));
    h.settle();
    EXPECT_TRUE(h.server.requests().empty());
}

TEST(RecommendationExporter, AWorkloadThatLeftHasItsConfigMapDeleted) {
    Harness h;
    h.server.script(ScriptedReply::http(200, R"({"metadata":{"resourceVersion":"8"}})"));
    h.exporter.recommended(entry(1), kPolicy, "");
    h.settle();
    h.server.script(ScriptedReply::http(200, R"({"kind":"Status","status":"Success"})"));
    h.exporter.workload_left(entry(1));
    h.settle();
    const auto& r = h.server.requests();
    ASSERT_EQ(r.size(), 2u);
    EXPECT_EQ(r[1].method, "DELETE");
    EXPECT_EQ(path_of(r[1]), kPath);
}

TEST(RecommendationExporter, ARefusedWriteIsAnEventNamingTheResourceAndIsTriedAgainLater) {
    Harness h;
    const std::string denied = "configmaps \"web-policy-web-recommendations\" is forbidden: User "
                               "\"system:serviceaccount:attune-system:attune-manager\" cannot patch resource "
                               "\"configmaps\" in API group \"\" in the namespace \"shop\"";
    h.server.script(ScriptedReply::status(403, "Forbidden", denied));
    h.server.script(ScriptedReply::http(200, R"({"metadata":{"resourceVersion":"9"}})"));
    h.exporter.recommended(entry(1), kPolicy, "");
    h.settle(200ms);
    ASSERT_EQ(h.server.requests().size(), 1u) << "retried before the delay";
    ASSERT_EQ(h.events.pending().size(), 1u);
    const auto& ev = h.events.pending()[0];
    EXPECT_EQ(ev.reason, "ExportFailed");
    EXPECT_EQ(ev.type, "Warning");
    EXPECT_EQ(ev.regarding.name, "web-policy");
    EXPECT_NE(ev.note.find("\"configmaps\""), std::string::npos) << ev.note;
    // After the retry delay (400 ms here) it goes through, once.
    h.settle(600ms);
    ASSERT_EQ(h.server.requests().size(), 2u);
    EXPECT_EQ(h.server.requests()[1].method, "PATCH");
    h.settle(600ms);
    EXPECT_EQ(h.server.requests().size(), 2u);
    EXPECT_EQ(h.exporter.pending(), 0u);
}

TEST(RecommendationExporter, ADeleteSupersedesAWriteWaitingForItsRetry) {
    Harness h;
    h.server.script(ScriptedReply::status(403, "Forbidden", "configmaps is forbidden"));
    h.server.script(ScriptedReply::http(200, R"({"kind":"Status","status":"Success"})"));
    h.exporter.recommended(entry(1), kPolicy, "");
    h.settle(100ms);
    h.exporter.workload_left(entry(1));
    h.settle(900ms);  // past the 400 ms retry delay
    const auto& r = h.server.requests();
    ASSERT_EQ(r.size(), 2u);
    EXPECT_EQ(r[0].method, "PATCH");
    EXPECT_EQ(r[1].method, "DELETE");
}

TEST(RecommendationExporter, ANameTheApiserverWouldRefuseIsNeverSent) {
    Harness h;
    auto e = entry(1);
    e.workload.name = std::string(64, 'w');
    h.exporter.recommended(e, kPolicy, "");
    h.settle();
    EXPECT_TRUE(h.server.requests().empty());
    ASSERT_EQ(h.events.pending().size(), 1u);
    EXPECT_EQ(h.events.pending()[0].reason, "ExportFailed");
    EXPECT_NE(h.events.pending()[0].note.find("at most 63"), std::string::npos) << h.events.pending()[0].note;
}

}  // namespace
}  // namespace attune::controller
