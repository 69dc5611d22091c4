#include "options.hpp"

#include "informer_catalog.hpp"
#include <attune/core/policy/policy_validation.hpp>
#include <attune/core/util/duration.hpp>
#include <attune/core/security/prometheus_token.hpp>
#include <attune/kube/watch_scope.hpp>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <optional>

namespace attune::manager {

namespace {

std::string known_informers() {
    std::string out;
    for (auto n : kInformerNames) out.append(out.empty() ? "" : ", ").append(n);
    return out;
}
core::Error bad(std::string msg) { return core::make_error("bad_flag", std::move(msg)); }

template <class T>
std::optional<T> parse_number(std::string_view s) {
    T v{};
    auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
    if (ec != std::errc() || p != s.data() + s.size()) return std::nullopt;
    return v;
}

std::optional<bool> parse_bool(std::string_view s) {
    if (s == "true" || s == "1") return true;
    if (s == "false" || s == "0") return false;
    return std::nullopt;
}
}  // namespace

core::Result<BindAddress> parse_bind_address(std::string_view flag, std::string_view value) {
    const auto where = "--" + std::string(flag) + "=" + std::string(value);
    BindAddress out;
    std::string_view port;
    if (!value.empty() && value.front() == '[') {
        const auto close = value.find(']');
        if (close == std::string_view::npos || close + 1 >= value.size() || value[close + 1] != ':')
            return bad(where + ": expected [address]:port");
        out.host = std::string(value.substr(1, close - 1));
        port = value.substr(close + 2);
    } else {
        const auto colon = value.rfind(':');
        if (colon == std::string_view::npos) return bad(where + ": expected host:port");
        out.host = std::string(value.substr(0, colon));
        if (out.host.find(':') != std::string::npos) return bad(where + ": put an IPv6 address in brackets");
        port = value.substr(colon + 1);
    }
    if (out.host.empty()) out.host = "0.0.0.0";
    const auto n = parse_number<unsigned>(port);
    if (!n || *n > 65535) return bad(where + ": the port must be a number from 0 to 65535");
    out.port = std::string(port);
    return out;
}

core::PolicyValidationOptions policy_validation_options(const ManagerOptions& o) {
    core::PolicyValidationOptions v;
    v.allow_local_metrics_addresses = o.allow_local_metrics_addresses;
    v.allow_secret_reads = o.allow_secret_reads;
    v.allow_plaintext_credentials = o.allow_plaintext_prometheus_credentials;
    v.allow_insecure_tls = o.allow_prometheus_insecure_tls;
    return v;
}

core::Result<ManagerOptions> parse_options(std::span<const std::string_view> args) {
    ManagerOptions o;
    for (std::size_t i = 0; i < args.size(); ++i) {
        std::string_view arg = args[i];
        if (arg == "-h" || arg == "--help") {
            o.help = true;
            continue;
        }
        if (arg.substr(0, 2) != "--") return bad("unexpected argument \"" + std::string(arg) + "\"");
        arg.remove_prefix(2);
        std::string_view name = arg, value;
        bool has_value = false;
        if (auto eq = arg.find('='); eq != std::string_view::npos) {
            name = arg.substr(0, eq);
            value = arg.substr(eq + 1);
            has_value = true;
        }
        const std::string flag(name);
        auto boolean = [&](bool& target) -> std::optional<core::Error> {
            if (!has_value) {
                target = true;
                return std::nullopt;
            }
            auto b = parse_bool(value);
            if (!b) return bad("--" + flag + ": expected true or false, got \"" + std::string(value) + "\"");
            target = *b;
            return std::nullopt;
        };
        if (flag == "leader-elect") {
            if (auto e = boolean(o.leader_elect)) return *e;
            continue;
        }
        if (flag == "allow-insecure-tls") {
            if (auto e = boolean(o.allow_insecure_tls)) return *e;
            continue;
        }
        if (flag == "allow-local-metrics-addresses") {
            if (auto e = boolean(o.allow_local_metrics_addresses)) return *e;
            continue;
        }
        if (flag == "allow-secret-reads") {
            if (auto e = boolean(o.allow_secret_reads)) return *e;
            continue;
        }
        if (flag == "allow-plaintext-prometheus-credentials") {
            if (auto e = boolean(o.allow_plaintext_prometheus_credentials)) return *e;
            continue;
        }
        if (flag == "allow-prometheus-insecure-tls") {
            if (auto e = boolean(o.allow_prometheus_insecure_tls)) return *e;
            continue;
        }
        if (flag == "metrics-secure") {
            if (auto e = boolean(o.metrics_secure)) return *e;
            continue;
        }
        if (flag == "webhook") {
            if (auto e = boolean(o.webhook.enabled)) return *e;
            continue;
        }
        if (flag == "watch-list") {
            if (auto e = boolean(o.watch_list)) return *e;
            continue;
        }
        if (flag == "protobuf-lists") {
            if (auto e = boolean(o.protobuf_lists)) return *e;
            continue;
        }
        static constexpr std::string_view kValueFlags[] = {"kubeconfig",
                                                           "context",
                                                           "leader-election-namespace",
                                                           "leader-election-id",
                                                           "metrics-bind-address",
                                                           "health-probe-bind-address",
                                                           "log-format",
                                                           "log-level",
                                                           "kube-qps",
                                                           "kube-burst",
                                                           "workers",
                                                           "webhook-bind-address",
                                                           "webhook-namespace",
                                                           "webhook-secret-name",
                                                           "webhook-configuration-name",
                                                           "webhook-service-name",
                                                           "webhook-url",
                                                           "webhook-cert-dir",
                                                           "webhook-cert-validity",
                                                           "webhook-ca-validity",
                                                           "webhook-ca-overlap",
                                                           "webhook-cert-resync",
                                                           "webhook-client-ca",
                                                           "webhook-max-connections",
                                                           "webhook-max-large-requests",
                                                           "webhook-max-body-bytes",
                                                           "start-informers",
                                                           "watch-namespaces",
                                                           "prometheus-query-timeout",
                                                           "prometheus-bearer-token-file",
                                                           "prometheus-token-addresses",
                                                           "metrics-cert-dir",
                                                           "datadog-url",
                                                           "datadog-ca-file",
                                                           "datadog-qps",
                                                           "datadog-burst",
                                                           "cloudwatch-url",
                                                           "sts-url",
                                                           "cloudwatch-ca-file",
                                                           "cloudwatch-qps",
                                                           "cloudwatch-burst",
                                                           "gitops-ca-file"};

        if (std::find(std::begin(kValueFlags), std::end(kValueFlags), name) == std::end(kValueFlags))
            return bad("unknown flag --" + flag);
        if (!has_value) {
            if (i + 1 >= args.size()) return bad("--" + flag + " needs a value");
            value = args[++i];
        }
        if (flag == "kubeconfig") {
            o.kubeconfig = std::string(value);
        } else if (flag == "context") {
            o.context = std::string(value);
        } else if (flag == "leader-election-namespace") {
            o.leader_election_namespace = std::string(value);
        } else if (flag == "leader-election-id") {
            if (value.empty()) return bad("--leader-election-id must not be empty");
            o.leader_election_id = std::string(value);
        } else if (flag == "metrics-bind-address") {
            auto b = parse_bind_address(flag, value);
            if (!b) return b.error();
            o.metrics = std::move(b).value();
        } else if (flag == "metrics-cert-dir") {
            if (value.empty()) return bad("--metrics-cert-dir must not be empty");
            o.metrics_cert_dir = std::string(value);
        } else if (flag == "health-probe-bind-address") {
            if (value.empty()) {
                o.health = {};
                continue;
            }
            auto b = parse_bind_address(flag, value);
            if (!b) return b.error();
            o.health = std::move(b).value();
        } else if (flag == "log-format") {
            if (value != "json" && value != "text")
                return bad("--log-format: expected json or text, got \"" + std::string(value) + "\"");
            o.log_format = std::string(value);
        } else if (flag == "log-level") {
            if (value != "trace" && value != "debug" && value != "info" && value != "warn" && value != "error")
                return bad("--log-level: expected trace, debug, info, warn or error, got \"" + std::string(value) +
                           "\"");
            o.log_level = std::string(value);
        } else if (flag == "kube-qps") {
            auto v = parse_number<double>(value);
            if (!v || !std::isfinite(*v)) return bad("--kube-qps: expected a number, got \"" + std::string(value) + "\"");
            o.kube_qps = *v;
        } else if (flag == "kube-burst") {
            auto v = parse_number<int>(value);
            if (!v || *v < 1) return bad("--kube-burst: expected a positive integer, got \"" + std::string(value) + "\"");
            o.kube_burst = *v;
        } else if (flag == "workers") {
            auto v = parse_number<int>(value);
            if (!v || *v < 1 || *v > 256)
                return bad("--workers: expected an integer from 1 to 256, got \"" + std::string(value) + "\"");
            o.workers = *v;
        } else if (flag == "webhook-bind-address") {
            auto b = parse_bind_address(flag, value);
            if (!b) return b.error();
            o.webhook.bind = std::move(b).value();
        } else if (flag == "webhook-namespace") {
            o.webhook.ns = std::string(value);
        } else if (flag == "webhook-secret-name" || flag == "webhook-configuration-name" || flag == "webhook-service-name") {
            if (value.empty()) return bad("--" + flag + " must not be empty");
            auto& target = flag == "webhook-secret-name"          ? o.webhook.secret_name
                           : flag == "webhook-configuration-name" ? o.webhook.configuration_name
                                                                  : o.webhook.service_name;
            target = std::string(value);
        } else if (flag == "webhook-url") {
            if (value.substr(0, 8) != "https://" || value.size() <= 8 || value.back() == '/')
                return bad("--webhook-url: expected https://HOST:PORT without a path, got \"" + std::string(value) + "\"");
            o.webhook.url = std::string(value);
        } else if (flag == "webhook-cert-dir") {
            o.webhook.cert_dir = std::string(value);
        } else if (flag == "webhook-cert-validity" || flag == "webhook-ca-validity" || flag == "webhook-ca-overlap" ||
                   flag == "webhook-cert-resync") {
            auto d = core::parse_duration(value);
            if (!d || d.value() < std::chrono::seconds(1))
                return bad("--" + flag + ": expected a duration of at least 1s (e.g. 90s, 2160h), got \"" +
                           std::string(value) + "\"");
            auto& target = flag == "webhook-cert-validity" ? o.webhook.cert_validity
                           : flag == "webhook-ca-validity" ? o.webhook.ca_validity
                           : flag == "webhook-ca-overlap"  ? o.webhook.ca_overlap
                                                           : o.webhook.cert_resync;
            target = d.value();
        } else if (flag == "webhook-client-ca") {
            if (value.empty()) return bad("--webhook-client-ca must not be empty");
            o.webhook.client_ca_file = std::string(value);
        } else if (flag == "webhook-max-connections" || flag == "webhook-max-large-requests") {
            auto v = parse_number<unsigned>(value);
            if (!v || *v < 1 || *v > 4096)
                return bad("--" + flag + ": expected an integer from 1 to 4096, got \"" + std::string(value) + "\"");
            (flag == "webhook-max-connections" ? o.webhook.max_connections : o.webhook.max_large_requests) = *v;
        } else if (flag == "webhook-max-body-bytes") {
            // Below 64 KiB a plain pod's review does not fit; above 64 MiB the
            // concurrent bodies alone outgrow the manager's memory limit.
            auto v = parse_number<unsigned>(value);
            if (!v || *v < (64u << 10) || *v > (64u << 20))
                return bad("--webhook-max-body-bytes: expected bytes from 65536 to 67108864, got \"" +
                           std::string(value) + "\"");
            o.webhook.max_body_bytes = *v;
        } else if (flag == "start-informers") {
            o.start_informers.clear();
            std::string_view rest = value;
            while (!rest.empty()) {
                const auto comma = rest.find(',');
                const auto informer = rest.substr(0, comma);
                if (!is_informer_name(informer))
                    return bad("--start-informers: unknown informer \"" + std::string(informer) + "\" (known: " +
                               known_informers() + ")");
                o.start_informers.emplace_back(informer);
                rest = comma == std::string_view::npos ? std::string_view() : rest.substr(comma + 1);
            }
        } else if (flag == "watch-namespaces") {
            auto list = kube::parse_namespace_list(value);
            if (!list) return bad("--watch-namespaces: " + list.error().message);
            o.watch_namespaces = std::move(list).value();
        } else if (flag == "prometheus-query-timeout") {
            auto d = core::parse_duration(value);
            if (!d || d.value() < std::chrono::seconds(1) || d.value() > std::chrono::minutes(10))
                return bad("--prometheus-query-timeout: expected a duration from 1s to 10m, got \"" +
                           std::string(value) + "\"");
            o.prometheus_query_timeout_ms =
                static_cast<int>(std::chrono::duration_cast<std::chrono::milliseconds>(d.value()).count());
        } else if (flag == "prometheus-bearer-token-file") {
            o.prometheus_bearer_token_file = std::string(value);
        } else if (flag == "prometheus-token-addresses") {
            std::string_view rest = value;
            while (!rest.empty()) {
                const auto comma = rest.find(',');
                const auto entry = rest.substr(0, comma);
                auto origin = core::origin_of_url(entry);
                if (!origin) return bad("--prometheus-token-addresses: " + origin.error().message);
                if (const auto slash = entry.find('/', entry.find("://") + 3); slash != std::string_view::npos)
                    return bad("--prometheus-token-addresses: \"" + std::string(entry) +
                               "\": give scheme://host:port only (addresses are compared without a path)");
                o.prometheus_token_origins.push_back(std::move(origin).value());
                rest = comma == std::string_view::npos ? std::string_view() : rest.substr(comma + 1);
            }
        } else if (flag == "datadog-url") {
            o.datadog_url = std::string(value);
            while (o.datadog_url.ends_with('/')) o.datadog_url.pop_back();
        } else if (flag == "datadog-ca-file") {
            if (value.empty()) return bad("--datadog-ca-file must not be empty");
            o.datadog_ca_file = std::string(value);
        } else if (flag == "gitops-ca-file") {
            if (value.empty()) return bad("--gitops-ca-file must not be empty");
            o.gitops_ca_file = std::string(value);
        } else if (flag == "datadog-qps") {
            auto v = parse_number<double>(value);
            if (!v || !std::isfinite(*v) || *v <= 0)
                return bad("--datadog-qps: expected a positive number, got \"" + std::string(value) + "\"");
            o.datadog_qps = *v;
        } else if (flag == "datadog-burst") {
            auto v = parse_number<int>(value);
            if (!v || *v < 1 || *v > 1000)
                return bad("--datadog-burst: expected an integer from 1 to 1000, got \"" + std::string(value) + "\"");
            o.datadog_burst = *v;
        } else if (flag == "cloudwatch-url" || flag == "sts-url") {
            auto& url = flag == "sts-url" ? o.sts_url : o.cloudwatch_url;
            url = std::string(value);
            while (url.ends_with('/')) url.pop_back();
        } else if (flag == "cloudwatch-ca-file") {
            if (value.empty()) return bad("--cloudwatch-ca-file must not be empty");
            o.cloudwatch_ca_file = std::string(value);
        } else if (flag == "cloudwatch-qps") {
            auto v = parse_number<double>(value);
            if (!v || !std::isfinite(*v) || *v <= 0)
                return bad("--cloudwatch-qps: expected a positive number, got \"" + std::string(value) + "\"");
            o.cloudwatch_qps = *v;
        } else if (flag == "cloudwatch-burst") {
            auto v = parse_number<int>(value);
            if (!v || *v < 1 || *v > 1000)
                return bad("--cloudwatch-burst: expected an integer from 1 to 1000, got \"" + std::string(value) +
                           "\"");
            o.cloudwatch_burst = *v;
        } else {
            return bad("unknown flag --" + flag);
        }
    }
    // The Datadog keys go with every query: only over https, and only to an
    // address the SSRF rule allows (loopback with --allow-local-metrics-addresses).
    if (!o.datadog_url.empty()) {
        if (!o.datadog_url.starts_with("https://"))
            return bad("--datadog-url: " + o.datadog_url + " is not https: the Datadog keys go with every query");
        if (auto e = core::check_endpoint_url("--datadog-url", o.datadog_url, o.allow_local_metrics_addresses))
            return bad(e->message);
    }
    // Signed requests and the web identity token: only over https, and only
    // to an address the SSRF rule allows, as for Datadog.
    for (const auto& [flag, url] : {std::pair<const char*, const std::string*>("--cloudwatch-url", &o.cloudwatch_url),
                                    std::pair<const char*, const std::string*>("--sts-url", &o.sts_url)}) {
        if (url->empty()) continue;
        if (!url->starts_with("https://"))
            return bad(std::string(flag) + ": " + *url + " is not https: AWS credentials go with every request");
        if (auto e = core::check_endpoint_url(flag, *url, o.allow_local_metrics_addresses)) return bad(e->message);
    }
    // The manager's token in the clear is refused here, at start, rather
    // than on every policy that points there.
    if (!o.allow_plaintext_prometheus_credentials)
        for (const auto& origin : o.prometheus_token_origins)
            if (origin.starts_with("http://"))
                return bad("--prometheus-token-addresses: " + origin +
                           " is plain http: the token would be sent in the clear; use https, or add "
                           "--allow-plaintext-prometheus-credentials");
    if (o.webhook.enabled) {
        // A serving certificate must outlive its own renewal, and a CA must
        // outlive the overlap before its successor signs plus one serving lifetime.
        if (o.webhook.ca_validity < o.webhook.cert_validity)
            return bad("--webhook-ca-validity must be at least --webhook-cert-validity");
        if (o.webhook.ca_overlap * 3 >= o.webhook.ca_validity)
            return bad("--webhook-ca-overlap must be under a third of --webhook-ca-validity (the CA is renewed "
                       "with a third of its lifetime left)");
    }
    return o;
}

std::string usage() {
    return R"(Usage: attune-manager [flags]

  --kubeconfig PATH                  kubeconfig file (default: $KUBECONFIG, in-cluster, ~/.kube/config)
  --context NAME                     kubeconfig context (default: current-context)
  --allow-insecure-tls               accept insecure-skip-tls-verify in the kubeconfig
  --leader-elect                     take the Lease before working (15s lease, 10s renew deadline, 2s retry)
  --leader-election-namespace NS     namespace of the Lease (default: the pod's namespace, else "default")
  --leader-election-id NAME          name of the Lease (default attune-manager)
  --metrics-bind-address HOST:PORT   /metrics, /healthz, /readyz (default 127.0.0.1:8080; port 0 picks one)
  --metrics-secure[=true|false]      /metrics over HTTPS, each request authenticated with a TokenReview and
                                     authorised with a SubjectAccessReview (get /metrics); false: plain
                                     HTTP for local use (default true; docs/security.md)
  --metrics-cert-dir DIR             serve DIR/tls.crt and DIR/tls.key for the secure /metrics
                                     (default: a self-signed certificate made at start)
  --health-probe-bind-address H:P    also serve /healthz and /readyz here, plain HTTP (default: off)
  --log-format json|text             (default json)
  --log-level LEVEL                  trace, debug, info, warn, error (default info)
  --kube-qps N                       client-side rate limit, requests per second (default 20; <= 0 unlimited)
  --kube-burst N                     token bucket size (default 30)
  --workers N                        worker coroutines (default 2)
  --allow-local-metrics-addresses    accept loopback Prometheus addresses (127.0.0.0/8, ::1, localhost)
                                     in policies; for local clusters and tests (default off)
  --allow-secret-reads               honour bearerTokenSecret and tls.caSecret in policies; needs the
                                     secret-reads kustomize component's RBAC (default off)
  --webhook                          serve the admission webhook (docs/webhook.md; default off)
  --webhook-bind-address HOST:PORT   its HTTPS address (default 127.0.0.1:9443; in-cluster 0.0.0.0:9443)
  --webhook-namespace NS             namespace of its Secret (default: the pod's namespace, else attune-system)
  --webhook-secret-name NAME         the Secret with the CA and serving certificate (default attune-webhook-tls)
  --webhook-configuration-name NAME  the MutatingWebhookConfiguration whose caBundle it writes (default attune-webhook)
  --webhook-service-name NAME        the Service: DNS names in the certificate (default attune-webhook)
  --webhook-url https://HOST:PORT    local use: write clientConfig.url (this plus each webhook's path)
  --webhook-cert-dir DIR             serve DIR/tls.crt and DIR/tls.key (cert-manager) instead of bootstrapping
  --webhook-cert-validity D          serving certificate lifetime (default 2160h; renewed with a third left)
  --webhook-ca-validity D            CA lifetime (default 8760h)
  --webhook-ca-overlap D             a new CA is in the caBundle this long before it signs (default 10m)
  --webhook-cert-resync D            re-read the Secret or DIR this often (default 30s)
  --webhook-client-ca FILE           require a client certificate signed by this PEM CA (the apiserver's;
                                     docs/webhook.md; default: none asked)
  --webhook-max-connections N        open connections; more are reset at once (default 64)
  --webhook-max-large-requests N     requests with a body over 64 KiB read at once; more get 503 (default 8)
  --webhook-max-body-bytes N         AdmissionReview body cap (default 6356992: two 3 MiB objects + 64 KiB)
  --watch-list=true|false           initial state by WatchList where served, not paged LIST (default false)
  --protobuf-lists=true|false       list pods in protobuf, decoded straight into the cache (default true)
  --watch-namespaces A,B             list, watch and write only in these namespaces (one list/watch per
                                     namespace: Roles there suffice; default: cluster-wide)
  --start-informers A,B              also run these informers although no enabled feature reads them
                                     (pods, nodes, namespaces, ...: benchmarks and cache tests)
  --prometheus-query-timeout D       budget of one Prometheus (or Datadog, CloudWatch) query, 1s to 10m (default 30s)
  --prometheus-bearer-token-file F   a token mounted into the manager, sent only to the addresses in
                                     --prometheus-token-addresses, and only to a policy that names no
                                     bearerTokenSecret (default: none)
  --prometheus-token-addresses U,... the Prometheus origins (scheme://host:port) that token may go to
                                     (default: none, so it is sent nowhere)
  --allow-plaintext-prometheus-credentials
                                     let a token (that one or a bearerTokenSecret's) go over http://
                                     (default off: such a policy is Ready=False InvalidConfig)
  --allow-prometheus-insecure-tls    honour tls.insecureSkipVerify in policies (default off: such a
                                     policy is Ready=False InvalidConfig)
  --datadog-url https://HOST[:PORT]  send every Datadog policy's queries here instead of https://api.<site>
                                     (a proxy in front of Datadog; https only, the address rules apply;
                                     default: the policy's site)
  --datadog-ca-file F                a PEM CA bundle to trust for Datadog (default: the system store)
  --datadog-qps N                    Datadog queries per second per API key (default 0.08: 300 an hour)
  --datadog-burst N                  Datadog queries at once per API key (default 3)
  --cloudwatch-url https://HOST[:PORT]
                                     send every CloudWatch policy's GetMetricData calls here instead of
                                     https://monitoring.<region>.amazonaws.com (https only, the address
                                     rules apply; default: the policy's region)
  --sts-url https://HOST[:PORT]      send AssumeRoleWithWebIdentity here instead of
                                     https://sts.<region>.amazonaws.com (the same rules)
  --cloudwatch-ca-file F             a PEM CA bundle to trust for CloudWatch and STS (default: the system store)
  --cloudwatch-qps N                 CloudWatch queries per second per region (default 5)
  --cloudwatch-burst N               CloudWatch queries at once per region (default 10)
  --gitops-ca-file F                 a PEM CA bundle to trust for export.pullRequest.apiUrl (default: the
                                     system store)
  -h, --help                         this text
)";
}

}  // namespace attune::manager
