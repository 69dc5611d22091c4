// core::sigv4_sign against AWS's published Signature Version 4 test suite
// (the aws4_testsuite files: for each case a raw request .req, and the
// canonical request .creq, string to sign .sts and Authorization value
// .authz AWS expects). The files are not in this repository: a package
// that ships them is fetched at test-setup time by hack/sigv4-vectors.sh
// (hack/deps.sh runs it) into ATTUNE_SIGV4_SUITE, by default
// ${XDG_CACHE_HOME:-~/.cache}/attune/aws4_testsuite. Without them the test
// is skipped and says how to get them.
#include "attune/core/aws/sigv4.hpp"

#include <gtest/gtest.h>

#include <cctype>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>

namespace attune::core {
namespace {

namespace fs = std::filesystem;

// The suite's fixed inputs, as its own readme states them.
const AwsCredentials kSuiteKeys{"AKIDEXAMPLE", "wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY", "", {}};
const SigV4Scope kSuiteScope{"us-east-1", "service"};
constexpr const char* kSuiteTime = "20150830T123600Z";

fs::path suite_dir() {
    if (const char* d = std::getenv("ATTUNE_SIGV4_SUITE"); d && *d) return d;
    if (const char* x = std::getenv("XDG_CACHE_HOME"); x && *x) return fs::path(x) / "attune" / "aws4_testsuite";
    if (const char* h = std::getenv("HOME"); h && *h) return fs::path(h) / ".cache" / "attune" / "aws4_testsuite";
    return {};
}

std::string read(const fs::path& p) {
    std::ifstream in(p, std::ios::binary);
    std::ostringstream ss;
    ss << in.rdbuf();
    std::string s = ss.str();
    std::erase(s, '\r');
    return s;
}

std::string percent_decode(std::string_view s) {
    std::string out;
    for (std::size_t i = 0; i < s.size(); ++i) {
        if (s[i] == '%' && i + 2 < s.size() && std::isxdigit(static_cast<unsigned char>(s[i + 1])) &&
            std::isxdigit(static_cast<unsigned char>(s[i + 2]))) {
            out += static_cast<char>(std::stoi(std::string(s.substr(i + 1, 2)), nullptr, 16));
            i += 2;
        } else {
            out += s[i];
        }
    }
    return out;
}

// "METHOD TARGET HTTP/1.1", header lines (a line that starts with white
// space continues the one before), an empty line, the body.
SigV4Request parse_request(const std::string& raw) {
    SigV4Request r;
    std::istringstream in(raw);
    std::string line;
    std::getline(in, line);
    r.method = line.substr(0, line.find(' '));
    const auto target = line.substr(line.find(' ') + 1, line.rfind(' ') - line.find(' ') - 1);
    const auto q = target.find('?');
    r.path = percent_decode(target.substr(0, q));
    if (q != std::string::npos) {
        std::string_view rest(target);
        rest.remove_prefix(q + 1);
        while (!rest.empty()) {
            const auto amp = std::min(rest.find('&'), rest.size());
            const auto pair = rest.substr(0, amp);
            const auto eq = pair.find('=');
            r.query.emplace_back(percent_decode(pair.substr(0, eq)),
                                 eq == std::string_view::npos ? "" : percent_decode(pair.substr(eq + 1)));
            rest.remove_prefix(std::min(amp + 1, rest.size()));
        }
    }
    while (std::getline(in, line) && !line.empty()) {
        if ((line[0] == ' ' || line[0] == '\t') && !r.headers.empty()) {
            r.headers.back().second += "\n" + line;
            continue;
        }
        const auto colon = line.find(':');
        r.headers.emplace_back(line.substr(0, colon), line.substr(colon + 1));
    }
    std::string body, part;
    bool first = true;
    while (std::getline(in, part)) {
        body += (first ? "" : "\n") + part;
        first = false;
    }
    r.payload = body;
    return r;
}

TEST(SigV4Suite, EveryPublishedVectorSignsAsAwsExpects) {
    const auto dir = suite_dir();
    if (dir.empty() || !fs::is_directory(dir))
        GTEST_SKIP() << "AWS's SigV4 test vectors are not at " << dir
                     << ": run hack/sigv4-vectors.sh (hack/deps.sh does), or point ATTUNE_SIGV4_SUITE at an "
                        "aws4_testsuite directory";
    int cases = 0;
    for (const auto& e : fs::recursive_directory_iterator(dir)) {
        if (e.path().extension() != ".req") continue;
        const auto base = e.path().parent_path() / e.path().stem();
        SCOPED_TRACE(base.string());
        auto request = parse_request(read(e.path()));
        const auto creq = read(base.string() + ".creq");
        // A case signed with temporary credentials names its token in the
        // canonical request; when the raw request lacks the header, the
        // signer adds it (get-vanilla-with-session-token).
        AwsCredentials keys = kSuiteKeys;
        if (const auto at = creq.find("\nx-amz-security-token:"); at != std::string::npos) {
            const auto from = at + 22;
            keys.session_token = creq.substr(from, creq.find('\n', from) - from);
            bool present = false;
            for (const auto& [k, v] : request.headers) present |= (k == "X-Amz-Security-Token");
            if (!present) request.headers.emplace_back("X-Amz-Security-Token", keys.session_token);
        }
        const auto s = sigv4_sign(request, keys, kSuiteScope, kSuiteTime);
        EXPECT_EQ(s.canonical_request, creq);
        EXPECT_EQ(s.string_to_sign, read(base.string() + ".sts"));
        EXPECT_EQ(s.authorization, read(base.string() + ".authz"));
        ++cases;
    }
    // The suite has 34 cases; a partial download must not pass as a run.
    EXPECT_GE(cases, 30) << "only " << cases << " cases under " << dir;
    std::cout << "[ SigV4    ] " << cases << " AWS test vectors checked from " << dir << "\n";
}

}  // namespace
}  // namespace attune::core
