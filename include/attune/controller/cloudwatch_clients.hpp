#pragma once
// The CloudWatch source's clients and credentials
// (docs/recommender.md#cloudwatch). One CloudWatchClient per endpoint and
// region, shared by every workload that uses it, with the Go original's
// request budget (5 a second, bursts of 10, well under GetMetricData's
// quota); after a query still throttled through its retries, or one that
// got no answer, nothing more is sent for a while. The credentials follow
// core::plan_aws_credentials over the manager's environment; temporary
// ones from STS AssumeRoleWithWebIdentity are kept until five minutes
// before they expire, and the token file is read anew for each renewal.
#include <attune/controller/query_budget.hpp>
#include <attune/core/aws/aws_credentials.hpp>
#include <attune/core/policy/policy.hpp>
#include <attune/kube/cloudwatch_client.hpp>
#include <attune/kube/sts_client.hpp>

#include <boost/asio/any_io_executor.hpp>
#include <boost/asio/awaitable.hpp>

#include <chrono>
#include <functional>
#include <map>
#include <memory>
#include <string>

namespace attune::controller {

// AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY, AWS_SESSION_TOKEN, AWS_ROLE_ARN,
// AWS_WEB_IDENTITY_TOKEN_FILE and AWS_ROLE_SESSION_NAME of this process.
core::AwsEnvironment process_aws_environment();

struct CloudWatchClientsOptions {
    CloudWatchClientsOptions() = default;
    std::chrono::milliseconds query_timeout{30'000};
    // --cloudwatch-url / --sts-url: the endpoint of every CloudWatch policy
    // instead of https://monitoring.<region>.amazonaws.com, and of STS
    // instead of https://sts.<region>.amazonaws.com; "" : the region's.
    std::string url;
    std::string sts_url;
    std::string ca_file;  // --cloudwatch-ca-file: a PEM bundle trusted for both; "" : the system store
    // The SSRF rule (core::check_resolved_address) on every address the
    // host resolves to, at connect time; loopback with --allow-local-metrics-addresses.
    bool allow_local_addresses = false;
    double qps = 5;  // --cloudwatch-qps
    int burst = 10;  // --cloudwatch-burst
    std::size_t max_clients = 64;
    std::chrono::seconds idle_ttl{600};
    std::chrono::seconds hold_after_failure{10};   // after an unanswered query
    std::chrono::seconds hold_after_throttle{30};  // after a query throttled through its retries
    std::function<core::AwsEnvironment()> environment = process_aws_environment;
};

std::string cloudwatch_endpoint(const CloudWatchClientsOptions& options, const std::string& region);
std::string sts_endpoint(const CloudWatchClientsOptions& options, const std::string& region);

class CloudWatchClients {
public:
    using Clock = std::chrono::steady_clock;
    using Admission = QueryBudget::Admission;
    CloudWatchClients(boost::asio::any_io_executor ex, CloudWatchClientsOptions opts);

    // Error "invalid_config" from CloudWatchClient::create.
    core::Result<std::shared_ptr<kube::CloudWatchClient>> get(const core::CloudWatchSource& source,
                                                              Clock::time_point now);
    // The credentials to sign with. Errors: "no_credentials" (the plan's),
    // "token_file" (the web identity token cannot be read), STS's
    // (kube::StsClient), each message saying which credentials were tried.
    boost::asio::awaitable<core::Result<core::AwsCredentials>> credentials(const core::CloudWatchSource& source);

    Admission admit(const std::shared_ptr<kube::CloudWatchClient>& client, Clock::time_point now,
                    std::chrono::nanoseconds max_wait);
    void note_throttled(const std::shared_ptr<kube::CloudWatchClient>& client, std::string message,
                        Clock::time_point now);
    void note_unanswered(const std::shared_ptr<kube::CloudWatchClient>& client, std::string message,
                         Clock::time_point now);
    void note_answered(const std::shared_ptr<kube::CloudWatchClient>& client);

    void shutdown() noexcept;
    bool stopped() const noexcept { return stopped_; }
    std::size_t size() const noexcept { return clients_.size(); }
    const CloudWatchClientsOptions& options() const noexcept { return opts_; }

private:
    core::Result<std::shared_ptr<kube::StsClient>> sts_for(const std::string& endpoint);
    kube::QueryHttpOptions http_options() const;

    boost::asio::any_io_executor ex_;
    CloudWatchClientsOptions opts_;
    BudgetedClients<kube::CloudWatchClient> clients_;              // by endpoint and region
    std::map<std::string, std::shared_ptr<kube::StsClient>> sts_;  // by endpoint
    std::map<std::string, core::AwsCredentials> temporary_;        // by role, token file and STS endpoint
    bool stopped_ = false;
};

}  // namespace attune::controller
