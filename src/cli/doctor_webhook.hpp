#pragma once
// doctor's webhook row: the MutatingWebhookConfiguration (issue #10's
// attune-webhook), each webhook's caBundle (valid PEM certificates, not
// expired, not yet to come) and its endpoint (a url clientConfig: a TLS
// exchange verified against that caBundle; a service clientConfig: the
// Service has ready endpoints, since the Service network is not reachable
// from a workstation). Optional: the webhook is opt-in, and pods are still
// created without it (failurePolicy Ignore). Pure; the shell parses the PEMs
// and probes the endpoints.
#include "doctor_report.hpp"
#include "object_lookup.hpp"

#include <attune/core/timestamp.hpp>

#include <cstdint>
#include <span>
#include <string>
#include <vector>

namespace attune::cli {

inline constexpr std::string_view kWebhookConfiguration = "attune-webhook";

struct webhook_client {
    std::string webhook;  // webhooks[].name
    std::string url;      // clientConfig.url, or
    std::string service_ns, service_name, path;
    int service_port = 443;
    std::string ca_bundle_pem;  // decoded clientConfig.caBundle
    std::string ca_bundle_error;
};

// The webhooks of a MutatingWebhookConfiguration with their clientConfig.
std::vector<webhook_client> webhook_clients(const boost::json::value& mwc);

struct certificate_validity {
    std::int64_t not_before = 0;  // unix seconds
    std::int64_t not_after = 0;
};

struct webhook_check {
    std::vector<certificate_validity> ca;  // the caBundle's certificates
    bool reachable = false;
    std::string endpoint;  // "https://127.0.0.1:16448/mutate-v1-pod", "service attune-system/attune-webhook"
    std::string endpoint_detail;  // what the probe saw
};

// `checks` is parallel to webhook_clients(*mwc.object).
doctor_row webhook_row(const object_lookup& mwc, std::string_view mwc_name, std::span<const webhook_check> checks,
                       core::Timestamp now);

}  // namespace attune::cli
