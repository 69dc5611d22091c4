#include "options.hpp"

#include <attune/core/duration.hpp>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <optional>

namespace attune::manager {

namespace {
core::error bad(std::string msg) { return core::make_error("bad_flag", std::move(msg)); }

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

core::result<bind_address> parse_bind_address(std::string_view flag, std::string_view value) {
    const auto where = "--" + std::string(flag) + "=" + std::string(value);
    bind_address out;
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

core::result<manager_options> parse_options(std::span<const std::string_view> args) {
    manager_options o;
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
        auto boolean = [&](bool& target) -> std::optional<core::error> {
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
        static constexpr std::string_view kValueFlags[] = {
            "kubeconfig", "context", "leader-election-namespace", "leader-election-id", "metrics-bind-address",
            "health-probe-bind-address", "log-format", "log-level", "kube-qps", "kube-burst", "workers",
            "prometheus-query-timeout", "prometheus-bearer-token-file"};
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
        } else if (flag == "prometheus-query-timeout") {
            auto d = core::parse_duration(value);
            if (!d || d.value() < std::chrono::seconds(1) || d.value() > std::chrono::minutes(10))
                return bad("--prometheus-query-timeout: expected a duration from 1s to 10m, got \"" +
                           std::string(value) + "\"");
            o.prometheus_query_timeout_ms =
                static_cast<int>(std::chrono::duration_cast<std::chrono::milliseconds>(d.value()).count());
        } else if (flag == "prometheus-bearer-token-file") {
            o.prometheus_bearer_token_file = std::string(value);
        } else {
            return bad("unknown flag --" + flag);
        }
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
  --health-probe-bind-address H:P    also serve /healthz and /readyz here (default: off)
  --log-format json|text             (default json)
  --log-level LEVEL                  trace, debug, info, warn, error (default info)
  --kube-qps N                       client-side rate limit, requests per second (default 20; <= 0 unlimited)
  --kube-burst N                     token bucket size (default 30)
  --workers N                        worker coroutines (default 2)
  --allow-local-metrics-addresses    accept loopback Prometheus addresses (127.0.0.0/8, ::1, localhost)
                                     in policies; for local clusters and tests (default off)
  --allow-secret-reads               honour bearerTokenSecret and tls.caSecret in policies; needs the
                                     secret-reads kustomize component's RBAC (default off)
  --prometheus-query-timeout D       budget of one Prometheus query, 1s to 10m (default 30s)
  --prometheus-bearer-token-file F   a token mounted into the manager, sent to Prometheus unless the
                                     policy names a bearerTokenSecret (default: none)
  -h, --help                         this text
)";
}

}  // namespace attune::manager
