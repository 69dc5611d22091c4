#include "options.hpp"

#include <gtest/gtest.h>

#include <vector>

namespace attune::manager {
namespace {

core::Result<ManagerOptions> parse(std::vector<std::string_view> args) { return parse_options(args); }

TEST(ManagerOptions, Defaults) {
    auto o = parse({});
    ASSERT_TRUE(o.ok());
    EXPECT_EQ(o.value().metrics.host, "127.0.0.1");
    EXPECT_EQ(o.value().metrics.port, "8080");
    EXPECT_FALSE(o.value().leader_elect);
    EXPECT_EQ(o.value().workers, 2);
    EXPECT_EQ(o.value().log_format, "json");
    EXPECT_FALSE(o.value().allow_local_metrics_addresses);
    EXPECT_FALSE(o.value().allow_secret_reads);
    EXPECT_TRUE(o.value().start_informers.empty());
    EXPECT_FALSE(o.value().watch_list);
    EXPECT_TRUE(o.value().protobuf_lists);
    EXPECT_TRUE(o.value().metrics_secure);
    EXPECT_TRUE(o.value().metrics_cert_dir.empty());
}

TEST(ManagerOptions, MetricsAreSecureUnlessTurnedOff) {
    const struct {
        std::vector<std::string_view> args;
        bool secure;
        const char* cert_dir;
    } cases[] = {
        {{}, true, ""},
        {{"--metrics-secure"}, true, ""},
        {{"--metrics-secure=false"}, false, ""},
        {{"--metrics-secure=false", "--metrics-secure=true"}, true, ""},
        {{"--metrics-cert-dir", "/certs"}, true, "/certs"},
        {{"--metrics-cert-dir=/etc/attune/metrics"}, true, "/etc/attune/metrics"},
    };
    for (const auto& c : cases) {
        auto o = parse(c.args);
        ASSERT_TRUE(o.ok()) << o.error().message;
        EXPECT_EQ(o.value().metrics_secure, c.secure) << c.args.size();
        EXPECT_EQ(o.value().metrics_cert_dir, c.cert_dir);
    }
}

TEST(ManagerOptions, PolicyValidationFlagsAreOffUntilGiven) {
    auto o = parse({"--allow-local-metrics-addresses", "--allow-secret-reads=true"});
    ASSERT_TRUE(o.ok()) << o.error().message;
    EXPECT_TRUE(o.value().allow_local_metrics_addresses);
    EXPECT_TRUE(o.value().allow_secret_reads);
    o = parse({"--allow-local-metrics-addresses=false", "--allow-secret-reads=0"});
    ASSERT_TRUE(o.ok()) << o.error().message;
    EXPECT_FALSE(o.value().allow_local_metrics_addresses);
    EXPECT_FALSE(o.value().allow_secret_reads);
    auto bad = parse({"--allow-secret-reads=yes"});
    ASSERT_FALSE(bad.ok());
    EXPECT_NE(bad.error().message.find("--allow-secret-reads: expected true or false"), std::string::npos)
        << bad.error().message;
    EXPECT_NE(usage().find("--allow-local-metrics-addresses"), std::string::npos);
    EXPECT_NE(usage().find("--allow-secret-reads"), std::string::npos);
}

TEST(ManagerOptions, WatchNamespacesParsesAListAndRefusesBadOnesAtStart) {
    struct Row {
        std::vector<std::string_view> args;
        std::vector<std::string> want;  // when ok
        std::string_view error;         // substring of the message; "" : ok
    };
    const Row rows[] = {
        {{}, {}, ""},                       // cluster-wide by default
        {{"--watch-namespaces="}, {}, ""},  // empty: cluster-wide, exactly as without it
        {{"--watch-namespaces", "team-a"}, {"team-a"}, ""},
        {{"--watch-namespaces=team-a,team-b"}, {"team-a", "team-b"}, ""},
        {{"--watch-namespaces=a", "--watch-namespaces=b"}, {"b"}, ""},  // the last one wins, like every flag
        {{"--watch-namespaces=a,,b"}, {}, "--watch-namespaces: element 2 is empty"},
        {{"--watch-namespaces=a,"}, {}, "--watch-namespaces: element 2 is empty"},
        {{"--watch-namespaces=,a"}, {}, "--watch-namespaces: element 1 is empty"},
        {{"--watch-namespaces=a,b,a"}, {}, "--watch-namespaces: \"a\" is given twice"},
        {{"--watch-namespaces=Team_A"}, {}, "--watch-namespaces: \"Team_A\" is not a namespace name"},
        {{"--watch-namespaces=-a"}, {}, "must start and end with a lowercase letter or digit"},
        {{"--watch-namespaces"}, {}, "--watch-namespaces needs a value"},
    };
    for (const auto& r : rows) {
        auto o = parse(r.args);
        const std::string what = r.args.empty() ? "(none)" : std::string(r.args.back());
        if (r.error.empty()) {
            ASSERT_TRUE(o.ok()) << what << ": " << o.error().message;
            EXPECT_EQ(o.value().watch_namespaces, r.want) << what;
        } else {
            ASSERT_FALSE(o.ok()) << what;
            EXPECT_EQ(o.error().code, "bad_flag");
            EXPECT_NE(o.error().message.find(r.error), std::string::npos) << what << ": " << o.error().message;
        }
    }
    EXPECT_NE(usage().find("--watch-namespaces"), std::string::npos);
}

TEST(ManagerOptions, PrometheusQueryTimeoutAndTokenFile) {
    auto o = parse({});
    ASSERT_TRUE(o.ok());
    EXPECT_EQ(o.value().prometheus_query_timeout_ms, 30'000);
    EXPECT_TRUE(o.value().prometheus_bearer_token_file.empty());
    o = parse({"--prometheus-query-timeout=1500ms", "--prometheus-bearer-token-file", "/var/run/token"});
    ASSERT_TRUE(o.ok()) << o.error().message;
    EXPECT_EQ(o.value().prometheus_query_timeout_ms, 1500);
    EXPECT_EQ(o.value().prometheus_bearer_token_file, "/var/run/token");
    for (const char* bad : {"--prometheus-query-timeout=0s", "--prometheus-query-timeout=11m", "--prometheus-query-timeout=soon"}) {
        auto b = parse({bad});
        ASSERT_FALSE(b.ok()) << bad;
        EXPECT_NE(b.error().message.find("expected a duration from 1s to 10m"), std::string::npos) << b.error().message;
    }
    EXPECT_NE(usage().find("--prometheus-query-timeout"), std::string::npos);
}

// The manager's token goes only where the operator lists; nothing is sent in
// the clear or past a skipped certificate check unless a flag says so.
TEST(ManagerOptions, CredentialFlagsAreOffAndTheTokenGoesNowhereUntilGiven) {
    auto o = parse({"--prometheus-bearer-token-file=/t"});
    ASSERT_TRUE(o.ok()) << o.error().message;
    EXPECT_TRUE(o.value().prometheus_token_origins.empty());
    EXPECT_FALSE(o.value().allow_plaintext_prometheus_credentials);
    EXPECT_FALSE(o.value().allow_prometheus_insecure_tls);
    o = parse({"--prometheus-token-addresses=https://Prom.Monitoring:9090,https://thanos.monitoring",
               "--prometheus-token-addresses", "https://[2001:db8::1]:9091", "--allow-prometheus-insecure-tls"});
    ASSERT_TRUE(o.ok()) << o.error().message;
    EXPECT_EQ(o.value().prometheus_token_origins,
              (std::vector<std::string>{"https://prom.monitoring:9090", "https://thanos.monitoring:443",
                                        "https://[2001:db8::1]:9091"}));
    EXPECT_TRUE(o.value().allow_prometheus_insecure_tls);
    o = parse({"--prometheus-token-addresses=http://prom:9090", "--allow-plaintext-prometheus-credentials"});
    ASSERT_TRUE(o.ok()) << o.error().message;
    EXPECT_EQ(o.value().prometheus_token_origins, std::vector<std::string>{"http://prom:9090"});
    EXPECT_TRUE(o.value().allow_plaintext_prometheus_credentials);
    for (const char* flag : {"--prometheus-token-addresses", "--allow-plaintext-prometheus-credentials",
                             "--allow-prometheus-insecure-tls"})
        EXPECT_NE(usage().find(flag), std::string::npos) << flag;
}

TEST(ManagerOptions, EveryFlagBothSpellings) {
    auto o = parse({"--kubeconfig=/k", "--context", "c", "--leader-elect", "--metrics-bind-address", "127.0.0.1:0",
                    "--health-probe-bind-address=:8081", "--log-format=text", "--log-level", "debug",
                    "--kube-qps=7.5", "--kube-burst", "12", "--workers=4", "--allow-insecure-tls=false",
                    "--leader-election-namespace=attune-system", "--leader-election-id", "x",
                    "--start-informers=pods,nodes", "--watch-list=true", "--protobuf-lists=false"});
    ASSERT_TRUE(o.ok()) << o.error().message;
    const auto& v = o.value();
    EXPECT_EQ(v.kubeconfig, "/k");
    EXPECT_EQ(v.context, "c");
    EXPECT_TRUE(v.leader_elect);
    EXPECT_EQ(v.metrics.port, "0");
    EXPECT_EQ(v.health.host, "0.0.0.0");
    EXPECT_EQ(v.health.port, "8081");
    EXPECT_EQ(v.log_format, "text");
    EXPECT_EQ(v.log_level, "debug");
    EXPECT_DOUBLE_EQ(v.kube_qps, 7.5);
    EXPECT_EQ(v.kube_burst, 12);
    EXPECT_EQ(v.workers, 4);
    EXPECT_FALSE(v.allow_insecure_tls);
    EXPECT_EQ(v.leader_election_namespace, "attune-system");
    EXPECT_EQ(v.leader_election_id, "x");
    EXPECT_EQ(v.start_informers, (std::vector<std::string>{"pods", "nodes"}));
    EXPECT_TRUE(v.watch_list);
    EXPECT_FALSE(v.protobuf_lists);
}

TEST(ManagerOptions, CloudWatchFlags) {
    auto o = parse({});
    ASSERT_TRUE(o.ok());
    EXPECT_EQ(o.value().cloudwatch_url, "");
    EXPECT_EQ(o.value().sts_url, "");
    EXPECT_DOUBLE_EQ(o.value().cloudwatch_qps, 5);  // the Go original's
    EXPECT_EQ(o.value().cloudwatch_burst, 10);
    o = parse({"--cloudwatch-url=https://vpce-1.monitoring.eu-west-1.vpce.amazonaws.com/", "--sts-url",
               "https://127.0.0.1:8443", "--allow-local-metrics-addresses", "--cloudwatch-ca-file=/ca.pem",
               "--cloudwatch-qps=2.5", "--cloudwatch-burst", "4"});
    ASSERT_TRUE(o.ok()) << o.error().message;
    EXPECT_EQ(o.value().cloudwatch_url, "https://vpce-1.monitoring.eu-west-1.vpce.amazonaws.com");
    EXPECT_EQ(o.value().sts_url, "https://127.0.0.1:8443");
    EXPECT_EQ(o.value().cloudwatch_ca_file, "/ca.pem");
    EXPECT_DOUBLE_EQ(o.value().cloudwatch_qps, 2.5);
    EXPECT_EQ(o.value().cloudwatch_burst, 4);
}

TEST(ManagerOptions, DatadogFlags) {
    auto o = parse({});
    ASSERT_TRUE(o.ok());
    EXPECT_EQ(o.value().datadog_url, "");
    EXPECT_DOUBLE_EQ(o.value().datadog_qps, 0.08);  // the Go original's 300 an hour
    EXPECT_EQ(o.value().datadog_burst, 3);
    o = parse({"--datadog-url=https://dd-proxy.monitoring:8443/", "--datadog-ca-file", "/ca.pem", "--datadog-qps=1.5",
               "--datadog-burst", "10"});
    ASSERT_TRUE(o.ok()) << o.error().message;
    EXPECT_EQ(o.value().datadog_url, "https://dd-proxy.monitoring:8443");
    EXPECT_EQ(o.value().datadog_ca_file, "/ca.pem");
    EXPECT_DOUBLE_EQ(o.value().datadog_qps, 1.5);
    EXPECT_EQ(o.value().datadog_burst, 10);
    // Loopback, for the local control plane and tests, with the flag that allows it, in either order.
    o = parse({"--datadog-url=https://127.0.0.1:8443", "--allow-local-metrics-addresses"});
    ASSERT_TRUE(o.ok()) << o.error().message;
}

TEST(ManagerOptions, BadFlagsNameTheProblem) {
    const std::vector<std::pair<std::vector<std::string_view>, std::string>> cases = {
        {{"--nope"}, "unknown flag --nope"},
        {{"--nope=1"}, "unknown flag --nope"},
        {{"--workers=0"}, "--workers"},
        {{"--workers=x"}, "--workers"},
        {{"--kube-burst=-1"}, "--kube-burst"},
        {{"--kube-qps=fast"}, "--kube-qps"},
        {{"--log-format=xml"}, "--log-format"},
        {{"--log-level=loud"}, "--log-level"},
        {{"--metrics-bind-address=8080"}, "host:port"},
        {{"--metrics-bind-address=::1:8080"}, "brackets"},
        {{"--metrics-bind-address=h:99999"}, "port"},
        {{"--leader-elect=maybe"}, "true or false"},
        {{"--kubeconfig"}, "needs a value"},
        {{"stray"}, "unexpected argument"},
        {{"--start-informers=pods,secrets"}, "unknown informer \"secrets\""},
        {{"--start-informers=pods,,nodes"}, "unknown informer \"\""},
        {{"--prometheus-token-addresses=http://prom:9090"},
         "--prometheus-token-addresses: http://prom:9090 is plain http: the token would be sent in the clear; use "
         "https, or add --allow-plaintext-prometheus-credentials"},
        {{"--prometheus-token-addresses=https://prom:9090/api"}, "give scheme://host:port only"},
        {{"--prometheus-token-addresses=prom:9090"}, "expected http://host:port or https://host:port"},
        {{"--prometheus-token-addresses=https://prom:0"}, "the port must be a number"},
        {{"--allow-prometheus-insecure-tls=maybe"}, "true or false"},
        {{"--metrics-secure=off"}, "true or false"},
        {{"--metrics-cert-dir="}, "must not be empty"},
        {{"--metrics-cert-dir"}, "needs a value"},
        {{"--datadog-url=http://dd-proxy:8080"},
         "--datadog-url: http://dd-proxy:8080 is not https: the Datadog keys go with every query"},
        {{"--datadog-url=https://169.254.169.254"}, "169.254.169.254 is a cloud metadata endpoint"},
        {{"--datadog-url=https://127.0.0.1:8443"},
         "loopback is allowed only when the manager runs with "
         "--allow-local-metrics-addresses"},
        {{"--datadog-ca-file="}, "must not be empty"},
        {{"--datadog-qps=0"}, "--datadog-qps: expected a positive number"},
        {{"--datadog-burst=0"}, "--datadog-burst: expected an integer from 1 to 1000"},
        {{"--cloudwatch-url=http://monitoring.internal"},
         "--cloudwatch-url: http://monitoring.internal is not https: AWS credentials go with every request"},
        {{"--sts-url=http://sts.internal"}, "--sts-url: http://sts.internal is not https"},
        {{"--cloudwatch-url=https://169.254.169.254"}, "169.254.169.254 is a cloud metadata endpoint"},
        {{"--sts-url=https://127.0.0.1:8443"}, "loopback is allowed only when the manager runs with"},
        {{"--cloudwatch-ca-file="}, "must not be empty"},
        {{"--cloudwatch-qps=-1"}, "--cloudwatch-qps: expected a positive number"},
        {{"--cloudwatch-burst=1001"}, "--cloudwatch-burst: expected an integer from 1 to 1000"},
    };
    for (const auto& [args, want] : cases) {
        auto o = parse(args);
        ASSERT_FALSE(o.ok()) << args[0];
        EXPECT_EQ(o.error().code, "bad_flag");
        EXPECT_NE(o.error().message.find(want), std::string::npos) << o.error().message;
    }
}

TEST(ManagerOptions, BindAddressForms) {
    auto v6 = parse_bind_address("x", "[::1]:9090");
    ASSERT_TRUE(v6.ok());
    EXPECT_EQ(v6.value().host, "::1");
    EXPECT_EQ(v6.value().port, "9090");
}

TEST(ManagerOptions, TheWebhookIsOffUntilAskedFor) {
    auto o = parse({});
    ASSERT_TRUE(o.ok());
    EXPECT_FALSE(o.value().webhook.enabled);
    EXPECT_EQ(o.value().webhook.bind.host, "127.0.0.1");
    EXPECT_EQ(o.value().webhook.bind.port, "9443");
    EXPECT_EQ(o.value().webhook.secret_name, "attune-webhook-tls");
    EXPECT_EQ(o.value().webhook.configuration_name, "attune-webhook");
}

TEST(ManagerOptions, WebhookFlags) {
    auto o = parse({"--webhook", "--webhook-bind-address=127.0.0.1:16568", "--webhook-namespace", "attune-e2e",
                    "--webhook-secret-name=s", "--webhook-configuration-name=m", "--webhook-service-name=svc",
                    "--webhook-url=https://127.0.0.1:16568", "--webhook-cert-validity=40s",
                    "--webhook-ca-validity=2m", "--webhook-ca-overlap=20s", "--webhook-cert-resync=2s"});
    ASSERT_TRUE(o.ok()) << o.error().message;
    const auto& w = o.value().webhook;
    EXPECT_TRUE(w.enabled);
    EXPECT_EQ(w.bind.port, "16568");
    EXPECT_EQ(w.ns, "attune-e2e");
    EXPECT_EQ(w.secret_name, "s");
    EXPECT_EQ(w.configuration_name, "m");
    EXPECT_EQ(w.service_name, "svc");
    EXPECT_EQ(w.url, "https://127.0.0.1:16568");
    EXPECT_EQ(w.cert_validity, std::chrono::seconds(40));
    EXPECT_EQ(w.ca_validity, std::chrono::minutes(2));
    EXPECT_EQ(w.ca_overlap, std::chrono::seconds(20));
    EXPECT_EQ(w.cert_resync, std::chrono::seconds(2));
    EXPECT_NE(usage().find("--webhook-url"), std::string::npos);
}

TEST(ManagerOptions, WebhookLimitsAndClientCa) {
    auto defaults = parse({"--webhook"});
    ASSERT_TRUE(defaults.ok());
    EXPECT_EQ(defaults.value().webhook.max_connections, 64u);
    EXPECT_EQ(defaults.value().webhook.max_large_requests, 8u);
    EXPECT_EQ(defaults.value().webhook.max_body_bytes, 0u);  // the server's default cap
    EXPECT_EQ(defaults.value().webhook.client_ca_file, "");
    auto o = parse({"--webhook", "--webhook-max-connections=16", "--webhook-max-large-requests", "4",
                    "--webhook-max-body-bytes=1048576", "--webhook-client-ca=/etc/attune/apiserver-ca.crt"});
    ASSERT_TRUE(o.ok()) << o.error().message;
    EXPECT_EQ(o.value().webhook.max_connections, 16u);
    EXPECT_EQ(o.value().webhook.max_large_requests, 4u);
    EXPECT_EQ(o.value().webhook.max_body_bytes, 1048576u);
    EXPECT_EQ(o.value().webhook.client_ca_file, "/etc/attune/apiserver-ca.crt");
    for (const char* flag : {"--webhook-client-ca", "--webhook-max-connections", "--webhook-max-large-requests",
                             "--webhook-max-body-bytes"})
        EXPECT_NE(usage().find(flag), std::string::npos) << flag;
}

TEST(ManagerOptions, BadWebhookFlagsSayWhatIsWrong) {
    struct {
        std::vector<std::string_view> args;
        const char* message;
    } cases[] = {
        {{"--webhook-url=http://127.0.0.1:1"}, "--webhook-url: expected https://HOST:PORT"},
        {{"--webhook-url=https://127.0.0.1:1/path/"}, "--webhook-url: expected https://HOST:PORT"},
        {{"--webhook-cert-validity=soon"}, "--webhook-cert-validity: expected a duration"},
        {{"--webhook-ca-overlap=0s"}, "--webhook-ca-overlap: expected a duration of at least 1s"},
        {{"--webhook-secret-name="}, "--webhook-secret-name must not be empty"},
        {{"--webhook-bind-address=nope"}, "--webhook-bind-address=nope: expected host:port"},
        {{"--webhook-max-connections=0"}, "--webhook-max-connections: expected an integer from 1 to 4096"},
        {{"--webhook-max-large-requests=lots"}, "--webhook-max-large-requests: expected an integer"},
        {{"--webhook-max-body-bytes=1024"}, "--webhook-max-body-bytes: expected bytes from 65536 to 67108864"},
        {{"--webhook-max-body-bytes=1073741824"}, "--webhook-max-body-bytes: expected bytes from 65536"},
        {{"--webhook-client-ca="}, "--webhook-client-ca must not be empty"},
        {{"--webhook", "--webhook-cert-validity=2h", "--webhook-ca-validity=1h"}, "at least --webhook-cert-validity"},
        {{"--webhook", "--webhook-ca-validity=1h", "--webhook-cert-validity=10m", "--webhook-ca-overlap=30m"},
         "--webhook-ca-overlap must be under a third"},
    };
    for (const auto& c : cases) {
        auto o = parse(c.args);
        ASSERT_FALSE(o.ok()) << c.message;
        EXPECT_NE(o.error().message.find(c.message), std::string::npos) << o.error().message;
    }
}

}  // namespace
}  // namespace attune::manager
