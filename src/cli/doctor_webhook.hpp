#pragma once
// doctor's webhook rows: the MutatingWebhookConfiguration ("webhook": pods
// sized at CREATE) and the ValidatingWebhookConfiguration ("policy-webhook":
// policies judged at admission), both docs/webhook.md's attune-webhook; each
// webhook's caBundle (valid PEM certificates, not
// expired, not yet to come) and its endpoint (a url clientConfig: a TLS
// exchange verified against that caBundle; a service clientConfig: the
// Service has ready endpoints, since the Service network is not reachable
// from a workstation). Optional: the webhooks are opt-in, and pods and
// policies are still admitted without them (failurePolicy Ignore; the
// CRD's CEL still judges policies). Pure; the shell parses the PEMs
// (the webhook's own webhook::split_bundle) and probes the endpoints.
#include "doctor_report.hpp"
#include "object_lookup.hpp"

#include <attune/core/admission/certificate_rotation.hpp>  // CertificateInfo
#include <attune/core/util/timestamp.hpp>

#include <cstdint>
#include <span>
#include <string>
#include <vector>

namespace attune::cli {

inline constexpr std::string_view kWebhookConfiguration = "attune-webhook";

struct WebhookClient {
    std::string webhook;  // webhooks[].name
    std::string url;      // clientConfig.url, or
    std::string service_ns, service_name, path;
    int service_port = 443;
    std::string ca_bundle_pem;  // decoded clientConfig.caBundle
    std::string ca_bundle_error;
};

enum class WebhookConfigurationKind { Mutating, Validating };

// The webhooks of a Mutating- or ValidatingWebhookConfiguration with their clientConfig.
std::vector<WebhookClient> webhook_clients(const boost::json::value& configuration);

struct WebhookCheck {
    std::vector<core::CertificateInfo> ca;  // the caBundle's certificates (webhook::split_bundle)
    bool reachable = false;
    std::string endpoint;  // "https://127.0.0.1:16448/mutate-v1-pod", "service attune-system/attune-webhook"
    std::string endpoint_detail;  // what the probe saw
};

// `checks` is parallel to webhook_clients(*configuration.object).
DoctorRow webhook_row(WebhookConfigurationKind kind, const ObjectLookup& configuration, std::string_view name,
                      std::span<const WebhookCheck> checks, core::Timestamp now);

}  // namespace attune::cli
