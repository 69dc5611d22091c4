// doctor's webhook rows (the mutating and the validating configuration):
// not installed, caBundle valid / expired / garbage, endpoints reachable or
// not.
#include "doctor_webhook.hpp"

#include <attune/core/util/base64.hpp>

#include <boost/json.hpp>

#include <gtest/gtest.h>


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

WebhookCheck check(std::int64_t not_before, std::int64_t not_after, bool reachable) {
    WebhookCheck k;
    k.ca = {core::CertificateInfo{not_before, not_after, "fp"}};
    k.reachable = reachable;
    k.endpoint = "https://127.0.0.1:16448/mutate-v1-pod";
    k.endpoint_detail = reachable ? "answers over TLS verified by the caBundle (HTTP 400 to a GET)" : "not reachable (connect)";
    return k;
}

TEST(DoctorWebhookRow, Table) {
    const std::int64_t t = kNow.time_since_epoch().count();
    const auto present = ObjectLookup::of(mwc(core::base64_encode("PEM")));
    struct Case {
        const char* name;
        ObjectLookup mwc;
        std::vector<WebhookCheck> checks;
        DoctorStatus status;
        const char* in_detail;
    } cases[] = {
        {"not installed", ObjectLookup::failed(404, "404"), {}, DoctorStatus::Warn, "not installed"},
        {"forbidden", ObjectLookup::failed(403, "403"), {}, DoctorStatus::Warn, "forbidden"},
        {"healthy", present, {check(t - 86400, t + 30 * 86400, true)}, DoctorStatus::Ok, "caBundle valid 30d more"},
        {"expired",
         present,
         {check(t - 90 * 86400, t - 2 * 86400, true)},
         DoctorStatus::Fail,
         "caBundle expired 2d ago"},
        {"not yet valid", present, {check(t + 3600, t + 86400, true)}, DoctorStatus::Fail, "not valid yet"},
        {"no certificate in the bundle", present, {WebhookCheck{}}, DoctorStatus::Fail, "holds no PEM certificate"},
        {"unreachable", present, {check(t - 10, t + 86400, false)}, DoctorStatus::Warn, "not reachable"},
        {"no caBundle", ObjectLookup::of(mwc("")), {WebhookCheck{}}, DoctorStatus::Fail, "no caBundle"},
        {"bad base64", ObjectLookup::of(mwc("%%%")), {WebhookCheck{}}, DoctorStatus::Fail, "not base64"},
    };
    for (const auto& c : cases) {
        for (const auto kind : {WebhookConfigurationKind::Mutating, WebhookConfigurationKind::Validating}) {
            const auto r = webhook_row(kind, c.mwc, "attune-webhook", c.checks, kNow);
            EXPECT_EQ(r.name, kind == WebhookConfigurationKind::Mutating ? "webhook" : "policy-webhook");
            EXPECT_EQ(r.status, c.status) << c.name << ": " << r.detail;
            EXPECT_FALSE(r.required);
            EXPECT_TRUE(has(r.detail, c.in_detail)) << c.name << ": " << r.detail;
        }
    }
}

TEST(DoctorWebhookRow, EachConfigurationIsNamedWithWhatItsAbsenceMeans) {
    const auto absent = ObjectLookup::failed(404, "404");
    const auto mutating = webhook_row(WebhookConfigurationKind::Mutating, absent, "attune-webhook", {}, kNow);
    EXPECT_EQ(mutating.detail,
              "not installed: no MutatingWebhookConfiguration attune-webhook (pods are not sized at CREATE; see "
              "docs/webhook.md)");
    const auto validating = webhook_row(WebhookConfigurationKind::Validating, absent, "attune-webhook", {}, kNow);
    EXPECT_TRUE(has(validating.detail, "not installed: no ValidatingWebhookConfiguration attune-webhook ("))
        << validating.detail;
    EXPECT_TRUE(has(validating.detail, "policies are judged by the CRD's rules alone")) << validating.detail;
    const auto empty = webhook_row(WebhookConfigurationKind::Validating,
                                   ObjectLookup::of(json::object{{"webhooks", json::array{}}}), "x", {}, kNow);
    EXPECT_EQ(empty.status, DoctorStatus::Fail);
    EXPECT_EQ(empty.detail, "ValidatingWebhookConfiguration x has no webhooks");
}

TEST(DoctorWebhookRow, ARotationBundleIsValidWhileOneCaIs) {
    const std::int64_t t = kNow.time_since_epoch().count();
    WebhookCheck k = check(t - 400 * 86400, t - 86400, true);                               // the old CA, expired
    k.ca.push_back(core::CertificateInfo{t - 86400, t + 365 * 86400, "fp2"});               // the new one
    const auto r = webhook_row(WebhookConfigurationKind::Mutating, ObjectLookup::of(mwc(core::base64_encode("PEM"))),
                               "attune-webhook", std::vector{k}, kNow);
    EXPECT_EQ(r.status, DoctorStatus::Ok) << r.detail;
}

TEST(WebhookClients, UrlAndServiceClientConfigs) {
    const auto url = webhook_clients(mwc(core::base64_encode("pem text")));
    ASSERT_EQ(url.size(), 1u);
    EXPECT_EQ(url[0].webhook, "pods.attune.io");
    EXPECT_EQ(url[0].url, "https://127.0.0.1:16448/mutate-v1-pod");
    EXPECT_EQ(url[0].ca_bundle_pem, "pem text");
    const auto svc = webhook_clients(mwc(core::base64_encode("x"), false));
    ASSERT_EQ(svc.size(), 1u);
    EXPECT_EQ(svc[0].service_ns, "attune-system");
    EXPECT_EQ(svc[0].service_name, "attune-webhook");
    EXPECT_EQ(svc[0].service_port, 443);
    EXPECT_TRUE(webhook_clients(json::object{}).empty());
}

}  // namespace
}  // namespace attune::cli
