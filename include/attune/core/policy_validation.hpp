#pragma once
// The policy rules the CRD schema cannot express, checked on the merged
// policy (the address may come from a defaults object). Pure: no name is
// resolved, only the literal host is judged. A failure is a clear message
// the controller reports as Ready=False, reason InvalidConfig.
#include <optional>
#include <string>
#include <string_view>

#include "attune/core/policy.hpp"
#include "attune/core/result.hpp"

namespace attune::core {

struct PolicyValidationOptions {
    // --allow-local-metrics-addresses: loopback addresses (127.0.0.0/8, ::1,
    // localhost) are allowed, for the local control plane, the demo and e2e.
    bool allow_local_metrics_addresses = false;
    // --allow-secret-reads: bearerTokenSecret and tls.caSecret may be read
    // (needs the secret-reads kustomize component's RBAC).
    bool allow_secret_reads = false;
};

// The SSRF rule for a metrics or API endpoint: an http(s) URL with a host
// that is not a cloud metadata endpoint (metadata.google.internal,
// metadata.internal, instance-data.ec2.internal, 169.254.169.254,
// fd00:ec2::254) and not a loopback, link-local or unspecified IP, IPv4 or
// IPv6, in any spelling a resolver accepts (127.1, 0x7f000001, 2130706433,
// [::ffff:127.0.0.1]). Private ranges are allowed: Prometheus usually runs
// on a ClusterIP. Error code "invalid_config"; the message names `field`.
std::optional<error> check_endpoint_url(std::string_view field, std::string_view url, bool allow_loopback);

// Every rule above for the policy's effective metrics source and GitOps
// API URL, plus: a Secret reference (bearerTokenSecret, tls.caSecret) needs
// allow_secret_reads, and the message says how to enable it.
std::optional<error> validate_effective_policy(const EffectivePolicy& policy, const PolicyValidationOptions& options);

}  // namespace attune::core
