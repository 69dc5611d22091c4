// doctor's webhook row: not installed, caBundle valid / expired / garbage,
// endpoints reachable or not; and the caBundle's certificates read with OpenSSL.
#include "doctor_webhook.hpp"
#include "pem_certificates.hpp"

#include "../runtime/test_certs.hpp"

#include <attune/kube/base64.hpp>

#include <boost/json.hpp>

#include <gtest/gtest.h>

#include <ctime>

namespace attune::cli {
namespace {
namespace json = boost::json;

bool has(const std::string& s, const std::string& part) { return s.find(part) != std::string::npos; }

json::value mwc(std::string ca_bundle_b64, bool url = true) {
    json::object cc;
    if (url)
        cc["url"] = "https://127.0.0.1:16448/mutate-v1-pod";
    else
        cc["service"] = json::object{{"namespace", "attune-system"}, {"name", "attune-webhook"}, {"path", "/mutate-v1-pod"}};
    if (!ca_bundle_b64.empty()) cc["caBundle"] = ca_bundle_b64;
    return json::object{{"metadata", json::object{{"name", "attune-webhook"}}},
                        {"webhooks", json::array{json::object{{"name", "pods.attune.io"}, {"clientConfig", cc}}}}};
}

const core::Timestamp kNow{std::chrono::seconds(1'800'000'000)};

webhook_check check(std::int64_t not_before, std::int64_t not_after, bool reachable) {
    webhook_check k;
    k.ca = {certificate_validity{not_before, not_after}};
    k.reachable = reachable;
    k.endpoint = "https://127.0.0.1:16448/mutate-v1-pod";
    k.endpoint_detail = reachable ? "answers over TLS verified by the caBundle (HTTP 400 to a GET)" : "not reachable (connect)";
    return k;
}

TEST(DoctorWebhookRow, Table) {
    const std::int64_t t = kNow.time_since_epoch().count();
    const auto present = object_lookup::of(mwc(kube::base64_encode("PEM")));
    struct Case {
        const char* name;
        object_lookup mwc;
        std::vector<webhook_check> checks;
        doctor_status status;
        const char* in_detail;
    } cases[] = {
        {"not installed", object_lookup::failed(404, "404"), {}, doctor_status::warn, "not installed"},
        {"forbidden", object_lookup::failed(403, "403"), {}, doctor_status::warn, "forbidden"},
        {"healthy", present, {check(t - 86400, t + 30 * 86400, true)}, doctor_status::ok, "caBundle valid 30d more"},
        {"expired", present, {check(t - 90 * 86400, t - 2 * 86400, true)}, doctor_status::fail, "caBundle expired 2d ago"},
        {"not yet valid", present, {check(t + 3600, t + 86400, true)}, doctor_status::fail, "not valid yet"},
        {"no certificate in the bundle", present, {webhook_check{}}, doctor_status::fail, "holds no PEM certificate"},
        {"unreachable", present, {check(t - 10, t + 86400, false)}, doctor_status::warn, "not reachable"},
        {"no caBundle", object_lookup::of(mwc("")), {webhook_check{}}, doctor_status::fail, "no caBundle"},
        {"bad base64", object_lookup::of(mwc("%%%")), {webhook_check{}}, doctor_status::fail, "not base64"},
    };
    for (const auto& c : cases) {
        const auto r = webhook_row(c.mwc, "attune-webhook", c.checks, kNow);
        EXPECT_EQ(r.status, c.status) << c.name << ": " << r.detail;
        EXPECT_FALSE(r.required);
        EXPECT_TRUE(has(r.detail, c.in_detail)) << c.name << ": " << r.detail;
    }
}

TEST(DoctorWebhookRow, ARotationBundleIsValidWhileOneCaIs) {
    const std::int64_t t = kNow.time_since_epoch().count();
    webhook_check k = check(t - 400 * 86400, t - 86400, true);  // the old CA, expired
    k.ca.push_back({t - 86400, t + 365 * 86400});               // the new one
    const auto r = webhook_row(object_lookup::of(mwc(kube::base64_encode("PEM"))), "attune-webhook", std::vector{k}, kNow);
    EXPECT_EQ(r.status, doctor_status::ok) << r.detail;
}

TEST(WebhookClients, UrlAndServiceClientConfigs) {
    const auto url = webhook_clients(mwc(kube::base64_encode("pem text")));
    ASSERT_EQ(url.size(), 1u);
    EXPECT_EQ(url[0].webhook, "pods.attune.io");
    EXPECT_EQ(url[0].url, "https://127.0.0.1:16448/mutate-v1-pod");
    EXPECT_EQ(url[0].ca_bundle_pem, "pem text");
    const auto svc = webhook_clients(mwc(kube::base64_encode("x"), false));
    ASSERT_EQ(svc.size(), 1u);
    EXPECT_EQ(svc[0].service_ns, "attune-system");
    EXPECT_EQ(svc[0].service_name, "attune-webhook");
    EXPECT_EQ(svc[0].service_port, 443);
    EXPECT_TRUE(webhook_clients(json::object{}).empty());
}

TEST(PemCertificates, ReadsEveryCertificateOfABundle) {
    const auto& ca = test::pki().ca_pem;
    const auto one = certificate_validities(ca);
    ASSERT_EQ(one.size(), 1u);
    const auto now = static_cast<std::int64_t>(std::time(nullptr));
    EXPECT_LE(one[0].not_before, now);
    EXPECT_GT(one[0].not_after, now);  // the test CA lives two days
    EXPECT_EQ(certificate_validities(ca + test::pki().server_cert_pem).size(), 2u);
    EXPECT_TRUE(certificate_validities("not a certificate").empty());
    EXPECT_TRUE(certificate_validities("").empty());
}

}  // namespace
}  // namespace attune::cli
