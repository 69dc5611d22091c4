#pragma once
// One prometheus_client per distinct source configuration (address,
// headers, query parameters, TLS, token), shared by every workload that uses
// it, so its connections are pooled; created on first use and dropped once
// unused for a while. Bounded in number: past the limit the least recently
// used client goes (queries in flight keep theirs alive).
#include <attune/controller/prometheus_client.hpp>
#include <attune/core/policy.hpp>

#include <boost/asio/any_io_executor.hpp>

#include <chrono>
#include <map>
#include <memory>
#include <string>

namespace attune::controller {

struct prometheus_clients_options {
    prometheus_clients_options() = default;
    std::chrono::milliseconds query_timeout{30'000};
    // --prometheus-bearer-token-file: the token mounted into the manager,
    // sent to every Prometheus unless the policy names a bearerTokenSecret.
    std::string bearer_token_file;
    std::size_t max_clients = 64;
    std::chrono::seconds idle_ttl{600};
};

class prometheus_clients {
public:
    using clock = std::chrono::steady_clock;
    prometheus_clients(boost::asio::any_io_executor ex, prometheus_clients_options opts);

    // `secret_token` / `secret_ca_pem`: read from the policy's Secrets ("" if
    // none); a token from a Secret replaces the mounted file. Error
    // "invalid_config" from prometheus_client::create (a bad address, CA or
    // header, an unreadable token file).
    core::result<std::shared_ptr<prometheus_client>> get(const core::PrometheusSource& source,
                                                         const std::string& secret_token,
                                                         const std::string& secret_ca_pem, clock::time_point now);

    // Fails queries in flight and refuses new ones (manager shutdown).
    void shutdown() noexcept;
    std::size_t size() const noexcept { return clients_.size(); }
    const prometheus_clients_options& options() const noexcept { return opts_; }

private:
    struct entry {
        std::shared_ptr<prometheus_client> client;
        clock::time_point used;
    };
    void evict(clock::time_point now);

    boost::asio::any_io_executor ex_;
    prometheus_clients_options opts_;
    std::map<std::string, entry> clients_;  // by the settings' identity
    bool stopped_ = false;
};

}  // namespace attune::controller
