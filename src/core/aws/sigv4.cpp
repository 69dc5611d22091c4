#include "attune/core/aws/sigv4.hpp"

#include <openssl/evp.h>
#include <openssl/hmac.h>

#include <algorithm>
#include <ctime>
#include <map>

namespace attune::core {

namespace {

std::string hex(const unsigned char* p, std::size_t n) {
    static constexpr char kDigits[] = "0123456789abcdef";
    std::string out;
    out.reserve(n * 2);
    for (std::size_t i = 0; i < n; ++i) {
        out += kDigits[p[i] >> 4];
        out += kDigits[p[i] & 0xf];
    }
    return out;
}

std::string hmac(std::string_view key, std::string_view data) {
    unsigned char out[EVP_MAX_MD_SIZE];
    unsigned int n = 0;
    HMAC(EVP_sha256(), key.data(), static_cast<int>(key.size()), reinterpret_cast<const unsigned char*>(data.data()),
         data.size(), out, &n);
    return std::string(reinterpret_cast<const char*>(out), n);
}

bool unreserved(unsigned char c) {
    return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-' || c == '_' ||
           c == '.' || c == '~';
}

// RFC 3986 remove_dot_segments, with empty segments dropped too (AWS's
// normalization for every service but S3); a trailing "/" stays.
std::string normalize_path(std::string_view path) {
    std::vector<std::string_view> out;
    std::size_t i = 0;
    while (i <= path.size()) {
        const auto j = std::min(path.find('/', i), path.size());
        const auto seg = path.substr(i, j - i);
        if (seg == "..") {
            if (!out.empty()) out.pop_back();
        } else if (!seg.empty() && seg != ".") {
            out.push_back(seg);
        }
        i = j + 1;
    }
    std::string result;
    for (const auto& seg : out) result += "/" + std::string(seg);
    const bool trailing = path.size() > 1 && (path.ends_with("/") || path.ends_with("/.") || path.ends_with("/.."));
    if (result.empty() || trailing) result += "/";
    return result;
}

std::string canonical_value(std::string_view v) {
    std::string out;
    bool space = false;
    for (const char c : v) {
        // A folded header's line breaks count as spaces.
        if (c == ' ' || c == '\t' || c == '\n' || c == '\r') {
            space = !out.empty();
            continue;
        }
        if (space) out += ' ';
        space = false;
        out += c;
    }
    return out;
}

std::string lower(std::string_view s) {
    std::string out(s);
    std::transform(out.begin(), out.end(), out.begin(),
                   [](unsigned char c) { return static_cast<char>(c >= 'A' && c <= 'Z' ? c - 'A' + 'a' : c); });
    return out;
}

}  // namespace

std::string sigv4_timestamp(std::chrono::system_clock::time_point t) {
    const std::time_t secs = std::chrono::system_clock::to_time_t(t);
    std::tm tm{};
    gmtime_r(&secs, &tm);
    char buf[32];
    std::strftime(buf, sizeof buf, "%Y%m%dT%H%M%SZ", &tm);
    return buf;
}

std::string aws_uri_encode(std::string_view s, bool keep_slash) {
    static constexpr char kDigits[] = "0123456789ABCDEF";
    std::string out;
    out.reserve(s.size());
    for (const char ch : s) {
        const auto c = static_cast<unsigned char>(ch);
        if (unreserved(c) || (keep_slash && c == '/')) {
            out += ch;
        } else {
            out += '%';
            out += kDigits[c >> 4];
            out += kDigits[c & 0xf];
        }
    }
    return out;
}

std::string sha256_hex(std::string_view data) {
    unsigned char out[EVP_MAX_MD_SIZE];
    unsigned int n = 0;
    EVP_Digest(data.data(), data.size(), out, &n, EVP_sha256(), nullptr);
    return hex(out, n);
}

std::string sigv4_canonical_request(const SigV4Request& r, std::string* signed_headers) {
    std::vector<std::pair<std::string, std::string>> query;
    query.reserve(r.query.size());
    for (const auto& [k, v] : r.query) query.emplace_back(aws_uri_encode(k, false), aws_uri_encode(v, false));
    std::sort(query.begin(), query.end());
    std::string q;
    for (const auto& [k, v] : query) q += (q.empty() ? "" : "&") + k + "=" + v;

    std::map<std::string, std::string> headers;  // sorted by lower-case name
    for (const auto& [name, value] : r.headers) {
        auto& joined = headers[lower(name)];
        joined += (joined.empty() ? "" : ",") + canonical_value(value);
    }
    std::string canonical_headers, names;
    for (const auto& [name, value] : headers) {
        canonical_headers += name + ":" + value + "\n";
        names += (names.empty() ? "" : ";") + name;
    }
    if (signed_headers) *signed_headers = names;
    return r.method + "\n" + aws_uri_encode(normalize_path(r.path), true) + "\n" + q + "\n" + canonical_headers + "\n" +
           names + "\n" + sha256_hex(r.payload);
}

std::string sigv4_string_to_sign(std::string_view timestamp, const SigV4Scope& scope,
                                 std::string_view canonical_request) {
    const std::string date(timestamp.substr(0, 8));
    return "AWS4-HMAC-SHA256\n" + std::string(timestamp) + "\n" + date + "/" + scope.region + "/" + scope.service +
           "/aws4_request\n" + sha256_hex(canonical_request);
}

std::string sigv4_signing_key(std::string_view secret, std::string_view date, const SigV4Scope& scope) {
    return hmac(hmac(hmac(hmac("AWS4" + std::string(secret), date), scope.region), scope.service), "aws4_request");
}

SigV4Signature sigv4_sign(const SigV4Request& request, const AwsCredentials& credentials, const SigV4Scope& scope,
                          std::string_view timestamp) {
    SigV4Signature s;
    s.canonical_request = sigv4_canonical_request(request, &s.signed_headers);
    s.string_to_sign = sigv4_string_to_sign(timestamp, scope, s.canonical_request);
    const std::string date(timestamp.substr(0, 8));
    const auto raw = hmac(sigv4_signing_key(credentials.secret_access_key, date, scope), s.string_to_sign);
    s.authorization = "AWS4-HMAC-SHA256 Credential=" + credentials.access_key_id + "/" + date + "/" + scope.region +
                      "/" + scope.service + "/aws4_request, SignedHeaders=" + s.signed_headers +
                      ", Signature=" + hex(reinterpret_cast<const unsigned char*>(raw.data()), raw.size());
    return s;
}

SigV4Pairs sigv4_headers(const AwsCredentials& credentials, std::string_view timestamp) {
    SigV4Pairs h{{"X-Amz-Date", std::string(timestamp)}};
    if (!credentials.session_token.empty()) h.emplace_back("X-Amz-Security-Token", credentials.session_token);
    return h;
}

}  // namespace attune::core
