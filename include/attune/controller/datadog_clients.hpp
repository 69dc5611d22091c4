#pragma once
// One DatadogClient per endpoint and key pair, shared by every workload
// that uses it, so its connections are pooled and its request budget is
// one: the Go original's 0.08 requests a second with bursts of 3 (300 an
// hour, Datadog's default for the query API) per key, and after a 429 no
// request at all until Datadog's X-RateLimit-Reset has passed. Created on
// first use, dropped once unused for a while, bounded in number.
#include <attune/core/policy/policy.hpp>
#include <attune/kube/datadog_client.hpp>
#include <attune/controller/query_budget.hpp>

#include <boost/asio/any_io_executor.hpp>

#include <chrono>
#include <map>
#include <memory>
#include <string>

namespace attune::controller {

struct DatadogClientsOptions {
    DatadogClientsOptions() = default;
    std::chrono::milliseconds query_timeout{30'000};
    // --datadog-url: the endpoint of every Datadog policy instead of
    // https://api.<site> (a proxy in front of Datadog); "" : the site's.
    std::string url;
    std::string ca_file;  // --datadog-ca-file: a PEM bundle trusted for it; "" : the system store
    // The SSRF rule (core::check_resolved_address) on every address the
    // host resolves to, at connect time; loopback with --allow-local-metrics-addresses.
    bool allow_local_addresses = false;
    double qps = 0.08;  // --datadog-qps
    int burst = 3;      // --datadog-burst
    std::size_t max_clients = 64;
    std::chrono::seconds idle_ttl{600};
    std::chrono::seconds hold_after_failure{10};  // after an unanswered query
};

// The endpoint for a site: the override when set, else https://api.<site>.
std::string datadog_endpoint(const DatadogClientsOptions& options, const std::string& site);

class DatadogClients {
public:
    using Clock = std::chrono::steady_clock;
    DatadogClients(boost::asio::any_io_executor ex, DatadogClientsOptions opts);

    // The keys come from the policy's Secret. Error "invalid_config" from
    // DatadogClient::create.
    core::Result<std::shared_ptr<kube::DatadogClient>> get(const core::DatadogSource& source,
                                                           const std::string& api_key, const std::string& app_key,
                                                           Clock::time_point now);

    // Before each query. Zero: send it now. A wait: send it after that long
    // (a token of the budget is reserved for it). nullopt: do not send it;
    // `why` says why (held back after a 429 or an unanswered query, or the
    // budget is spent for longer than `max_wait`).
    using Admission = QueryBudget::Admission;
    Admission admit(const std::shared_ptr<kube::DatadogClient>& client, Clock::time_point now,
                    std::chrono::nanoseconds max_wait);

    void note_rate_limited(const std::shared_ptr<kube::DatadogClient>& client, std::chrono::seconds retry_after,
                           std::string message, Clock::time_point now);
    void note_unanswered(const std::shared_ptr<kube::DatadogClient>& client, std::string message,
                         Clock::time_point now);
    void note_answered(const std::shared_ptr<kube::DatadogClient>& client);

    void shutdown() noexcept;
    bool stopped() const noexcept { return stopped_; }
    std::size_t size() const noexcept { return clients_.size(); }
    const DatadogClientsOptions& options() const noexcept { return opts_; }

private:
    boost::asio::any_io_executor ex_;
    DatadogClientsOptions opts_;
    BudgetedClients<kube::DatadogClient> clients_;  // by endpoint and keys
    bool stopped_ = false;
};

}  // namespace attune::controller
