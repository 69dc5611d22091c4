// The worker pipeline end to end on fake caches: one workload key becomes
// two batched range queries to a scripted Prometheus, a store entry, its
// gauges and a scheduled refresh; a failed query keeps the older entry but
// marks it stale; Observe asks nothing. The apiserver is never written to
// by a worker (no pod is patched): the aggregator's writer is not running
// here, and the scripted apiserver sees no request at all.
#include <attune/controller/controller.hpp>

#include "../runtime/run_coro.hpp"
#include "../runtime/scripted_tls_server.hpp"
#include "../runtime/test_certs.hpp"

#include <boost/json/parse.hpp>

#include <prometheus/registry.h>
#include <prometheus/text_serializer.h>

#include <gtest/gtest.h>

#include "fake_caches.hpp"
#include "scripted_client.hpp"

namespace attune::controller {
namespace {
namespace json = boost::json;
using attune::test::ScriptedReply;
using attune::test::ScriptedTlsServer;
using kube::WatchEventType;

constexpr double kNow = 1'767'225'600;

std::string matrix(const char* container, double value, int points, int nan = 0) {
    std::string values;
    for (int i = 0; i < points + nan; ++i) {
        if (!values.empty()) values += ",";
        values += "[" + std::to_string(kNow - 30.0 * (points + nan - 1 - i)) + ",\"" +
                  (i < nan ? std::string("NaN") : std::to_string(value)) + "\"]";
    }
    return std::string(R"({"status":"success","data":{"resultType":"matrix","result":[{"metric":{"container":")") +
           container + R"("},"values":[)" + values + "]}]}}";
}

struct Fixture {
    boost::asio::io_context io;
    ScriptedTlsServer apiserver{io, attune::test::pki().server_cert_pem, test::pki().server_key_pem};
    ScriptedTlsServer prom{io, "", "", ScriptedTlsServer::Mode::Plain};
    std::unique_ptr<kube::Client> client = test::scripted_client(io, apiserver);
    prometheus::Registry registry;
    ControllerMetrics metrics{registry};
    test::FakeCaches caches;
    std::unique_ptr<Controller> c;

    explicit Fixture(const std::string& update_type = "Recommend") {
        caches.deployments.apply(WatchEventType::Added, json::parse(R"({"apiVersion":"apps/v1","kind":"Deployment",
          "metadata":{"namespace":"ns","name":"web","uid":"web-uid","resourceVersion":"1"},
          "spec":{"replicas":1,"template":{"spec":{"containers":[{"name":"app","resources":{"requests":{"cpu":"300m","memory":"256Mi"}}}]}}}})"));
        caches.policies
            .apply(WatchEventType::Added,
                   json::parse(
                       R"({"metadata":{"namespace":"ns","name":"p","uid":"p-uid","resourceVersion":"1","generation":1},
          "spec":{"targetRef":{"kind":"Deployment","name":"web"},"cpu":{},"memory":{},
          "updateStrategy":{"type":")" +
                       update_type + R"("},
          "metricsSource":{"minimumDataPoints":5,"queryStep":"30s","historyWindow":"1h",
                           "prometheus":{"address":"http://127.0.0.1:)" +
                       std::to_string(prom.port()) + R"("}}}})"));
        ControllerOptions o;
        o.validation.allow_local_metrics_addresses = true;
        o.prometheus.query_timeout = std::chrono::milliseconds(2000);
        c = std::make_unique<Controller>(io.get_executor(), *client, nullptr, metrics, caches.views(), o, [] {
            return std::chrono::system_clock::time_point(std::chrono::seconds(static_cast<long long>(kNow)));
        });
    }
    void process() { attune::test::run_coro(io, c->process("ns/Deployment/web")); }
    std::string text() { return prometheus::TextSerializer().Serialize(registry.Collect()); }
    const StoredRecommendation* entry() { return c->store().get({"ns", "Deployment", "web"}); }
};

TEST(ControllerPipeline, OneWorkloadIsTwoBatchedQueriesAStoreEntryAndItsGauges) {
    Fixture f;
    f.prom.script(ScriptedReply::http(200, matrix("app", 0.25, 10, 2)));
    f.prom.script(ScriptedReply::http(200, matrix("app", 104857600, 10)));
    f.process();

    const auto& r = f.prom.requests();
    ASSERT_EQ(r.size(), 2u);
    EXPECT_EQ(r[0].target, "/api/v1/query_range");
    EXPECT_NE(r[0].body.find("container_cpu_usage_seconds_total"), std::string::npos) << r[0].body;
    EXPECT_NE(r[0].body.find("step=30"), std::string::npos) << r[0].body;
    EXPECT_NE(r[1].body.find("container_memory_working_set_bytes"), std::string::npos) << r[1].body;

    const auto* e = f.entry();
    ASSERT_NE(e, nullptr);
    EXPECT_EQ(e->policy, "p");
    EXPECT_EQ(e->source, "prometheus");
    EXPECT_EQ(e->workload_uid, "web-uid");
    ASSERT_EQ(e->recommendation.containers.size(), 1u);
    EXPECT_EQ(e->recommendation.containers[0].current.cpu_request, core::Quantity::parse("300m").value());
    EXPECT_FALSE(e->recommendation.stale);

    const auto t = f.text();
    EXPECT_NE(t.find(R"(attune_recommendation_cpu_cores{container="app",namespace="ns",workload="web"})"),
              std::string::npos) << t;
    EXPECT_NE(t.find(R"(attune_confidence{container="app",namespace="ns",workload="web"})"), std::string::npos);
    EXPECT_NE(t.find(R"(attune_prometheus_query_duration_seconds_count{query_type="memory"} 1)"), std::string::npos);
    EXPECT_NE(t.find(R"(attune_nan_inf_samples_total{container="app",metric_type="cpu",namespace="ns",policy="p"} 2)"),
              std::string::npos) << t;
    EXPECT_EQ(f.c->queue().state().delayed(), 1u);  // the next refresh
    EXPECT_TRUE(f.apiserver.requests().empty());     // nothing was written, no pod patched
}

TEST(ControllerPipeline, AFailedQueryKeepsTheOlderEntryButMarksItStale) {
    Fixture f;
    f.prom.script(ScriptedReply::http(200, matrix("app", 0.25, 10)));
    f.prom.script(ScriptedReply::http(200, matrix("app", 104857600, 10)));
    f.process();
    ASSERT_NE(f.entry(), nullptr);
    const auto generation = f.entry()->generation;

    f.prom.script(ScriptedReply::http(503, "upstream unavailable"));
    f.process();
    EXPECT_EQ(f.prom.requests().size(), 3u);  // the memory query is not sent after a failed cpu query
    ASSERT_NE(f.entry(), nullptr);
    EXPECT_TRUE(f.entry()->recommendation.stale);
    EXPECT_GT(f.entry()->generation, generation);
    EXPECT_NE(f.text().find(R"(attune_prometheus_query_errors_total{namespace="ns",query_type="cpu"} 1)"),
              std::string::npos);
    EXPECT_TRUE(f.apiserver.requests().empty());
}

TEST(ControllerPipeline, AHungPrometheusIsNotAskedAgainForAWhile) {
    Fixture f;
    auto hang = ScriptedReply::http(200, "");
    hang.pieces.clear();
    hang.after = ScriptedReply::Then::Hang;
    f.prom.script(hang);
    const auto t0 = std::chrono::steady_clock::now();
    f.process();  // times out after the 2 s budget
    EXPECT_GE(std::chrono::steady_clock::now() - t0, std::chrono::milliseconds(1900));
    EXPECT_EQ(f.prom.requests().size(), 1u);
    // Another look soon after: failed at once, with the same reason, and no
    // request (a hung Prometheus holds no worker a second time).
    const auto t1 = std::chrono::steady_clock::now();
    f.process();
    EXPECT_LT(std::chrono::steady_clock::now() - t1, std::chrono::milliseconds(500));
    EXPECT_EQ(f.prom.requests().size(), 1u);
    EXPECT_EQ(f.entry(), nullptr);
}

TEST(ControllerPipeline, ObserveAsksNoSourceAndKeepsNoEntry) {
    Fixture f("Observe");
    f.process();
    EXPECT_TRUE(f.prom.requests().empty());
    EXPECT_EQ(f.entry(), nullptr);
    EXPECT_EQ(f.text().find("attune_recommendation_cpu_cores{"), std::string::npos);
}

TEST(ControllerPipeline, ADeletedWorkloadLeavesTheStoreAndItsGaugesGo) {
    Fixture f;
    f.prom.script(ScriptedReply::http(200, matrix("app", 0.25, 10)));
    f.prom.script(ScriptedReply::http(200, matrix("app", 104857600, 10)));
    f.process();
    ASSERT_NE(f.entry(), nullptr);
    f.caches.deployments.apply(WatchEventType::Deleted,
                               json::parse(R"({"metadata":{"namespace":"ns","name":"web","resourceVersion":"2"}})"));
    f.process();
    EXPECT_EQ(f.entry(), nullptr);
    EXPECT_EQ(f.text().find("attune_recommendation_cpu_cores{"), std::string::npos);
}

}  // namespace
}  // namespace attune::controller
