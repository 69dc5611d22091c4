// controller::CloudWatchClients: the endpoints, one client per endpoint and
// region, the request budget and its hold after throttling, and the
// credentials taken from the environment it is given.
#include <attune/controller/cloudwatch_clients.hpp>

#include "../runtime/run_coro.hpp"

#include <boost/asio/io_context.hpp>

#include <gtest/gtest.h>

#include <optional>

namespace attune::controller {
namespace {

using namespace std::chrono_literals;
using Clock = CloudWatchClients::Clock;

// Runs an awaitable whose value has no default (co_spawn wants one) to completion.
template <class T>
T run_to_result(boost::asio::io_context& io, boost::asio::awaitable<T> aw) {
    std::optional<T> out;
    test::run_coro(io, [&]() -> boost::asio::awaitable<void> { out.emplace(co_await std::move(aw)); }());
    return std::move(*out);
}

core::CloudWatchSource source(const char* region = "eu-west-1") {
    core::CloudWatchSource s;
    s.region = region;
    s.cluster_name = "prod";
    return s;
}

TEST(CloudWatchClients, TheEndpointsAreTheRegionsUnlessTheManagerSetsThem) {
    CloudWatchClientsOptions o;
    EXPECT_EQ(cloudwatch_endpoint(o, "eu-west-1"), "https://monitoring.eu-west-1.amazonaws.com");
    EXPECT_EQ(sts_endpoint(o, "eu-west-1"), "https://sts.eu-west-1.amazonaws.com");
    o.url = "https://127.0.0.1:8443";
    o.sts_url = "https://127.0.0.1:8444";
    EXPECT_EQ(cloudwatch_endpoint(o, "eu-west-1"), "https://127.0.0.1:8443");
    EXPECT_EQ(sts_endpoint(o, "us-east-1"), "https://127.0.0.1:8444");
}

TEST(CloudWatchClients, OneClientPerEndpointAndRegion) {
    boost::asio::io_context io;
    CloudWatchClients clients(io.get_executor(), {});
    const auto now = Clock::now();
    auto a = clients.get(source(), now).value();
    EXPECT_EQ(clients.get(source(), now).value(), a);
    EXPECT_NE(clients.get(source("us-east-1"), now).value(), a);
    EXPECT_EQ(clients.size(), 2u);
    clients.shutdown();
    EXPECT_FALSE(clients.get(source(), now).ok());
}

TEST(CloudWatchClients, AQueryThrottledThroughItsRetriesHoldsTheRegion) {
    boost::asio::io_context io;
    CloudWatchClientsOptions o;
    o.qps = 5;
    o.burst = 2;
    CloudWatchClients clients(io.get_executor(), o);
    const auto t0 = Clock::now();
    auto c = clients.get(source(), t0).value();
    EXPECT_EQ(clients.admit(c, t0, 0s).wait, std::chrono::nanoseconds(0));
    EXPECT_EQ(clients.admit(c, t0, 0s).wait, std::chrono::nanoseconds(0));
    const auto spent = clients.admit(c, t0, 0s);
    EXPECT_FALSE(spent.wait.has_value());
    EXPECT_EQ(spent.why,
              "the CloudWatch request budget of region eu-west-1 (2 at once, then 5 a second) is spent: the query "
              "waits for the next refresh");
    clients.note_throttled(c, "cloudwatch throttled the query 3 times", t0 + 1s);
    const auto held = clients.admit(c, t0 + 11s, 30s);
    EXPECT_FALSE(held.wait.has_value());
    EXPECT_EQ(held.why, "cloudwatch throttled the query 3 times (not asked again for 20 s)");
    EXPECT_TRUE(clients.admit(c, t0 + 31s, 30s).wait.has_value());
}

TEST(CloudWatchClients, KeysComeFromTheEnvironmentAndMissingOnesAreNamed) {
    boost::asio::io_context io;
    CloudWatchClientsOptions o;
    core::AwsEnvironment env;
    o.environment = [&env] { return env; };
    CloudWatchClients clients(io.get_executor(), o);
    auto got = run_to_result(io, clients.credentials(source()));
    ASSERT_FALSE(got.ok());
    EXPECT_EQ(got.error().code, "no_credentials");
    env.access_key_id = "AKID";
    env.secret_access_key = "secret";
    got = run_to_result(io, clients.credentials(source()));
    ASSERT_TRUE(got.ok()) << got.error().message;
    EXPECT_EQ(got.value().access_key_id, "AKID");
    // A roleArn with a token file that cannot be read: named, with the role.
    env.web_identity_token_file = "/nonexistent/attune-token";
    auto with_role = source();
    with_role.role_arn = "arn:aws:iam::1:role/r";
    got = run_to_result(io, clients.credentials(with_role));
    ASSERT_FALSE(got.ok());
    EXPECT_EQ(got.error().code, "token_file");
    EXPECT_NE(got.error().message.find("/nonexistent/attune-token cannot be read"), std::string::npos);
    EXPECT_NE(got.error().message.find("role arn:aws:iam::1:role/r"), std::string::npos);
}

}  // namespace
}  // namespace attune::controller
