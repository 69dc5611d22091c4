#pragma once
// attune-manager's command line. Pure: parse_options never exits or prints;
// main() turns an error into a message and exit code 2.
#include <attune/core/policy/policy_validation.hpp>
#include <attune/core/util/duration.hpp>
#include <attune/core/util/result.hpp>

#include <cstddef>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace attune::manager {

struct BindAddress {
    std::string host;  // "127.0.0.1", "::1", "0.0.0.0"
    std::string port;  // "0" picks a free port
};

// The admission webhook (docs/webhook.md). Off unless --webhook.
struct WebhookOptions {
    bool enabled = false;
    BindAddress bind{"127.0.0.1", "9443"};
    std::string ns;  // "" : the pod's namespace in-cluster, else "attune-system"
    std::string secret_name = "attune-webhook-tls";
    std::string configuration_name = "attune-webhook";  // the MutatingWebhookConfiguration
    std::string service_name = "attune-webhook";        // DNS SANs <svc>.<ns>.svc[.cluster.local]
    // Local use: clientConfig.url base ("https://127.0.0.1:9443"); its host
    // joins the serving certificate's SANs.
    std::string url;
    // cert-manager: serve tls.crt/tls.key from this directory (reloaded when
    // they change) and leave the Secret and the caBundle to cert-manager.
    std::string cert_dir;
    core::Duration cert_validity = std::chrono::hours(24 * 90);
    core::Duration ca_validity = std::chrono::hours(24 * 365);
    core::Duration ca_overlap = std::chrono::minutes(10);
    core::Duration cert_resync = std::chrono::seconds(30);
    // The server's caps (http::ServerOptions; docs/webhook.md "Limits").
    std::size_t max_connections = 64;
    std::size_t max_large_requests = 8;
    std::size_t max_body_bytes = 0;  // 0: http::kAdmissionReviewBodyBytes
    // PEM CA file: clients (the apiserver) must present a certificate it signed.
    std::string client_ca_file;
};

struct ManagerOptions {
    std::string kubeconfig;
    std::string context;
    bool allow_insecure_tls = false;
    bool leader_elect = false;
    std::string leader_election_namespace;  // "" : the pod's namespace in-cluster, else "default"
    std::string leader_election_id = "attune-manager";
    BindAddress metrics{"127.0.0.1", "8080"};
    // /metrics over TLS, each request authenticated (TokenReview) and
    // authorised (SubjectAccessReview: get on the non-resource URL /metrics);
    // false: plain HTTP to anyone who can reach the address (local use).
    bool metrics_secure = true;
    // tls.crt and tls.key for the secure /metrics; empty: a self-signed
    // certificate made at start.
    std::string metrics_cert_dir;
    BindAddress health;               // empty host: /healthz and /readyz only on the metrics address
    std::string log_format = "json";  // json | text
    std::string log_level = "info";   // trace | debug | info | warn | error
    double kube_qps = 20;
    int kube_burst = 30;
    int workers = 2;
    // Policy validation (core::PolicyValidationOptions): loopback Prometheus
    // addresses, for the local control plane, the demo and e2e; and Secret
    // reads for bearerTokenSecret / tls.caSecret (needs the secret-reads RBAC).
    bool allow_local_metrics_addresses = false;
    bool allow_secret_reads = false;
    WebhookOptions webhook;
    // --watch-namespaces: list, watch and write only in these namespaces
    // (one list/watch per namespace and resource, Roles suffice there;
    // docs/manager.md). Empty: cluster-wide.
    std::vector<std::string> watch_namespaces;
    // Informers to run although no enabled feature reads them yet
    // (benchmarks; the e2e pod-cache test). Names from informer_catalog.hpp.
    std::vector<std::string> start_informers;
    // Initial state by WatchList where the server serves it, instead of paged
    // LISTs. Off by default: on 1.36 the paged LIST synced 10,000 pods in half
    // the time at the same memory (bench/RESULTS.md).
    bool watch_list = false;
    // Pod LIST pages in protobuf (pod_from_protobuf): the apiserver serves them
    // in about two thirds of the JSON time and the dropped fields cost nothing
    // to skip (bench/RESULTS.md). Off: JSON, as every other informer.
    bool protobuf_lists = true;
    // Prometheus: the budget of one query (the whole exchange), and the
    // bearer token mounted into the manager ("" : none), sent only to the
    // origins below and never instead of a policy's bearerTokenSecret.
    int prometheus_query_timeout_ms = 30'000;
    std::string prometheus_bearer_token_file;
    // Where that token may go (docs/security.md): normalised origins
    // (core::origin_of_url) from --prometheus-token-addresses; none: nowhere.
    std::vector<std::string> prometheus_token_origins;
    // A credential (that token or a bearerTokenSecret's) over plain http.
    bool allow_plaintext_prometheus_credentials = false;
    // A policy's tls.insecureSkipVerify takes effect (else the policy is refused).
    bool allow_prometheus_insecure_tls = false;
    // Datadog (docs/recommender.md#datadog): an endpoint for every Datadog
    // policy instead of https://api.<site> (""), a CA bundle to trust for
    // it, and the request budget per API key (the Go original's 0.08/s, bursts of 3).
    std::string datadog_url;
    std::string datadog_ca_file;
    double datadog_qps = 0.08;
    int datadog_burst = 3;
    // CloudWatch (docs/recommender.md#cloudwatch): endpoints for every
    // CloudWatch policy instead of the region's GetMetricData and STS ones
    // (""), a CA bundle to trust for both, and the request budget per
    // region (the Go original's 5/s, bursts of 10).
    std::string cloudwatch_url;
    std::string sts_url;
    std::string cloudwatch_ca_file;
    double cloudwatch_qps = 5;
    int cloudwatch_burst = 10;
    // export.pullRequest: a CA bundle trusted for every policy's apiUrl (a
    // self-hosted forge behind a private CA); "" : the system store.
    std::string gitops_ca_file;
    bool help = false;
};

// `args` excludes argv[0]. Error code "bad_flag" with a message naming the flag.
core::Result<ManagerOptions> parse_options(std::span<const std::string_view> args);

// The --allow-* flags as the policy validation takes them: the controller and
// the admission webhook judge a policy alike.
core::PolicyValidationOptions policy_validation_options(const ManagerOptions& o);

// "host:port", "[v6]:port" or ":port" (all interfaces). Error code "bad_flag".
core::Result<BindAddress> parse_bind_address(std::string_view flag, std::string_view value);

std::string usage();

}  // namespace attune::manager
