#pragma once
// The policy rules the CRD schema cannot express, checked on the merged
// policy (the address may come from a defaults object). Pure: no name is
// resolved, only the literal host is judged here; check_resolved_address
// judges what a name resolves to, at connect time. A failure is a clear message
// the controller reports as Ready=False, reason InvalidConfig.
#include <optional>
#include <string>
#include <string_view>

#include "attune/core/policy/policy.hpp"
#include "attune/core/util/result.hpp"

namespace attune::core {

struct PolicyValidationOptions {
    // --allow-local-metrics-addresses: loopback addresses (127.0.0.0/8, ::1,
    // localhost) are allowed, for the local control plane, the demo and e2e.
    bool allow_local_metrics_addresses = false;
    // --allow-secret-reads: bearerTokenSecret and tls.caSecret may be read
    // (needs the secret-reads kustomize component's RBAC).
    bool allow_secret_reads = false;
    // --allow-prometheus-insecure-tls: a policy's tls.insecureSkipVerify
    // takes effect; without it such a policy is refused.
    bool allow_insecure_tls = false;
    // --allow-plaintext-prometheus-credentials: a bearerTokenSecret may go to
    // an http:// address; without it such a policy is refused.
    bool allow_plaintext_credentials = false;
};

// A URL's authority (userinfo already removed) split into host and port:
// "[v6]:port", "[v6]", "host:port", "host". Views into `authority`.
struct HostPort {
    std::string_view host, port;  // port "" when absent
    bool bracketed = false;       // an IPv6 literal
    std::string error;            // "" or what is wrong
};
HostPort split_authority(std::string_view authority);

// The SSRF rule for a metrics or API endpoint: an http(s) URL with a host
// that is not a cloud metadata endpoint (metadata.google.internal,
// metadata.internal, instance-data.ec2.internal, 169.254.169.254,
// fd00:ec2::254) and not a loopback, link-local or unspecified IP, IPv4 or
// IPv6, in any spelling a resolver accepts (127.1, 0x7f000001, 2130706433,
// [::ffff:127.0.0.1]). Private ranges are allowed: Prometheus usually runs
// on a ClusterIP. Error code "invalid_config"; the message names `field`.
std::optional<Error> check_endpoint_url(std::string_view field, std::string_view url, bool allow_loopback);

// The same rule for one address a host name resolved to, applied at connect
// time to every address the resolver returned (a name passes
// check_endpoint_url; what it resolves to may not, and may change between a
// check and a connect). `ip`: numeric IPv4 or IPv6 text, as the resolver
// gives it. "" when it may be connected to, else why not; text that is not
// an address is refused.
std::string check_resolved_address(std::string_view ip, bool allow_loopback);

// A credential would go to `address` over plain http and the manager does
// not allow it: the refusal (code "invalid_config", naming `what` and the
// flag that allows it), else nothing.
std::optional<Error> plaintext_credential_refusal(std::string_view what, std::string_view address,
                                                  bool allow_plaintext_credentials);

// Every rule above for the policy's effective metrics source and GitOps
// API URL, plus: a Secret reference (bearerTokenSecret, tls.caSecret) needs
// allow_secret_reads, and the message says how to enable it;
// tls.insecureSkipVerify on an https address needs allow_insecure_tls; a
// bearerTokenSecret on an http address needs allow_plaintext_credentials; and each
// containerPolicies entry keeps minAllowed <= maxAllowed after its overlay
// (the schema cannot afford that rule inside the list).
std::optional<Error> validate_effective_policy(const EffectivePolicy& policy, const PolicyValidationOptions& options);

}  // namespace attune::core
