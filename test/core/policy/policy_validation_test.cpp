#include "attune/core/policy/policy_validation.hpp"

#include <boost/json/parse.hpp>

#include <gtest/gtest.h>

namespace attune::core {
namespace {

constexpr std::string_view kField = "spec.metricsSource.prometheus.address";

std::string refusal(std::string_view url, bool allow_loopback = false) {
    auto e = check_endpoint_url(kField, url, allow_loopback);
    if (!e) return "";
    EXPECT_EQ(e->code, "invalid_config");
    return e->message;
}

TEST(EndpointUrl, AllowsClusterAndPrivateAddresses) {
    for (const char* ok : {"http://prometheus.monitoring.svc:9090", "https://prom.example.com", "http://10.0.0.5:9090/",
                           "http://192.168.1.10:9090/prometheus?x=1", "HTTP://Prom:9090", "http://[2001:db8::1]:9090",
                           "http://[fd00::1]:9090", "http://user:pw@prom:9090", "http://prom_svc:9090",
                           "http://172.16.0.1", "http://1e100.net"}) {
        EXPECT_EQ(refusal(ok), "") << ok;
    }
}

TEST(EndpointUrl, RefusesMetadataLoopbackLinkLocalAndUnspecified) {
    const struct {
        const char* url;
        const char* why;  // the end of the message
    } cases[] = {
        {"ftp://prom:9090", "the scheme must be http or https"},
        {"prom:9090", "the scheme must be http or https"},
        {"prometheus", "it is not a URL (expected http://host:port)"},
        {"http:prom", "it has no host"},
        {"http://:9090", "it has no host"},
        {"http://metadata.google.internal/computeMetadata", "metadata.google.internal is a cloud metadata endpoint"},
        {"http://METADATA.GOOGLE.INTERNAL.", "metadata.google.internal is a cloud metadata endpoint"},
        {"http://metadata.internal", "metadata.internal is a cloud metadata endpoint"},
        {"http://instance-data.ec2.internal", "instance-data.ec2.internal is a cloud metadata endpoint"},
        {"http://169.254.169.254/latest", "169.254.169.254 is a cloud metadata endpoint"},
        {"http://0xa9fea9fe", "169.254.169.254 is a cloud metadata endpoint"},
        {"http://[fd00:ec2::254]", "fd00:ec2::254 is a cloud metadata endpoint"},
        {"http://127.0.0.1:9090", "127.0.0.1 is a loopback address"},
        {"http://127.1:9090", "127.0.0.1 is a loopback address"},
        {"http://0x7f000001", "127.0.0.1 is a loopback address"},
        {"http://2130706433", "127.0.0.1 is a loopback address"},
        {"http://017700000001", "127.0.0.1 is a loopback address"},
        {"http://0177.0.0.1", "127.0.0.1 is a loopback address"},
        {"http://127.255.1.2", "127.255.1.2 is a loopback address"},
        {"http://evil@127.0.0.1", "127.0.0.1 is a loopback address"},
        {"http://localhost:9090", "localhost is a loopback name"},
        {"http://prom.localhost", "prom.localhost is a loopback name"},
        {"http://[::1]:9090", "::1 is a loopback address"},
        {"http://[0:0:0:0:0:0:0:1]", "0:0:0:0:0:0:0:1 is a loopback address"},
        {"http://[::ffff:127.0.0.1]:9090", "::ffff:127.0.0.1 embeds 127.0.0.1 is a loopback address"},
        {"http://[::ffff:7f00:1]", "::ffff:7f00:1 embeds 127.0.0.1 is a loopback address"},
        {"http://[::ffff:169.254.169.254]", "::ffff:169.254.169.254 embeds 169.254.169.254 is a cloud metadata endpoint"},
        {"http://[64:ff9b::127.0.0.1]", "64:ff9b::127.0.0.1 embeds 127.0.0.1 is a loopback address"},
        {"http://0.0.0.0:9090", "0.0.0.0 is an unspecified address"},
        {"http://0", "0.0.0.0 is an unspecified address"},
        {"http://[::]:9090", ":: is an unspecified address"},
        {"http://169.254.1.1", "169.254.1.1 is a link-local address"},
        {"http://[fe80::1%25eth0]:9090", "fe80::1 is a link-local address"},
        {"http://[febf::1]", "febf::1 is a link-local address"},
        {"http://224.0.0.251", "224.0.0.251 is a link-local multicast address"},
        {"http://[ff02::1]", "ff02::1 is a link-local multicast address"},
        {"http://[::1", "the IPv6 address has no closing ]"},
        {"http://[nope]:80", "\"nope\" is not an IPv6 address"},
        {"http://::1:9090", "put an IPv6 address in brackets"},
        {"http://prom:90x", "the port must be a number"},
        {"http://pr%6fm", "\"pr%6fm\" is not a host name or IP address"},
    };
    for (const auto& c : cases) {
        const auto msg = refusal(c.url);
        ASSERT_FALSE(msg.empty()) << c.url << " was allowed";
        EXPECT_EQ(msg.rfind(std::string(kField) + " \"" + c.url + "\" is not allowed: ", 0), 0u) << msg;
        EXPECT_NE(msg.find(c.why), std::string::npos) << c.url << ": " << msg;
    }
}

TEST(EndpointUrl, TheLocalFlagAllowsLoopbackOnly) {
    for (const char* url : {"http://127.0.0.1:9090", "http://127.1", "http://[::1]:9090", "http://localhost:9090",
                            "http://[::ffff:127.0.0.1]"}) {
        EXPECT_EQ(refusal(url, true), "") << url;
        EXPECT_NE(refusal(url).find("--allow-local-metrics-addresses"), std::string::npos) << url;
    }
    for (const char* url : {"http://169.254.169.254", "http://0.0.0.0", "http://[fe80::1]", "http://metadata.internal"})
        EXPECT_NE(refusal(url, true), "") << url;
}

EffectivePolicy merged(const std::string& spec, std::vector<AttuneDefaults> cluster = {}) {
    auto v = boost::json::parse(spec);
    v.as_object()["targetRef"] = boost::json::parse(R"({"kind":"Deployment","name":"web"})");
    boost::json::object doc{{"metadata", boost::json::object{{"namespace", "shop"}, {"name", "web"}}}, {"spec", v}};
    return merge_effective_policy(decode_attune_policy(doc).value(), cluster, {});
}

// One row of a verdict table: refused with a message holding `refusal`, or accepted ("").
void expect_verdict(const std::string& spec, const PolicyValidationOptions& options, const std::string& refusal) {
    const auto e = validate_effective_policy(merged(spec), options);
    if (refusal.empty()) {
        EXPECT_FALSE(e) << spec << ": " << e->message;
        return;
    }
    ASSERT_TRUE(e) << spec;
    EXPECT_EQ(e->code, "invalid_config");
    EXPECT_NE(e->message.find(refusal), std::string::npos) << spec << ": " << e->message;
}

TEST(PolicyValidation, TheMergedAddressIsCheckedAndNamedWhereItCameFrom) {
    auto d = decode_attune_defaults(boost::json::parse(
        R"({"metadata":{"name":"default"},"spec":{"metricsSource":{"prometheus":{"address":"http://169.254.169.254"}}}})"));
    const auto e = validate_effective_policy(merged("{}", {d.value()}), {});
    ASSERT_TRUE(e);
    EXPECT_EQ(e->code, "invalid_config");
    EXPECT_EQ(e->message.rfind("AttuneDefaults default: spec.metricsSource.prometheus.address \"http://169.254.169.254\"", 0),
              0u)
        << e->message;
    EXPECT_FALSE(validate_effective_policy(merged(R"({"metricsSource":{"prometheus":{"address":"http://prom:9090"}}})"), {}));
    EXPECT_FALSE(validate_effective_policy(merged("{}"), {}));  // no source: nothing to check yet
    PolicyValidationOptions local;
    local.allow_local_metrics_addresses = true;
    const auto loop = merged(R"({"metricsSource":{"prometheus":{"address":"http://127.0.0.1:9090"}}})");
    EXPECT_TRUE(validate_effective_policy(loop, {}));
    EXPECT_FALSE(validate_effective_policy(loop, local));
}

TEST(PolicyValidation, SecretReferencesNeedSecretReadsAndSayHowToEnableThem) {
    const auto token = merged(
        R"({"metricsSource":{"prometheus":{"address":"https://prom:9090","bearerTokenSecret":{"name":"prom","key":"token"}}}})");
    auto e = validate_effective_policy(token, {});
    ASSERT_TRUE(e);
    EXPECT_EQ(e->code, "invalid_config");
    EXPECT_EQ(e->message,
              "spec.metricsSource.prometheus.bearerTokenSecret needs Secret reads, which are off: apply the kustomize "
              "component deploy/kustomize/components/secret-reads and start the manager with --allow-secret-reads, "
              "or mount the token into the manager instead");
    PolicyValidationOptions reads;
    reads.allow_secret_reads = true;
    EXPECT_FALSE(validate_effective_policy(token, reads));

    const auto ca = merged(
        R"({"metricsSource":{"prometheus":{"address":"https://prom:9090","tls":{"caSecret":{"name":"ca","key":"ca.crt"}}}}})");
    e = validate_effective_policy(ca, {});
    ASSERT_TRUE(e);
    EXPECT_NE(e->message.find("tls.caSecret needs Secret reads"), std::string::npos) << e->message;
    EXPECT_NE(e->message.find("tls.ca instead"), std::string::npos) << e->message;
    EXPECT_FALSE(validate_effective_policy(ca, reads));

    const auto slash = merged(
        R"({"metricsSource":{"prometheus":{"address":"http://prom:9090","bearerTokenSecret":{"name":"other/prom","key":"t"}}}})");
    e = validate_effective_policy(slash, reads);
    ASSERT_TRUE(e);
    EXPECT_NE(e->message.find("must not contain '/'"), std::string::npos) << e->message;
}

// The Datadog keys live only in a Secret, so the source needs Secret reads;
// the site is one of Datadog's (the schema's enum, checked again here).
TEST(PolicyValidation, DatadogNeedsSecretReadsAKnownSiteAndASecretOfItsNamespace) {
    const auto datadog = [](const char* site, const char* secret) {
        return std::string(R"({"metricsSource":{"datadog":{)") + site + R"("apiKeySecretRef":{"name":")" + secret +
               R"(","key":"api-key"}}}})";
    };
    PolicyValidationOptions reads;
    reads.allow_secret_reads = true;
    const struct {
        std::string spec;
        PolicyValidationOptions options;
        const char* refusal;  // "" : accepted
    } cases[] = {
        {datadog("", "dd"), reads, ""},
        {datadog(R"("site":"datadoghq.eu",)", "dd"), reads, ""},
        {datadog(R"("site":"ddog-gov.com",)", "dd"), reads, ""},
        {datadog("", "dd"),
         {},
         "spec.metricsSource.datadog.apiKeySecretRef needs Secret reads, which are off: apply the kustomize component "
         "deploy/kustomize/components/secret-reads and start the manager with --allow-secret-reads, or use another "
         "metrics source (Datadog keys are read only from a Secret)"},
        {datadog(R"("site":"evil.example.com",)", "dd"), reads,
         "spec.metricsSource.datadog.site \"evil.example.com\" is not a Datadog site"},
        {datadog(R"("site":"127.0.0.1:8443",)", "dd"), reads, "is not a Datadog site"},
        {datadog("", "other/dd"), reads, "spec.metricsSource.datadog.apiKeySecretRef.name must not contain '/'"},
    };
    for (const auto& c : cases) expect_verdict(c.spec, c.options, c.refusal);
}

// The region becomes the endpoint's host and the cluster name goes into a
// SEARCH expression: both are refused unless they are plain names.
TEST(PolicyValidation, CloudWatchRegionClusterNameAndCpuUnitArePlainNames) {
    const auto cw = [](const char* region, const char* cluster, const char* extra = "") {
        return std::string(R"({"metricsSource":{"cloudwatch":{"region":")") + region + R"(","clusterName":")" +
               cluster + "\"" + extra + "}}}";
    };
    const struct {
        std::string spec;
        const char* refusal;  // "" : accepted
    } cases[] = {
        {cw("eu-west-1", "prod-cluster_1"), ""},
        {cw("us-gov-west-1", "c", R"(,"cpuUnit":"Nanocores","roleArn":"arn:aws:iam::123:role/r")"), ""},
        {cw("evil.example.com/", "c"),
         "spec.metricsSource.cloudwatch.region \"evil.example.com/\" is not an AWS region"},
        {cw("eu-west-1", "c\\\" OR x=\\\""), "spec.metricsSource.cloudwatch.clusterName"},
        {cw("eu-west-1", "c", R"(,"cpuUnit":"Picocores")"),
         "cpuUnit \"Picocores\" is not Millicores, Cores or Nanocores"},
        {cw("eu-west-1", "c", R"(,"roleArn":"my-role")"), "roleArn \"my-role\" is not an IAM role ARN"},
    };
    for (const auto& c : cases) expect_verdict(c.spec, {}, c.refusal);
}

// A credential in the clear and a skipped certificate check are the
// operator's to allow, not a policy author's: each needs its manager flag.
TEST(PolicyValidation, PlaintextTokensAndSkippedVerificationNeedTheManagersOptIn) {
    const auto secret = [](const char* address) {
        return std::string(R"({"metricsSource":{"prometheus":{"address":")") + address +
               R"(","bearerTokenSecret":{"name":"prom","key":"token"}}}})";
    };
    const auto insecure = [](const char* address) {
        return std::string(R"({"metricsSource":{"prometheus":{"address":")") + address +
               R"(","tls":{"insecureSkipVerify":true}}}})";
    };
    PolicyValidationOptions reads;
    reads.allow_secret_reads = true;
    PolicyValidationOptions plaintext = reads;
    plaintext.allow_plaintext_credentials = true;
    PolicyValidationOptions skip = reads;
    skip.allow_insecure_tls = true;
    const struct {
        std::string spec;
        PolicyValidationOptions options;
        const char* refusal;  // "" : accepted
    } cases[] = {
        {secret("http://prom:9090"), reads,
         "spec.metricsSource.prometheus.bearerTokenSecret would be sent in the clear to http://prom:9090: use an https "
         "address, or start the manager with --allow-plaintext-prometheus-credentials"},
        {secret("HTTP://prom:9090/x"), reads, "would be sent in the clear"},
        {secret("http://prom:9090"), plaintext, ""},
        {secret("https://prom:9090"), reads, ""},
        {insecure("https://prom:9090"), reads,
         "spec.metricsSource.prometheus.tls.insecureSkipVerify is true, but this manager verifies every Prometheus' "
         "certificate: give the CA in tls.ca or tls.caSecret, or start the manager with --allow-prometheus-insecure-tls"},
        {insecure("https://prom:9090"), skip, ""},
        {insecure("http://prom:9090"), reads, ""},  // no TLS to skip
        {R"({"metricsSource":{"prometheus":{"address":"http://prom:9090"}}})", reads, ""},  // no credential
    };
    for (const auto& c : cases) expect_verdict(c.spec, c.options, c.refusal);
}

// The connect-time half of the SSRF rule: what a name resolved to.
TEST(ResolvedAddress, EveryResolvedAddressIsJudgedByTheSameRule) {
    const struct {
        const char* ip;
        bool allow_loopback;
        const char* refusal;  // "" : may be connected to
    } cases[] = {
        {"10.96.0.20", false, ""},
        {"192.168.1.10", false, ""},
        {"2001:db8::1", false, ""},
        {"127.0.0.1", false, "127.0.0.1 is a loopback address; loopback is allowed only when the manager runs with "
                             "--allow-local-metrics-addresses"},
        {"127.0.1.1", false, "127.0.1.1 is a loopback address"},
        {"127.0.0.1", true, ""},
        {"::1", false, "::1 is a loopback address"},
        {"::1", true, ""},
        {"169.254.169.254", true, "169.254.169.254 is a cloud metadata endpoint"},
        {"169.254.10.1", true, "169.254.10.1 is a link-local address"},
        {"fe80::1%eth0", true, "fe80::1 is a link-local address"},
        {"fd00:ec2::254", true, "fd00:ec2::254 is a cloud metadata endpoint"},
        {"0.0.0.0", true, "0.0.0.0 is an unspecified address"},
        {"::", true, ":: is an unspecified address"},
        {"::ffff:127.0.0.1", false, "::ffff:127.0.0.1 embeds 127.0.0.1 is a loopback address"},
        {"::ffff:169.254.169.254", true, "embeds 169.254.169.254 is a cloud metadata endpoint"},
        {"224.0.0.251", true, "224.0.0.251 is a link-local multicast address"},
        {"prom.example", true, "\"prom.example\" is not an IP address"},
        {"", true, "\"\" is not an IP address"},
    };
    for (const auto& c : cases) {
        const auto why = check_resolved_address(c.ip, c.allow_loopback);
        if (std::string(c.refusal).empty()) {
            EXPECT_EQ(why, "") << c.ip;
        } else {
            EXPECT_NE(why.find(c.refusal), std::string::npos) << c.ip << ": " << why;
        }
    }
}

TEST(PolicyValidation, ContainerPolicyBoundsAreCheckedAfterTheOverlay) {
    // The entry's minAllowed exceeds the policy's maxAllowed it inherits.
    auto e = validate_effective_policy(
        merged(R"({"cpu":{"maxAllowed":"1"},"containerPolicies":[{"containerName":"app","cpu":{"minAllowed":"2"}}]})"), {});
    ASSERT_TRUE(e);
    EXPECT_EQ(e->message, "spec.containerPolicies \"app\": cpu.minAllowed 2 exceeds maxAllowed 1");
    EXPECT_FALSE(validate_effective_policy(
        merged(R"({"containerPolicies":[{"containerName":"*","memory":{"minAllowed":"1Gi","maxAllowed":"2Gi"}}]})"), {}));
}

TEST(PolicyValidation, GitOpsApiUrlGetsTheSameHostRule) {
    const auto p = merged(R"({"updateStrategy":{"export":{"pullRequest":{"enabled":true,"repository":"o/r",
        "tokenSecretRef":{"name":"gh","key":"t"},"apiUrl":"http://169.254.169.254"}}}})");
    const auto e = validate_effective_policy(p, {});
    ASSERT_TRUE(e);
    EXPECT_EQ(e->message.rfind("spec.updateStrategy.export.pullRequest.apiUrl", 0), 0u) << e->message;
    const auto local = merged(R"({"updateStrategy":{"export":{"pullRequest":{"enabled":true,"repository":"o/r",
        "tokenSecretRef":{"name":"gh","key":"t"},"apiUrl":"https://127.0.0.1:8443/github"}}}})");
    EXPECT_TRUE(validate_effective_policy(local, {})) << "loopback is refused by default";
    PolicyValidationOptions allow;
    allow.allow_local_metrics_addresses = true;
    EXPECT_FALSE(validate_effective_policy(local, allow)) << "and allowed with --allow-local-metrics-addresses";
}

}  // namespace
}  // namespace attune::core
