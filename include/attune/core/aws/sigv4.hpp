#pragma once
// AWS Signature Version 4 (docs/recommender.md#cloudwatch), as pure
// functions: the canonical request, the string to sign, the signing key and
// the Authorization header of one request. The shell gives the request as it
// will send it (method, decoded path and query, every header it signs, the
// body) and the time; nothing here reads a clock or the network.
//
// The rules are AWS's published ones, proven against AWS's own test vectors
// (test/core/aws/sigv4_suite_test.cpp):
//  - the path is normalized (no "." / ".." segments, no empty ones, a
//    trailing "/" kept) and URI-encoded once, "/" left as is;
//  - query parameters are URI-encoded, sorted by name then value;
//  - header names are lower-cased and sorted, values trimmed with inner runs
//    of spaces made one; a name given twice has its values joined with ",";
//  - the payload hash is the hex SHA-256 of the body.
#include <chrono>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace attune::core {

struct AwsCredentials {
    std::string access_key_id;
    std::string secret_access_key;
    std::string session_token;  // "" : long-term keys, no X-Amz-Security-Token
    // When temporary credentials stop working; epoch (zero) : never.
    std::chrono::system_clock::time_point expiration{};
    friend bool operator==(const AwsCredentials&, const AwsCredentials&) = default;
};

using SigV4Pairs = std::vector<std::pair<std::string, std::string>>;

struct SigV4Request {
    std::string method = "GET";
    std::string path = "/";  // decoded: "/a b" is encoded as "/a%20b"
    SigV4Pairs query;        // decoded names and values
    SigV4Pairs headers;      // every header to sign, Host and X-Amz-Date among them
    std::string payload;
};

struct SigV4Scope {
    std::string region;
    std::string service;
};

// The parts of one signature; `authorization` is the header's value.
struct SigV4Signature {
    std::string canonical_request;
    std::string string_to_sign;
    std::string signed_headers;  // "host;x-amz-date"
    std::string authorization;
};

// "20150830T123600Z": the X-Amz-Date value of a time.
std::string sigv4_timestamp(std::chrono::system_clock::time_point t);
// RFC 3986 encoding as SigV4 wants it: unreserved characters kept, every
// other byte as %XX (upper case); "/" kept when `keep_slash`.
std::string aws_uri_encode(std::string_view s, bool keep_slash);
std::string sha256_hex(std::string_view data);

std::string sigv4_canonical_request(const SigV4Request& request, std::string* signed_headers = nullptr);
// `timestamp` as sigv4_timestamp makes it.
std::string sigv4_string_to_sign(std::string_view timestamp, const SigV4Scope& scope,
                                 std::string_view canonical_request);
// The raw 32 bytes of HMAC(HMAC(HMAC(HMAC("AWS4" + secret, date), region), service), "aws4_request").
std::string sigv4_signing_key(std::string_view secret, std::string_view date, const SigV4Scope& scope);

// Signs `request` as it stands: its headers must already hold Host and
// X-Amz-Date (= `timestamp`), and X-Amz-Security-Token when the
// credentials have a session token (sigv4_headers adds both).
SigV4Signature sigv4_sign(const SigV4Request& request, const AwsCredentials& credentials, const SigV4Scope& scope,
                          std::string_view timestamp);

// What a client adds before signing: X-Amz-Date, and X-Amz-Security-Token
// for temporary credentials.
SigV4Pairs sigv4_headers(const AwsCredentials& credentials, std::string_view timestamp);

}  // namespace attune::core
