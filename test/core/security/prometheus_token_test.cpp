// Which token a Prometheus query carries: the manager's own only to the
// operator's listed origins, a policy's Secret only where it points, and
// neither in the clear without the opt-in.
#include "attune/core/security/prometheus_token.hpp"

#include <gtest/gtest.h>

namespace attune::core {
namespace {

TEST(PrometheusOrigin, AddressesAreComparedByNormalisedSchemeHostAndPort) {
    const struct {
        const char* url;
        const char* origin;
    } cases[] = {
        {"https://prom.monitoring:9090", "https://prom.monitoring:9090"},
        {"HTTPS://Prom.Monitoring.:9090/prometheus/", "https://prom.monitoring:9090"},
        {"https://prom.monitoring", "https://prom.monitoring:443"},
        {"http://prom.monitoring", "http://prom.monitoring:80"},
        {"https://prom:09090", "https://prom:9090"},
        {"https://[2001:DB8:0::1]:9090", "https://[2001:db8::1]:9090"},
        {"https://10.0.0.5:9090?x=1", "https://10.0.0.5:9090"},
    };
    for (const auto& c : cases) {
        const auto o = origin_of_url(c.url);
        ASSERT_TRUE(o) << c.url << ": " << o.error().message;
        EXPECT_EQ(o.value(), c.origin) << c.url;
    }
    for (const char* bad : {"prom:9090", "ftp://prom", "https://", "https://u:p@prom:9090", "https://prom:0",
                            "https://prom:65536", "https://prom:90x", "https://[::1"}) {
        const auto o = origin_of_url(bad);
        EXPECT_FALSE(o) << bad;
        if (!o) {
            EXPECT_EQ(o.error().code, "invalid_config");
        }
    }
}

TEST(PrometheusToken, TheManagersTokenGoesOnlyToListedOriginsAndASecretOnlyWhereItsPolicyPoints) {
    PrometheusTokenRules listed;
    listed.has_flag_token = true;
    listed.flag_token_origins = {"https://prom.monitoring:9090"};
    PrometheusTokenRules no_flag_token = listed;
    no_flag_token.has_flag_token = false;
    PrometheusTokenRules http_listed = listed;
    http_listed.flag_token_origins = {"http://prom.monitoring:9090"};
    PrometheusTokenRules plaintext = http_listed;
    plaintext.allow_plaintext_credentials = true;
    const struct {
        const char* name;
        const char* origin;
        bool secret;
        PrometheusTokenRules rules;
        TokenSource source;
        const char* withheld;  // part of the note; "" : none
        bool refused;
    } cases[] = {
        {"listed origin, no Secret", "https://prom.monitoring:9090", false, listed, TokenSource::Flag, "", false},
        {"another origin: withheld", "https://attacker.example:443", false, listed, TokenSource::None,
         "not sent to https://attacker.example:443: it is not in --prometheus-token-addresses", false},
        {"same host, other port", "https://prom.monitoring:9091", false, listed, TokenSource::None,
         "not in --prometheus-token-addresses", false},
        {"same host, http", "http://prom.monitoring:9090", false, listed, TokenSource::None,
         "not in --prometheus-token-addresses", false},
        {"a Secret wins, anywhere", "https://attacker.example:443", true, listed, TokenSource::Secret, "", false},
        {"a Secret over http: refused", "http://prom.monitoring:9090", true, listed, TokenSource::Secret, "", true},
        {"a Secret over http with the opt-in", "http://prom.monitoring:9090", true, plaintext, TokenSource::Secret, "",
         false},
        {"no flag token: nothing withheld", "https://attacker.example:443", false, no_flag_token, TokenSource::None, "",
         false},
        {"listed http without the opt-in", "http://prom.monitoring:9090", false, http_listed, TokenSource::None,
         "not sent in the clear", false},
        {"listed http with the opt-in", "http://prom.monitoring:9090", false, plaintext, TokenSource::Flag, "", false},
    };
    for (const auto& c : cases) {
        const auto d = decide_prometheus_token(c.origin, c.secret, c.rules);
        EXPECT_EQ(d.source, c.source) << c.name;
        if (std::string(c.withheld).empty()) {
            EXPECT_EQ(d.withheld, "") << c.name;
        } else {
            EXPECT_NE(d.withheld.find(c.withheld), std::string::npos) << c.name << ": " << d.withheld;
        }
        EXPECT_EQ(d.refused.has_value(), c.refused) << c.name;
        if (d.refused) {
            EXPECT_EQ(d.refused->code, "invalid_config");
            EXPECT_NE(d.refused->message.find("--allow-plaintext-prometheus-credentials"), std::string::npos);
        }
    }
}

}  // namespace
}  // namespace attune::core
