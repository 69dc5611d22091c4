// core::sigv4_*: hand-written cases, their figures computed independently
// with Python's hmac and hashlib (the IAM ListUsers example is also the one
// AWS's SigV4 documentation walks through). AWS's own vectors are in
// sigv4_suite_test.cpp.
#include "attune/core/aws/sigv4.hpp"

#include <gtest/gtest.h>

namespace attune::core {
namespace {

using namespace std::chrono_literals;

const AwsCredentials kExample{"AKIDEXAMPLE", "wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY", "", {}};

TEST(SigV4, TheIamListUsersExampleSignsAsComputedIndependently) {
    SigV4Request r;
    r.path = "/";
    r.query = {{"Version", "2010-05-08"}, {"Action", "ListUsers"}};
    r.headers = {{"Host", "iam.amazonaws.com"},
                 {"Content-Type", "application/x-www-form-urlencoded; charset=utf-8"},
                 {"X-Amz-Date", "20150830T123600Z"}};
    const SigV4Scope scope{"us-east-1", "iam"};
    const auto s = sigv4_sign(r, kExample, scope, "20150830T123600Z");
    EXPECT_EQ(s.canonical_request,
              "GET\n/\nAction=ListUsers&Version=2010-05-08\n"
              "content-type:application/x-www-form-urlencoded; charset=utf-8\nhost:iam.amazonaws.com\n"
              "x-amz-date:20150830T123600Z\n\ncontent-type;host;x-amz-date\n"
              "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
    EXPECT_EQ(s.string_to_sign,
              "AWS4-HMAC-SHA256\n20150830T123600Z\n20150830/us-east-1/iam/aws4_request\n"
              "f536975d06c0309214f805bb90ccff089219ecd68b2577efef23edd43b7e1a59");
    const auto key = sigv4_signing_key(kExample.secret_access_key, "20150830", scope);
    std::string key_hex;
    for (unsigned char c : key) key_hex += "0123456789abcdef"[c >> 4], key_hex += "0123456789abcdef"[c & 0xf];
    EXPECT_EQ(key_hex, "c4afb1cc5771d871763a393e44b703571b55cc28424d1a5e86da6ed3c154a4b9");
    EXPECT_EQ(s.authorization,
              "AWS4-HMAC-SHA256 Credential=AKIDEXAMPLE/20150830/us-east-1/iam/aws4_request, "
              "SignedHeaders=content-type;host;x-amz-date, "
              "Signature=5d672d79c15b13162d9279b0855cfba6789a8edb4c82c400e06b5924a6f2b5d7");
}

TEST(SigV4, AGetMetricDataPostWithASessionTokenSignsTheTokenAndTheBody) {
    const AwsCredentials creds{"AKIDTEMP", "secret-e2e", "token/with+chars=", {}};
    const std::string ts = sigv4_timestamp(std::chrono::system_clock::time_point(1700000000s));
    ASSERT_EQ(ts, "20231114T221320Z");
    SigV4Request r;
    r.method = "POST";
    r.headers = {{"Host", "monitoring.eu-west-1.amazonaws.com"},
                 {"Content-Type", "application/x-amz-json-1.0"},
                 {"X-Amz-Target", "GraniteServiceVersion20100801.GetMetricData"}};
    for (auto& h : sigv4_headers(creds, ts)) r.headers.push_back(h);
    r.payload = R"({"StartTime":1700000000,"EndTime":1700003600})";
    const auto s = sigv4_sign(r, creds, {"eu-west-1", "monitoring"}, ts);
    EXPECT_EQ(s.signed_headers, "content-type;host;x-amz-date;x-amz-security-token;x-amz-target");
    EXPECT_NE(s.canonical_request.find("x-amz-security-token:token/with+chars=\n"), std::string::npos);
    EXPECT_TRUE(s.canonical_request.ends_with("205cb6990876aba8c4497921096b6ca23edb014e643806a4ef96018a94f2a321"));
    EXPECT_EQ(s.authorization,
              "AWS4-HMAC-SHA256 Credential=AKIDTEMP/20231114/eu-west-1/monitoring/aws4_request, "
              "SignedHeaders=content-type;host;x-amz-date;x-amz-security-token;x-amz-target, "
              "Signature=54dfd1d96a9dd0dee6093c97f3d30f2efbed57b6cbcf77f3cded22f663054aab");
}

TEST(SigV4, LongTermKeysSendNoTokenHeader) {
    const auto h = sigv4_headers(kExample, "20150830T123600Z");
    ASSERT_EQ(h.size(), 1u);
    EXPECT_EQ(h[0].first, "X-Amz-Date");
}

TEST(SigV4, UriEncodingKeepsOnlyUnreservedCharacters) {
    struct Case {
        const char* in;
        bool keep_slash;
        const char* want;
    };
    for (const auto& c :
         {Case{"-._~azAZ09", false, "-._~azAZ09"}, Case{"a b", false, "a%20b"}, Case{"a/b", false, "a%2Fb"},
          Case{"a/b", true, "a/b"}, Case{"=&+*", false, "%3D%26%2B%2A"}, Case{"\xe1\x88\xb4", false, "%E1%88%B4"}})
        EXPECT_EQ(aws_uri_encode(c.in, c.keep_slash), c.want) << c.in;
}

TEST(SigV4, PathsAreNormalizedBeforeEncoding) {
    struct Case {
        const char* path;
        const char* want;
    };
    for (const auto& c :
         {Case{"/", "/"}, Case{"//", "/"}, Case{"/a/..", "/"}, Case{"/a/b/../..", "/"}, Case{"/./a", "/a"},
          Case{"//a//", "/a/"}, Case{"/a b/", "/a%20b/"}, Case{"/a/$b", "/a/%24b"}}) {
        SigV4Request r;
        r.path = c.path;
        const auto creq = sigv4_canonical_request(r);
        EXPECT_EQ(creq.substr(4, creq.find('\n', 4) - 4), c.want) << c.path;
    }
}

TEST(SigV4, HeadersAreLowerCasedTrimmedSortedAndRepeatsJoined) {
    SigV4Request r;
    r.headers = {{"X-B", "  two   words "}, {"x-a", "1"}, {"X-A", "2"}, {"Host", "h"}};
    std::string names;
    const auto creq = sigv4_canonical_request(r, &names);
    EXPECT_EQ(names, "host;x-a;x-b");
    EXPECT_NE(creq.find("\nhost:h\nx-a:1,2\nx-b:two words\n\n"), std::string::npos) << creq;
}

TEST(SigV4, QueryParametersAreSortedByEncodedNameThenValue) {
    SigV4Request r;
    r.query = {{"b", "2"}, {"a", "z"}, {"a", "y"}, {"c d", ""}};
    const auto creq = sigv4_canonical_request(r);
    EXPECT_NE(creq.find("\na=y&a=z&b=2&c%20d=\n"), std::string::npos) << creq;
}

}  // namespace
}  // namespace attune::core
