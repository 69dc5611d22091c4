// The certificate keeper against a stateful fake apiserver, with a fake clock.
#include "../runtime/run_coro.hpp"
#include "../runtime/test_certs.hpp"
#include "fake_apiserver.hpp"

#include <attune/core/util/base64.hpp>
#include <attune/webhook/certificate_keeper.hpp>

#include <boost/asio/io_context.hpp>
#include <boost/json.hpp>

#include <gtest/gtest.h>

namespace attune::webhook {
namespace {
using namespace std::chrono_literals;
namespace asio = boost::asio;
namespace json = boost::json;
using test::run_coro;

constexpr const char* kSecret = "/api/v1/namespaces/attune-system/secrets/attune-webhook-tls";
constexpr const char* kMwc = "/apis/admissionregistration.k8s.io/v1/mutatingwebhookconfigurations/attune-webhook";

json::value mwc() {
    return json::parse(R"({"apiVersion":"admissionregistration.k8s.io/v1","kind":"MutatingWebhookConfiguration",
      "metadata":{"name":"attune-webhook"},
      "webhooks":[
        {"name":"pods.attune.io","clientConfig":{"service":{"namespace":"attune-system","name":"attune-webhook","path":"/mutate-v1-pod"}}},
        {"name":"workloads.attune.io","clientConfig":{"service":{"namespace":"attune-system","name":"attune-webhook","path":"/mutate-apps-v1-workloads"}}}]})");
}

struct KeeperTest : ::testing::Test {
    asio::io_context io;
    test::FakeApiserver api{io};
    std::shared_ptr<WebhookMetrics> metrics = WebhookMetrics::standalone();
    std::int64_t clock = 1'800'000'000;

    KeeperTest() { api.put(kMwc, mwc()); }

    kube::Client make_client() {
        kube::RestConfig c;
        c.host = "127.0.0.1";
        c.port = std::to_string(api.port());
        c.tls.ca_pem = test::pki().ca_pem;
        c.credentials = kube::TokenSource::fixed("t");
        kube::ClientSettings s;
        s.qps = 1000;
        s.burst = 1000;
        s.retry.max_retries = 0;
        return kube::Client(io.get_executor(), c, s);
    }

    CertificateKeeperOptions options(std::string url = "") const {
        CertificateKeeperOptions o;
        o.ns = "attune-system";
        o.names.dns = {"attune-webhook.attune-system.svc"};
        o.names.ips = {"127.0.0.1"};
        o.url = std::move(url);
        o.rotation.ca_validity = 3000s;
        o.rotation.serving_validity = 900s;
        o.rotation.ca_overlap = 300s;
        return o;
    }

    std::string secret(const char* key) const {
        const auto* s = api.get(kSecret);
        if (!s) return "";
        const auto* v = s->at("data").as_object().if_contains(key);
        return v ? *core::base64_decode(v->as_string()) : "";
    }
    std::string ca_bundle_of(std::size_t hook) const {
        const auto& cc = api.get(kMwc)->at("webhooks").at(hook).at("clientConfig").as_object();
        const auto* b = cc.if_contains("caBundle");
        return b ? *core::base64_decode(b->as_string()) : "";
    }
};

// One replica: its client, server and keeper (constructed in place; the
// keeper refers to the other two).
struct Replica {
    Replica(KeeperTest& t, std::string url = "")
        : client(t.make_client()),
          server(t.io.get_executor(), [](const http::ServerRequest&) { return http::ServerReply(); }, {}),
          keeper(client, server, t.options(std::move(url)), *t.metrics, [&t] { return t.clock; }) {}
    kube::Client client;
    http::HttpsServer server;
    CertificateKeeper keeper;
};

TEST_F(KeeperTest, BootstrapCreatesTheSecretServesItAndPublishesTheCa) {
    Replica a(*this);
    const auto r = run_coro(io, a.keeper.sync());
    ASSERT_TRUE(r.ok) << r.error;
    EXPECT_EQ(api.count("POST", "/api/v1/namespaces/attune-system/secrets"), 1);
    const auto ca = secret("ca.crt");
    ASSERT_FALSE(ca.empty());
    EXPECT_TRUE(signed_by(secret("tls.crt"), ca));
    EXPECT_TRUE(covers_names(secret("tls.crt"), options().names));
    EXPECT_TRUE(key_matches(secret("tls.crt"), secret("tls.key")));
    EXPECT_EQ(api.get(kSecret)->at("type"), "kubernetes.io/tls");
    EXPECT_EQ(secret("ca-bundle.crt"), ca);
    EXPECT_TRUE(a.keeper.loaded());
    EXPECT_EQ(a.server.stats().certificate_generation, 1u);
    for (std::size_t i = 0; i < 2; ++i) EXPECT_EQ(ca_bundle_of(i), ca);
    // clientConfig.service stays when no url is configured.
    EXPECT_TRUE(api.get(kMwc)->at("webhooks").at(0).at("clientConfig").as_object().contains("service"));
    // The serving renewal: a third of its lifetime (900 s plus 90 s backdated) before expiry.
    EXPECT_EQ(r.next_at, clock + 570);
}

TEST_F(KeeperTest, UrlModeWritesTheUrlWithEachWebhooksPath) {
    Replica a(*this, "https://127.0.0.1:16568");
    ASSERT_TRUE(run_coro(io, a.keeper.sync()).ok);
    const auto& hooks = api.get(kMwc)->at("webhooks");
    EXPECT_EQ(hooks.at(0).at("clientConfig").at("url"), "https://127.0.0.1:16568/mutate-v1-pod");
    EXPECT_EQ(hooks.at(1).at("clientConfig").at("url"), "https://127.0.0.1:16568/mutate-apps-v1-workloads");
    EXPECT_FALSE(hooks.at(0).at("clientConfig").as_object().contains("service"));
    EXPECT_EQ(ca_bundle_of(0), secret("ca.crt"));
    // Idempotent: a second pass writes nothing.
    const int patches = api.count("PATCH", kMwc);
    ASSERT_TRUE(run_coro(io, a.keeper.sync()).ok);
    EXPECT_EQ(api.count("PATCH", kMwc), patches);
}

TEST_F(KeeperTest, TheValidatingConfigurationOfTheSameNameGetsTheBundleToo) {
    constexpr const char* kVwc = "/apis/admissionregistration.k8s.io/v1/validatingwebhookconfigurations/attune-webhook";
    // Absent (an install from before the policy webhooks): not an error.
    Replica a(*this, "https://127.0.0.1:16568");
    ASSERT_TRUE(run_coro(io, a.keeper.sync()).ok);
    api.put(kVwc,
            json::parse(R"({"apiVersion":"admissionregistration.k8s.io/v1","kind":"ValidatingWebhookConfiguration",
      "metadata":{"name":"attune-webhook"},
      "webhooks":[{"name":"policies.attune.io","clientConfig":{"service":{"namespace":"attune-system",
        "name":"attune-webhook","path":"/validate-attunepolicy"}}}]})"));
    ASSERT_TRUE(run_coro(io, a.keeper.sync()).ok);
    const auto& cc = api.get(kVwc)->at("webhooks").at(0).at("clientConfig");
    EXPECT_EQ(cc.at("url"), "https://127.0.0.1:16568/validate-attunepolicy");
    EXPECT_EQ(*core::base64_decode(cc.at("caBundle").as_string()), secret("ca.crt"));
    // Any other failure to read it fails the pass, as for the mutating one.
    api.fail_next("GET", kVwc, 500);
    EXPECT_FALSE(run_coro(io, a.keeper.sync()).ok);
}

TEST_F(KeeperTest, EveryReplicaServesTheSameCertificate) {
    Replica a(*this), b(*this);
    ASSERT_TRUE(run_coro(io, a.keeper.sync()).ok);
    const int writes = api.count("POST", "/api") + api.count("PUT", "/api");
    ASSERT_TRUE(run_coro(io, b.keeper.sync()).ok);
    EXPECT_EQ(api.count("POST", "/api") + api.count("PUT", "/api"), writes);  // b only reads
    EXPECT_TRUE(b.keeper.loaded());
    EXPECT_EQ(b.server.stats().certificate_generation, 1u);
}

TEST_F(KeeperTest, LosingTheCreateRaceTakesTheWinnersCertificate) {
    // Another replica creates the Secret while b's own create is on its way:
    // b's create gets 409 AlreadyExists, and b serves the winner's certificate.
    const auto ca = generate_ca("winner-ca", clock - 60, clock + 3000);
    const auto srv = issue_serving_certificate(ca, options().names, clock - 60, clock + 900);
    bool raced = false;
    api.before = [&](const std::string& method, const std::string&) {
        if (method != "POST" || raced) return;
        raced = true;
        json::object data{{"tls.crt", core::base64_encode(srv.cert_pem)}, {"tls.key", core::base64_encode(srv.key_pem)},
                          {"ca.crt", core::base64_encode(ca.cert_pem)},   {"ca.key", core::base64_encode(ca.key_pem)},
                          {"ca-bundle.crt", core::base64_encode(ca.cert_pem)}};
        json::object secret{{"apiVersion", "v1"}, {"kind", "Secret"}, {"type", "kubernetes.io/tls"},
                            {"metadata", json::object{{"name", "attune-webhook-tls"}, {"namespace", "attune-system"}}},
                            {"data", std::move(data)}};
        api.put(kSecret, std::move(secret));
    };
    Replica b(*this);
    const auto r = run_coro(io, b.keeper.sync());
    ASSERT_TRUE(r.ok) << r.error;
    ASSERT_EQ(api.calls().size() >= 3, true);
    EXPECT_EQ(api.count("POST", "/api/v1/namespaces/attune-system/secrets"), 1);
    bool saw_conflict = false;
    for (const auto& c : api.calls()) saw_conflict = saw_conflict || (c.method == "POST" && c.status == 409);
    EXPECT_TRUE(saw_conflict);
    EXPECT_EQ(secret("tls.crt"), srv.cert_pem);  // nothing overwrote the winner
    EXPECT_TRUE(b.keeper.loaded());
    EXPECT_EQ(ca_bundle_of(0), ca.cert_pem);
}

TEST_F(KeeperTest, ServingRenewalKeepsTheCaAndHotReloads) {
    Replica a(*this);
    ASSERT_TRUE(run_coro(io, a.keeper.sync()).ok);
    const auto ca = secret("ca.crt");
    const auto first = secret("tls.crt");
    clock += 569;
    ASSERT_TRUE(run_coro(io, a.keeper.sync()).ok);
    EXPECT_EQ(secret("tls.crt"), first);  // not due yet
    clock += 1;
    ASSERT_TRUE(run_coro(io, a.keeper.sync()).ok);
    EXPECT_NE(secret("tls.crt"), first);
    EXPECT_EQ(secret("ca.crt"), ca);
    EXPECT_EQ(ca_bundle_of(0), ca);
    EXPECT_EQ(a.server.stats().certificate_generation, 2u);
}

TEST_F(KeeperTest, ACaRotationPublishesTheNextCaBeforeItSigns) {
    Replica a(*this), b(*this);
    ASSERT_TRUE(run_coro(io, a.keeper.sync()).ok);
    const auto ca1 = secret("ca.crt");
    // CA renewal due (a third of 3000 s before expiry).
    clock += 2000;
    ASSERT_TRUE(run_coro(io, a.keeper.sync()).ok);
    const auto ca2 = secret("next-ca.crt");
    ASSERT_FALSE(ca2.empty());
    EXPECT_EQ(secret("ca.crt"), ca1);
    EXPECT_TRUE(signed_by(secret("tls.crt"), ca1));  // still the old CA
    EXPECT_EQ(split_bundle(ca_bundle_of(0)).size(), 2u);
    EXPECT_EQ(ca_bundle_of(0), ca1 + ca2);
    // Before the overlap ends nothing moves; b sees the same state.
    clock += 299;
    ASSERT_TRUE(run_coro(io, b.keeper.sync()).ok);
    EXPECT_EQ(secret("ca.crt"), ca1);
    // After it, the next CA signs; the old one stays trusted.
    clock += 1;
    ASSERT_TRUE(run_coro(io, b.keeper.sync()).ok);
    EXPECT_EQ(secret("ca.crt"), ca2);
    EXPECT_TRUE(secret("next-ca.crt").empty());
    EXPECT_TRUE(signed_by(secret("tls.crt"), ca2));
    EXPECT_EQ(ca_bundle_of(1), ca1 + ca2);
    // a picks the new serving certificate up on its next pass.
    ASSERT_TRUE(run_coro(io, a.keeper.sync()).ok);
    EXPECT_EQ(a.server.stats().certificate_generation, 3u);  // bootstrap, staging pass (renewal), promotion
    // When ca1 expires it leaves the bundle.
    clock += 700;
    ASSERT_TRUE(run_coro(io, a.keeper.sync()).ok);
    EXPECT_EQ(ca_bundle_of(0), ca2);
}

TEST_F(KeeperTest, APIFailuresAreReportedNotThrown) {
    Replica a(*this);
    api.fail_next("GET", kSecret, 500);
    auto r = run_coro(io, a.keeper.sync());
    EXPECT_FALSE(r.ok);
    EXPECT_NE(r.error.find("reading Secret attune-system/attune-webhook-tls"), std::string::npos) << r.error;
    EXPECT_FALSE(a.keeper.loaded());
    // Without our MutatingWebhookConfiguration the certificate still serves.
    Replica b(*this);
    api.fail_next("GET", kMwc, 404);
    r = run_coro(io, b.keeper.sync());
    EXPECT_FALSE(r.ok);
    EXPECT_NE(r.error.find("MutatingWebhookConfiguration attune-webhook"), std::string::npos) << r.error;
    EXPECT_TRUE(b.keeper.loaded());
}

TEST_F(KeeperTest, AnEmptySecretShippedByKustomizeIsFilledIn) {
    json::value empty = json::parse(R"({"apiVersion":"v1","kind":"Secret","type":"kubernetes.io/tls",
      "metadata":{"name":"attune-webhook-tls","namespace":"attune-system"},"data":{"tls.crt":"","tls.key":""}})");
    api.put(kSecret, empty);
    Replica a(*this);
    ASSERT_TRUE(run_coro(io, a.keeper.sync()).ok);
    EXPECT_EQ(api.count("PUT", kSecret), 1);
    EXPECT_EQ(api.count("POST", "/api"), 0);
    EXPECT_TRUE(signed_by(secret("tls.crt"), secret("ca.crt")));
}

}  // namespace
}  // namespace attune::webhook
