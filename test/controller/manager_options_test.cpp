#include "options.hpp"

#include <gtest/gtest.h>

#include <vector>

namespace attune::manager {
namespace {

core::result<manager_options> parse(std::vector<std::string_view> args) { return parse_options(args); }

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

TEST(ManagerOptions, EveryFlagBothSpellings) {
    auto o = parse({"--kubeconfig=/k", "--context", "c", "--leader-elect", "--metrics-bind-address", "127.0.0.1:0",
                    "--health-probe-bind-address=:8081", "--log-format=text", "--log-level", "debug",
                    "--kube-qps=7.5", "--kube-burst", "12", "--workers=4", "--allow-insecure-tls=false",
                    "--leader-election-namespace=attune-system", "--leader-election-id", "x"});
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

}  // namespace
}  // namespace attune::manager
