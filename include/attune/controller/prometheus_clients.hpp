#pragma once
// One PrometheusClient per distinct source configuration (address,
// headers, query parameters, TLS, token), shared by every workload that uses
// it, so its connections are pooled; created on first use and dropped once
// unused for a while. Bounded in number: past the limit the least recently
// used client goes (queries in flight keep theirs alive).
#include <attune/kube/prometheus_client.hpp>
#include <attune/core/policy/policy.hpp>

#include <boost/asio/any_io_executor.hpp>

#include <chrono>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <vector>

namespace attune::controller {

struct PrometheusClientsOptions {
    PrometheusClientsOptions() = default;
    std::chrono::milliseconds query_timeout{30'000};
    // --prometheus-bearer-token-file: the token mounted into the manager,
    // sent only to the origins in --prometheus-token-addresses
    // (token_origins, core::normalized_origin), and never instead of a
    // policy's bearerTokenSecret (core::decide_prometheus_token).
    std::string bearer_token_file;
    std::vector<std::string> token_origins;
    bool allow_plaintext_credentials = false;  // --allow-plaintext-prometheus-credentials (the controller copies
                                               // it, and allow_local_addresses, from its validation options)
    // The SSRF rule (core::check_resolved_address) on every address a
    // Prometheus host resolves to, always, at connect time; loopback allowed
    // with --allow-local-metrics-addresses.
    bool allow_local_addresses = false;
    std::size_t max_clients = 64;
    std::chrono::seconds idle_ttl{600};
    // After an unanswered query: how long the client is held back.
    std::chrono::seconds hold_after_failure{10};
};

class PrometheusClients {
public:
    using Clock = std::chrono::steady_clock;
    PrometheusClients(boost::asio::any_io_executor ex, PrometheusClientsOptions opts);

    // `secret_token` / `secret_ca_pem`: read from the policy's Secrets ("" if
    // none); a token from a Secret replaces the mounted file, which goes only
    // to the listed origins (logged once per origin when withheld). Error
    // "invalid_config" from PrometheusClient::create (a bad address, CA or
    // header, an unreadable token file) or for a token that would go over
    // plain http without --allow-plaintext-prometheus-credentials.
    core::Result<std::shared_ptr<kube::PrometheusClient>> get(const core::PrometheusSource& source,
                                                              const std::string& secret_token,
                                                              const std::string& secret_ca_pem, Clock::time_point now);

    // A Prometheus that did not answer (unreachable, timeout) is not asked
    // again for a while: the other workloads that use it fail at once with
    // the same message instead of each holding a worker for a timeout, so a
    // hung Prometheus cannot starve the policies of another one.
    void note_unanswered(const std::shared_ptr<kube::PrometheusClient>& client, std::string message,
                         Clock::time_point now);
    void note_answered(const std::shared_ptr<kube::PrometheusClient>& client);
    // The message of the failure that holds this client back, or "" when it may be asked.
    std::string holding_back(const std::shared_ptr<kube::PrometheusClient>& client, Clock::time_point now) const;

    // Fails queries in flight and refuses new ones (manager shutdown).
    void shutdown() noexcept;
    std::size_t size() const noexcept { return clients_.size(); }
    const PrometheusClientsOptions& options() const noexcept { return opts_; }

private:
    struct Entry {
        std::shared_ptr<kube::PrometheusClient> client;
        Clock::time_point used;
        Clock::time_point held_until{};  // not asked before this after a failure
        std::string failure;
    };
    Entry* find(const std::shared_ptr<kube::PrometheusClient>& client);
    void evict(Clock::time_point now);

    boost::asio::any_io_executor ex_;
    PrometheusClientsOptions opts_;
    std::map<std::string, Entry> clients_;   // by the settings' identity
    std::set<std::string> withheld_logged_;  // origins the flag token was withheld from, logged once
    bool stopped_ = false;
};

}  // namespace attune::controller
