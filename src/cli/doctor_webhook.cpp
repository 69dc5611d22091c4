#include "doctor_webhook.hpp"

#include <attune/core/util/json_path.hpp>
#include <attune/core/util/base64.hpp>

#include <boost/json.hpp>

#include <algorithm>

namespace attune::cli {

namespace {

struct KindWords {
    const char* row;
    const char* kind;
    const char* without;  // what not installing it means
};

KindWords words(WebhookConfigurationKind k) {
    if (k == WebhookConfigurationKind::Validating)
        return {"policy-webhook", "ValidatingWebhookConfiguration",
                "policies are judged by the CRD's rules alone, with no warnings and no time zone check; see "
                "docs/webhook.md#policies-and-defaults"};
    return {"webhook", "MutatingWebhookConfiguration", "pods are not sized at CREATE; see docs/webhook.md"};
}

std::string days(std::int64_t seconds) {
    const auto d = seconds / 86400;
    return d >= 1 ? std::to_string(d) + "d" : std::to_string(seconds / 3600) + "h";
}

}  // namespace

std::vector<WebhookClient> webhook_clients(const boost::json::value& configuration) {
    std::vector<WebhookClient> out;
    const auto* hooks = core::array_at(configuration, {"webhooks"});
    if (hooks == nullptr) return out;
    for (const auto& h : *hooks) {
        WebhookClient c;
        c.webhook = core::string_at(h, {"name"});
        c.url = core::string_at(h, {"clientConfig", "url"});
        c.service_ns = core::string_at(h, {"clientConfig", "service", "namespace"});
        c.service_name = core::string_at(h, {"clientConfig", "service", "name"});
        c.path = core::string_at(h, {"clientConfig", "service", "path"});
        c.service_port = static_cast<int>(core::int_at(h, {"clientConfig", "service", "port"}).value_or(443));
        const auto b64 = core::string_at(h, {"clientConfig", "caBundle"});
        if (b64.empty()) {
            c.ca_bundle_error = "no caBundle";
        } else if (auto pem = core::base64_decode(b64)) {
            c.ca_bundle_pem = std::move(*pem);
        } else {
            c.ca_bundle_error = "caBundle is not base64";
        }
        out.push_back(std::move(c));
    }
    return out;
}

DoctorRow webhook_row(WebhookConfigurationKind kind, const ObjectLookup& configuration, std::string_view name,
                      std::span<const WebhookCheck> checks, core::Timestamp now) {
    const auto w = words(kind);
    const auto row = [&](DoctorStatus s, std::string detail) { return make_row(w.row, false, s, std::move(detail)); };
    const std::string named = std::string(w.kind) + " " + std::string(name);
    if (configuration.not_found())
        return row(DoctorStatus::Warn, "not installed: no " + named + " (" + w.without + ")");
    if (!configuration.found())
        return row(DoctorStatus::Warn, "cannot read " + named + " (" +
                                           (configuration.forbidden() ? "forbidden" : configuration.error) + ")");
    const auto clients = webhook_clients(*configuration.object);
    if (clients.empty()) return row(DoctorStatus::Fail, named + " has no webhooks");
    const auto t = now.time_since_epoch().count();
    std::vector<std::string> problems, good;
    bool broken = false;
    for (std::size_t i = 0; i < clients.size(); ++i) {
        const auto& c = clients[i];
        const WebhookCheck* k = i < checks.size() ? &checks[i] : nullptr;
        std::string what = c.webhook + ": ";
        if (!c.ca_bundle_error.empty() || k == nullptr || k->ca.empty()) {
            problems.push_back(what + (c.ca_bundle_error.empty() ? "caBundle holds no PEM certificate" : c.ca_bundle_error));
            broken = true;
            continue;
        }
        // Valid now if any CA in the bundle is (the bundle carries old and new CAs across a rotation).
        const auto valid = std::find_if(k->ca.begin(), k->ca.end(),
                                        [&](const core::CertificateInfo& v) { return v.not_before <= t && t < v.not_after; });
        if (valid == k->ca.end()) {
            const auto newest = std::max_element(k->ca.begin(), k->ca.end(), [](const auto& a, const auto& b) {
                return a.not_after < b.not_after;
            });
            problems.push_back(what + (newest->not_after <= t ? "caBundle expired " + days(t - newest->not_after) + " ago"
                                                              : "caBundle is not valid yet"));
            broken = true;
            continue;
        }
        if (!k->reachable) {
            problems.push_back(what + k->endpoint + " " + k->endpoint_detail);
            continue;
        }
        good.push_back(what + "caBundle valid " + days(valid->not_after - t) + " more, " + k->endpoint + " " +
                       k->endpoint_detail);
    }
    std::string detail;
    for (const auto& p : problems) detail += (detail.empty() ? "" : "; ") + p;
    for (const auto& g : good) detail += (detail.empty() ? "" : "; ") + g;
    if (broken) return row(DoctorStatus::Fail, detail);
    if (!problems.empty()) return row(DoctorStatus::Warn, detail);
    return row(DoctorStatus::Ok, detail);
}

}  // namespace attune::cli
