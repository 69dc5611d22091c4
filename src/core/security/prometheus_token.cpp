#include "attune/core/security/prometheus_token.hpp"

#include "attune/core/policy/policy_validation.hpp"

#include <arpa/inet.h>  // inet_pton / inet_ntop: text to bytes and back, no lookup

#include <algorithm>
#include <array>

namespace attune::core {

namespace {
std::string lower(std::string_view s) {
    std::string out(s);
    for (auto& c : out)
        if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
    return out;
}
}  // namespace

std::string normalized_origin(std::string_view scheme, std::string_view host, std::string_view port) {
    std::string h = lower(host);
    if (!h.empty() && h.back() == '.') h.pop_back();
    std::array<unsigned char, 16> v6{};
    if (inet_pton(AF_INET6, h.c_str(), v6.data()) == 1) {
        std::array<char, 64> text{};
        if (inet_ntop(AF_INET6, v6.data(), text.data(), text.size())) h = text.data();
        h = "[" + h + "]";
    }
    return lower(scheme) + "://" + h + ":" + std::string(port);
}

Result<std::string> origin_of_url(std::string_view url) {
    auto bad = [&](const std::string& why) {
        return make_error("invalid_config", "\"" + std::string(url) + "\": " + why);
    };
    const auto sep = url.find("://");
    if (sep == std::string_view::npos) return bad("expected http://host:port or https://host:port");
    const auto scheme = lower(url.substr(0, sep));
    if (scheme != "http" && scheme != "https") return bad("the scheme must be http or https");
    const auto rest = url.substr(sep + 3);
    const auto authority = rest.substr(0, rest.find_first_of("/?#"));
    if (authority.find('@') != std::string_view::npos) return bad("userinfo is not allowed");
    const auto split = split_authority(authority);
    if (!split.error.empty()) return bad(split.error);
    const auto host = split.host, port = split.port;
    if (host.empty()) return bad("it has no host");
    if (port.empty()) return normalized_origin(scheme, host, scheme == "https" ? "443" : "80");
    unsigned n = 0;
    for (char ch : port) {
        if (ch < '0' || ch > '9' || n > 65535) return bad("the port must be a number from 1 to 65535");
        n = n * 10 + static_cast<unsigned>(ch - '0');
    }
    if (n == 0 || n > 65535) return bad("the port must be a number from 1 to 65535");
    return normalized_origin(scheme, host, std::to_string(n));
}

TokenDecision decide_prometheus_token(std::string_view origin, bool has_secret_token, const PrometheusTokenRules& rules) {
    TokenDecision d;
    if (has_secret_token) {
        d.source = TokenSource::Secret;
        d.refused = plaintext_credential_refusal("the bearerTokenSecret's token", origin, rules.allow_plaintext_credentials);
        return d;
    }
    if (!rules.has_flag_token) return d;
    const bool listed = std::find(rules.flag_token_origins.begin(), rules.flag_token_origins.end(), origin) !=
                        rules.flag_token_origins.end();
    if (!listed) {
        d.withheld = "the manager's --prometheus-bearer-token-file token is not sent to " + std::string(origin) +
                     ": it is not in --prometheus-token-addresses (name a bearerTokenSecret in the policy, or add "
                     "the address to that flag)";
        return d;
    }
    if (plaintext_credential_refusal("", origin, rules.allow_plaintext_credentials)) {
        // The flag parser refuses such a list entry; kept so the rule holds here too.
        d.withheld = "the manager's --prometheus-bearer-token-file token is not sent in the clear to " +
                     std::string(origin) + " without --allow-plaintext-prometheus-credentials";
        return d;
    }
    d.source = TokenSource::Flag;
    return d;
}

}  // namespace attune::core
