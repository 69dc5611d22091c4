#include "attune/core/policy/policy_validation.hpp"

#include <arpa/inet.h>  // inet_pton: pure text-to-bytes, no lookup

#include <algorithm>
#include <array>
#include <cstdint>

namespace attune::core {
namespace {

constexpr std::string_view kLoopbackHint =
    "; loopback is allowed only when the manager runs with --allow-local-metrics-addresses";

std::string lower(std::string_view s) {
    std::string out(s);
    for (auto& c : out)
        if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
    return out;
}

// inet_aton's reading of a host, which is what the resolver does with it:
// one to four parts, each decimal, octal (leading 0) or hex (0x); the last
// part fills the remaining bytes ("127.1" is 127.0.0.1, "2130706433" too).
std::optional<std::uint32_t> parse_ipv4_loose(std::string_view s) {
    std::array<std::uint64_t, 4> parts{};
    std::size_t n = 0;
    std::size_t i = 0;
    while (true) {
        if (n == 4 || i >= s.size()) return std::nullopt;
        unsigned base = 10;
        if (s[i] == '0') {
            base = 8;
            if (i + 1 < s.size() && (s[i + 1] == 'x' || s[i + 1] == 'X')) {
                base = 16;
                i += 2;
            }
        }
        std::uint64_t v = 0;
        std::size_t digits = 0;
        for (; i < s.size() && s[i] != '.'; ++i, ++digits) {
            const char c = s[i];
            unsigned d = 0;
            if (c >= '0' && c <= '9') d = static_cast<unsigned>(c - '0');
            else if (c >= 'a' && c <= 'f') d = static_cast<unsigned>(c - 'a' + 10);
            else if (c >= 'A' && c <= 'F') d = static_cast<unsigned>(c - 'A' + 10);
            else return std::nullopt;
            if (d >= base) return std::nullopt;
            v = v * base + d;
            if (v > 0xffffffffull) return std::nullopt;
        }
        if (digits == 0 && base != 8 && base != 16) return std::nullopt;  // an empty part
        parts[n++] = v;
        if (i >= s.size()) break;
        ++i;  // the dot
    }
    std::uint32_t out = 0;
    for (std::size_t k = 0; k + 1 < n; ++k) {
        if (parts[k] > 255) return std::nullopt;
        out |= static_cast<std::uint32_t>(parts[k]) << (24 - 8 * k);
    }
    const unsigned tail_bits = 32 - 8 * static_cast<unsigned>(n - 1);
    if (tail_bits < 32 && parts[n - 1] >> tail_bits) return std::nullopt;
    return out | static_cast<std::uint32_t>(parts[n - 1]);
}

std::string ipv4_text(std::uint32_t a) {
    return std::to_string(a >> 24) + "." + std::to_string((a >> 16) & 255) + "." + std::to_string((a >> 8) & 255) +
           "." + std::to_string(a & 255);
}

// "" when the address may be used; else why not.
std::string judge_ipv4(std::uint32_t a, bool allow_loopback) {
    const auto text = ipv4_text(a);
    if (a == 0xA9FEA9FEu) return "169.254.169.254 is a cloud metadata endpoint";
    if ((a >> 24) == 127) return allow_loopback ? "" : text + " is a loopback address" + std::string(kLoopbackHint);
    if ((a >> 24) == 0) return text + " is an unspecified address";
    if ((a >> 16) == 0xA9FEu) return text + " is a link-local address";
    if ((a >> 8) == 0xE00000u) return text + " is a link-local multicast address";
    return "";
}

std::string judge_ipv6(const std::array<std::uint8_t, 16>& b, std::string_view text, bool allow_loopback) {
    auto zero_prefix = [&](std::size_t n) {
        for (std::size_t i = 0; i < n; ++i)
            if (b[i] != 0) return false;
        return true;
    };
    const std::uint32_t tail = static_cast<std::uint32_t>(b[12]) << 24 | static_cast<std::uint32_t>(b[13]) << 16 |
                               static_cast<std::uint32_t>(b[14]) << 8 | b[15];
    const std::string t(text);
    if (zero_prefix(16)) return t + " is an unspecified address";
    if (zero_prefix(15) && b[15] == 1)
        return allow_loopback ? "" : t + " is a loopback address" + std::string(kLoopbackHint);
    static constexpr std::array<std::uint8_t, 16> kEc2Metadata = {0xfd, 0x00, 0x0e, 0xc2, 0, 0, 0, 0,
                                                                  0,    0,    0,    0,    0, 0, 0x02, 0x54};
    if (b == kEc2Metadata) return "fd00:ec2::254 is a cloud metadata endpoint";
    if (b[0] == 0xfe && (b[1] & 0xc0) == 0x80) return t + " is a link-local address";
    if (b[0] == 0xff && b[1] == 0x02) return t + " is a link-local multicast address";
    // An IPv4 address inside IPv6 (mapped ::ffff:a.b.c.d, compatible ::a.b.c.d,
    // NAT64 64:ff9b::a.b.c.d) reaches that IPv4 address.
    const bool mapped = zero_prefix(10) && b[10] == 0xff && b[11] == 0xff;
    const bool compatible = zero_prefix(12);
    const bool nat64 = b[0] == 0 && b[1] == 0x64 && b[2] == 0xff && b[3] == 0x9b &&
                       std::all_of(b.begin() + 4, b.begin() + 12, [](std::uint8_t x) { return x == 0; });
    if (mapped || compatible || nat64) {
        auto why = judge_ipv4(tail, allow_loopback);
        if (!why.empty()) return t + " embeds " + why;
    }
    return "";
}

bool hostname_char(char c) {
    return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-' || c == '.' || c == '_';
}

}  // namespace

HostPort split_authority(std::string_view authority) {
    HostPort out;
    out.host = authority;
    if (!authority.empty() && authority.front() == '[') {
        const auto close = authority.find(']');
        if (close == std::string_view::npos) {
            out.error = "the IPv6 address has no closing ]";
            return out;
        }
        out.bracketed = true;
        out.host = authority.substr(1, close - 1);
        const auto after = authority.substr(close + 1);
        if (!after.empty() && after.front() != ':') out.error = "unexpected text after the IPv6 address";
        else if (!after.empty()) out.port = after.substr(1);
    } else if (const auto c = authority.rfind(':'); c != std::string_view::npos) {
        out.host = authority.substr(0, c);
        out.port = authority.substr(c + 1);
    }
    return out;
}

std::optional<Error> check_endpoint_url(std::string_view field, std::string_view url, bool allow_loopback) {
    auto refuse = [&](const std::string& why) {
        return make_error("invalid_config", std::string(field) + " \"" + std::string(url) + "\" is not allowed: " + why);
    };
    const auto colon = url.find(':');
    if (colon == std::string_view::npos) return refuse("it is not a URL (expected http://host:port)");
    const auto scheme = lower(url.substr(0, colon));
    if (scheme != "http" && scheme != "https") return refuse("the scheme must be http or https");
    std::string_view rest = url.substr(colon + 1);
    if (rest.substr(0, 2) != "//") return refuse("it has no host");
    rest.remove_prefix(2);
    std::string_view authority = rest.substr(0, rest.find_first_of("/?#"));
    if (const auto at = authority.rfind('@'); at != std::string_view::npos) authority.remove_prefix(at + 1);
    const auto split = split_authority(authority);
    if (!split.error.empty()) return refuse(split.error);
    const std::string_view host = split.host, port = split.port;
    if (split.bracketed) {
        std::string ip(host.substr(0, host.find('%')));  // a zone id does not change the address
        std::array<std::uint8_t, 16> bytes{};
        if (inet_pton(AF_INET6, ip.c_str(), bytes.data()) != 1) return refuse("\"" + ip + "\" is not an IPv6 address");
        if (auto why = judge_ipv6(bytes, ip, allow_loopback); !why.empty()) return refuse(why);
    } else {
        if (host.find(':') != std::string_view::npos) return refuse("put an IPv6 address in brackets");
        std::string name = lower(host);
        if (!name.empty() && name.back() == '.') name.pop_back();  // "metadata.internal." is the same host
        if (name.empty()) return refuse("it has no host");
        if (!std::all_of(name.begin(), name.end(), hostname_char))
            return refuse("\"" + std::string(host) + "\" is not a host name or IP address");
        for (std::string_view blocked : {"metadata.google.internal", "metadata.internal", "instance-data.ec2.internal"})
            if (name == blocked) return refuse(name + " is a cloud metadata endpoint");
        if (const auto v4 = parse_ipv4_loose(name)) {
            if (auto why = judge_ipv4(*v4, allow_loopback); !why.empty()) return refuse(why);
        } else if (name == "localhost" || (name.size() > 10 && name.ends_with(".localhost"))) {
            if (!allow_loopback) return refuse(name + " is a loopback name" + std::string(kLoopbackHint));
        }
    }
    if (!std::all_of(port.begin(), port.end(), [](char ch) { return ch >= '0' && ch <= '9'; }) || port.size() > 5)
        return refuse("the port must be a number");
    return std::nullopt;
}

std::string check_resolved_address(std::string_view ip, bool allow_loopback) {
    const std::string text(ip.substr(0, ip.find('%')));  // a zone id does not change the address
    std::array<std::uint8_t, 16> v6{};
    if (inet_pton(AF_INET6, text.c_str(), v6.data()) == 1) return judge_ipv6(v6, text, allow_loopback);
    std::array<std::uint8_t, 4> v4{};
    if (inet_pton(AF_INET, text.c_str(), v4.data()) == 1)
        return judge_ipv4(static_cast<std::uint32_t>(v4[0]) << 24 | static_cast<std::uint32_t>(v4[1]) << 16 |
                              static_cast<std::uint32_t>(v4[2]) << 8 | v4[3],
                          allow_loopback);
    return "\"" + text + "\" is not an IP address";
}

std::optional<Error> plaintext_credential_refusal(std::string_view what, std::string_view address,
                                                  bool allow_plaintext_credentials) {
    if (allow_plaintext_credentials || lower(address.substr(0, address.find(':'))) != "http") return std::nullopt;
    return make_error("invalid_config", std::string(what) + " would be sent in the clear to " + std::string(address) +
                                            ": use an https address, or start the manager with "
                                            "--allow-plaintext-prometheus-credentials");
}

std::optional<Error> validate_effective_policy(const EffectivePolicy& policy, const PolicyValidationOptions& options) {
    auto needs_secret_reads = [](const std::string& field, std::string_view instead) {
        return make_error("invalid_config", field +
                                                " needs Secret reads, which are off: apply the kustomize component "
                                                "deploy/kustomize/components/secret-reads and start the manager with "
                                                "--allow-secret-reads, or " +
                                                std::string(instead));
    };
    auto secret_name = [](const std::string& field, const SecretKeyRef& ref) -> std::optional<Error> {
        if (ref.name.find('/') != std::string::npos)
            return make_error("invalid_config", field + ".name must not contain '/'; secrets are read from the "
                                                        "policy's namespace");
        return std::nullopt;
    };
    if (const auto& p = policy.metrics.prometheus) {
        if (auto e = check_endpoint_url(p->origin + ".address", p->address, options.allow_local_metrics_addresses))
            return e;
        if (p->bearer_token_secret) {
            const auto field = p->origin + ".bearerTokenSecret";
            if (auto e = secret_name(field, *p->bearer_token_secret)) return e;
            if (!options.allow_secret_reads) return needs_secret_reads(field, "mount the token into the manager instead");
            if (auto e = plaintext_credential_refusal(field, p->address, options.allow_plaintext_credentials)) return e;
        }
        // Only where it can take effect: an http address has no TLS to skip.
        if (p->insecure_skip_verify && lower(p->address.substr(0, p->address.find(':'))) == "https" &&
            !options.allow_insecure_tls)
            return make_error("invalid_config",
                              p->origin + ".tls.insecureSkipVerify is true, but this manager verifies every Prometheus' "
                                          "certificate: give the CA in tls.ca or tls.caSecret, or start the manager "
                                          "with --allow-prometheus-insecure-tls");
        if (p->ca_secret) {
            const auto field = p->origin + ".tls.caSecret";
            if (auto e = secret_name(field, *p->ca_secret)) return e;
            if (!options.allow_secret_reads) return needs_secret_reads(field, "put the PEM bundle in tls.ca instead");
        }
    }
    if (const auto* d = std::get_if<DatadogSource>(&policy.metrics.provider)) {
        const std::string field = "spec.metricsSource.datadog";
        if (std::find(std::begin(kDatadogSites), std::end(kDatadogSites), d->site) == std::end(kDatadogSites))
            return make_error("invalid_config", field + ".site \"" + d->site + "\" is not a Datadog site");
        if (auto e = secret_name(field + ".apiKeySecretRef", d->api_key_secret_ref)) return e;
        if (!options.allow_secret_reads)
            return needs_secret_reads(field + ".apiKeySecretRef",
                                      "use another metrics source (Datadog keys are read only from a Secret)");
    }
    if (const auto* c = std::get_if<CloudWatchSource>(&policy.metrics.provider)) {
        const std::string field = "spec.metricsSource.cloudwatch";
        // The region names the endpoint's host (monitoring.<region>.amazonaws.com).
        const auto region_ok = !c->region.empty() && std::all_of(c->region.begin(), c->region.end(), [](char ch) {
            return (ch >= 'a' && ch <= 'z') || (ch >= '0' && ch <= '9') || ch == '-';
        });
        if (!region_ok)
            return make_error("invalid_config", field + ".region \"" + c->region + "\" is not an AWS region name");
        // The cluster name is quoted inside a SEARCH expression, which has no escape for quotes.
        const auto cluster_ok =
            !c->cluster_name.empty() && std::all_of(c->cluster_name.begin(), c->cluster_name.end(), [](char ch) {
                return (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') || (ch >= '0' && ch <= '9') || ch == '-' ||
                       ch == '_' || ch == '.';
            });
        if (!cluster_ok)
            return make_error("invalid_config", field + ".clusterName \"" + c->cluster_name +
                                                    "\" holds a character an EKS cluster name cannot have");
        if (!c->invalid_cpu_unit.empty())
            return make_error("invalid_config",
                              field + ".cpuUnit \"" + c->invalid_cpu_unit + "\" is not Millicores, Cores or Nanocores");
        if (!c->role_arn.empty() && !c->role_arn.starts_with("arn:"))
            return make_error("invalid_config", field + ".roleArn \"" + c->role_arn + "\" is not an IAM role ARN");
    }
    // The schema checks minAllowed <= maxAllowed on cpu and memory, but not per
    // containerPolicies entry (the CEL cost budget): here, after the overlay.
    for (const auto& t : policy.container_tunings) {
        for (const auto* r : {&t.cpu, &t.memory}) {
            if (r->min_allowed > r->max_allowed)
                return make_error("invalid_config", "spec.containerPolicies \"" + t.container_name + "\": " +
                                                        (r == &t.cpu ? "cpu" : "memory") + ".minAllowed " +
                                                        r->min_allowed.to_string() + " exceeds maxAllowed " +
                                                        r->max_allowed.to_string());
        }
    }
    if (const auto& pr = policy.update_strategy.export_.pull_request; pr && pr->enabled && !pr->api_url.empty()) {
        // Loopback with --allow-local-metrics-addresses, as for Prometheus: the local control plane and e2e.
        if (auto e = check_endpoint_url("spec.updateStrategy.export.pullRequest.apiUrl", pr->api_url,
                                        options.allow_local_metrics_addresses))
            return e;
    }
    return std::nullopt;
}

}  // namespace attune::core
