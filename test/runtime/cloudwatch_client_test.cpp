// kube::CloudWatchClient and kube::StsClient against a loopback scripted TLS
// server: the signed GetMetricData calls they send (checked by signing the
// received request again), the pages followed, a throttled page retried,
// and every refusal as an outcome; STS's answers as credentials or errors.
#include "../runtime/run_coro.hpp"
#include "../runtime/scripted_tls_server.hpp"
#include "../runtime/test_certs.hpp"

#include <attune/core/recommend/cloudwatch_query.hpp>
#include <attune/core/recommend/cloudwatch_response.hpp>
#include <attune/kube/cloudwatch_client.hpp>
#include <attune/kube/sts_client.hpp>

#include <boost/asio/io_context.hpp>
#include <boost/json.hpp>

#include <gtest/gtest.h>

#include <optional>

#include <filesystem>
#include <fstream>
#include <sstream>

#include <unistd.h>

namespace attune::kube {
namespace {
using namespace std::chrono_literals;
using test::pki;
using test::run_coro;
using test::ScriptedReply;
using test::ScriptedTlsServer;

// Runs an awaitable whose value has no default (co_spawn wants one) to completion.
template <class T>
T run_to_result(boost::asio::io_context& io, boost::asio::awaitable<T> aw) {
    std::optional<T> out;
    test::run_coro(io, [&]() -> boost::asio::awaitable<void> { out.emplace(co_await std::move(aw)); }());
    return std::move(*out);
}

const core::AwsCredentials kKeys{"AKIDTEST", "test-secret-key", "test-session-token", {}};

std::string page(const char* label, const char* values, const char* next = nullptr) {
    std::string body = std::string(R"({"MetricDataResults":[{"Id":"search0","Label":")") + label +
                       R"(","StatusCode":"Complete","Timestamps":[1767225600,1767225660],"Values":[)" + values + "]}]";
    if (next) body += std::string(R"(,"NextToken":")") + next + "\"";
    return body + "}";
}

// The request's headers by lower-case name.
std::map<std::string, std::string> headers_of(const std::string& head) {
    std::map<std::string, std::string> out;
    std::istringstream in(head);
    std::string line;
    std::getline(in, line);
    while (std::getline(in, line)) {
        if (!line.empty() && line.back() == '\r') line.pop_back();
        const auto colon = line.find(':');
        if (colon == std::string::npos) continue;
        std::string name = line.substr(0, colon);
        for (auto& c : name) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
        out[name] = line.substr(line.find_first_not_of(' ', colon + 1));
    }
    return out;
}

// Signs what the server received again, with the headers its Authorization
// names: equal only if the client signed exactly what it sent.
void expect_signed(const test::RecordedRequest& r, const core::AwsCredentials& keys) {
    const auto h = headers_of(r.head);
    ASSERT_TRUE(h.count("authorization")) << r.head;
    const auto& auth = h.at("authorization");
    const auto from = auth.find("SignedHeaders=") + 14;
    const auto names = auth.substr(from, auth.find(',', from) - from);
    EXPECT_EQ(names, "content-type;host;x-amz-date;x-amz-security-token;x-amz-target");
    core::SigV4Request sr;
    sr.method = r.method;
    sr.path = r.target;
    std::istringstream list(names);
    for (std::string n; std::getline(list, n, ';');) sr.headers.emplace_back(n, h.at(n));
    sr.payload = r.body;
    const auto want = core::sigv4_sign(sr, keys, {"eu-west-1", "monitoring"}, h.at("x-amz-date"));
    EXPECT_EQ(auth, want.authorization);
    EXPECT_EQ(h.at("x-amz-target"), "GraniteServiceVersion20100801.GetMetricData");
    EXPECT_EQ(h.at("x-amz-security-token"), keys.session_token);
}

struct CloudWatchClientTest : ::testing::Test {
    boost::asio::io_context io;
    std::unique_ptr<ScriptedTlsServer> server;
    std::filesystem::path ca;

    void SetUp() override {
        server = std::make_unique<ScriptedTlsServer>(io, pki().server_cert_pem, pki().server_key_pem,
                                                     ScriptedTlsServer::Mode::Normal);
        ca = std::filesystem::temp_directory_path() / ("attune-cw-ca-" + std::to_string(::getpid()) + ".pem");
        std::ofstream(ca) << pki().ca_pem;
    }
    void TearDown() override { std::filesystem::remove(ca); }

    std::string url() const { return "https://127.0.0.1:" + std::to_string(server->port()); }
    std::shared_ptr<CloudWatchClient> client() {
        CloudWatchSettings s;
        s.base_url = url();
        s.region = "eu-west-1";
        s.http.ca_file = ca.string();
        s.http.query_timeout = 2s;
        auto c = CloudWatchClient::create(io.get_executor(), std::move(s));
        EXPECT_TRUE(c.ok()) << (c.ok() ? "" : c.error().message);
        return c.ok() ? c.value() : nullptr;
    }
    CloudWatchOutcome query(CloudWatchClient& c) {
        CloudWatchQuery q;
        q.expression = "SEARCH('x', 'Average', 60)";
        q.pod_prefix = "web-";
        q.period = 60s;
        q.start = 1767222000;
        q.end = 1767225600;
        return run_coro(io, c.query(q, kKeys));
    }
};

TEST_F(CloudWatchClientTest, EveryPageIsASignedPostFollowingTheToken) {
    server->script(ScriptedReply::http(200, page("web-1 app", "250,500", "next-1")));
    server->script(ScriptedReply::http(200, page("web-1 app", "750,1000")));
    auto c = client();
    const auto o = query(*c);
    ASSERT_TRUE(o.result.ok()) << o.result.error().message;
    EXPECT_EQ(o.pages, 2);
    ASSERT_EQ(o.result.value().series.size(), 1u);
    EXPECT_EQ(o.result.value().series[0].samples.size(), 4u);
    EXPECT_DOUBLE_EQ(o.result.value().series[0].samples[3].value, 1.0);
    ASSERT_EQ(server->requests().size(), 2u);
    for (const auto& r : server->requests()) {
        EXPECT_EQ(r.method, "POST");
        EXPECT_EQ(r.target, "/");
        expect_signed(r, kKeys);
    }
    const auto first = boost::json::parse(server->requests()[0].body);
    EXPECT_FALSE(first.as_object().contains("NextToken"));
    EXPECT_EQ(first.at("StartTime").as_int64(), 1767222000);
    EXPECT_EQ(boost::json::parse(server->requests()[1].body).at("NextToken").as_string(), "next-1");
}

TEST_F(CloudWatchClientTest, AThrottledPageIsRetriedAndThreeThrottlesGiveUp) {
    const auto throttled = [] {
        return ScriptedReply::
            http(400, R"({"__type":"com.amazon.coral.availability#ThrottlingException","message":"Rate exceeded"})");
    };
    server->script(throttled());
    server->script(ScriptedReply::http(200, page("web-1 app", "250,500")));
    auto c = client();
    auto o = query(*c);
    ASSERT_TRUE(o.result.ok()) << o.result.error().message;
    EXPECT_EQ(o.throttled, 1);
    EXPECT_EQ(server->requests().size(), 2u);

    for (int i = 0; i < core::kCloudWatchMaxAttempts; ++i) server->script(throttled());
    o = query(*c);
    ASSERT_FALSE(o.result.ok());
    EXPECT_EQ(o.result.error().code, "rate_limited");
    EXPECT_NE(o.result.error().message.find("throttled the query 3 times (400 ThrottlingException: Rate exceeded)"),
              std::string::npos)
        << o.result.error().message;
    EXPECT_EQ(server->requests().size(), 2u + core::kCloudWatchMaxAttempts);
}

TEST_F(CloudWatchClientTest, EachRefusalIsItsOutcomeAndNoMessageHoldsACredential) {
    const struct {
        const char* what;
        ScriptedReply reply;
        const char* code;
        const char* message;
    } rows[] = {
        {"a wrong secret key",
         ScriptedReply::http(
             403,
             R"({"__type":"SignatureDoesNotMatch","message":"The request signature we calculated does not match the signature you provided."})"),
         "unauthorized", "refused the request with 403 SignatureDoesNotMatch: The request signature we calculated"},
        {"an unknown key", ScriptedReply::http(400, R"({"__type":"UnrecognizedClientException","message":"bad"})"),
         "unauthorized", "(check the AWS credentials)"},
        {"a bad parameter", ScriptedReply::http(400, R"({"__type":"InvalidParameterValueException","message":"no"})"),
         "http_status", "answered 400 InvalidParameterValueException: no"},
        {"garbage", ScriptedReply::http(200, "<html>"), "invalid_response", "not JSON"},
    };
    for (const auto& r : rows) {
        SCOPED_TRACE(r.what);
        server->script(r.reply);
        auto c = client();
        const auto o = query(*c);
        ASSERT_FALSE(o.result.ok());
        EXPECT_EQ(o.result.error().code, r.code);
        EXPECT_NE(o.result.error().message.find(r.message), std::string::npos) << o.result.error().message;
        EXPECT_EQ(o.result.error().message.find("test-se"), std::string::npos) << o.result.error().message;
    }
}

TEST_F(CloudWatchClientTest, PlainHttpIsRefusedAtCreate) {
    CloudWatchSettings s;
    s.base_url = "http://127.0.0.1:1";
    s.region = "eu-west-1";
    auto c = CloudWatchClient::create(io.get_executor(), s);
    ASSERT_FALSE(c.ok());
    EXPECT_EQ(c.error().code, "invalid_config");
}

TEST_F(CloudWatchClientTest, StsWebIdentityGivesCredentialsOrStsOwnError) {
    StsSettings s;
    s.base_url = url();
    s.http.ca_file = ca.string();
    s.http.query_timeout = 2s;
    auto sts = StsClient::create(io.get_executor(), s).value();
    server->script(ScriptedReply::http(200, R"(<AssumeRoleWithWebIdentityResponse><AssumeRoleWithWebIdentityResult>
<Credentials><AccessKeyId>ASIA1</AccessKeyId><SecretAccessKey>sk</SecretAccessKey><SessionToken>st</SessionToken>
<Expiration>2030-01-01T00:00:00Z</Expiration></Credentials></AssumeRoleWithWebIdentityResult></AssumeRoleWithWebIdentityResponse>)"));
    auto got =
        run_to_result(io, sts->assume_role_with_web_identity("arn:aws:iam::1:role/r", "attune-manager", "jwt.tok"));
    ASSERT_TRUE(got.ok()) << got.error().message;
    EXPECT_EQ(got.value().access_key_id, "ASIA1");
    const auto& req = server->requests().back();
    EXPECT_EQ(req.method, "POST");
    EXPECT_EQ(req.body,
              "Action=AssumeRoleWithWebIdentity&Version=2011-06-15&RoleArn=arn%3Aaws%3Aiam%3A%3A1%3Arole%2Fr"
              "&RoleSessionName=attune-manager&WebIdentityToken=jwt.tok");
    EXPECT_EQ(headers_of(req.head).count("authorization"), 0u) << "the call is not signed";

    server->script(ScriptedReply::http(400,
                                       "<ErrorResponse><Error><Code>InvalidIdentityToken</Code><Message>No "
                                       "OpenIDConnect provider found</Message></Error></ErrorResponse>"));
    got = run_to_result(io, sts->assume_role_with_web_identity("arn:aws:iam::1:role/r", "attune-manager", "jwt.tok"));
    ASSERT_FALSE(got.ok());
    EXPECT_EQ(got.error().code, "sts_error");
    EXPECT_NE(got.error().message.find("InvalidIdentityToken: No OpenIDConnect provider found"), std::string::npos)
        << got.error().message;
    EXPECT_EQ(got.error().message.find("jwt.tok"), std::string::npos);
}

}  // namespace
}  // namespace attune::kube
