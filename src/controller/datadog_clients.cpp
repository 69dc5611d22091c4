#include <attune/controller/datadog_clients.hpp>

#include <attune/core/policy/policy_validation.hpp>

#include <algorithm>

namespace attune::controller {

std::string datadog_endpoint(const DatadogClientsOptions& options, const std::string& site) {
    return options.url.empty() ? "https://api." + site : options.url;
}

DatadogClients::DatadogClients(boost::asio::any_io_executor ex, DatadogClientsOptions opts)
    : ex_(std::move(ex)), opts_(std::move(opts)), clients_(opts_.max_clients, opts_.idle_ttl) {}

core::Result<std::shared_ptr<kube::DatadogClient>> DatadogClients::get(const core::DatadogSource& source,
                                                                       const std::string& api_key,
                                                                       const std::string& app_key,
                                                                       Clock::time_point now) {
    if (stopped_) return core::make_error("cancelled", "datadog clients shut down");
    const std::string endpoint = datadog_endpoint(opts_, source.site);
    // NUL-separated: no two configurations share an identity. The keys stay in memory only.
    const std::string id = endpoint + '\0' + api_key + '\0' + app_key;
    if (auto found = clients_.find(id, now)) return found;
    kube::DatadogSettings s;
    s.base_url = endpoint;
    s.api_key = api_key;
    s.app_key = app_key;
    s.http.ca_file = opts_.ca_file;
    s.http.query_timeout = opts_.query_timeout;
    s.http.endpoint_filter = [allow = opts_.allow_local_addresses](std::string_view ip) {
        return core::check_resolved_address(ip, allow);
    };
    auto created = kube::DatadogClient::create(ex_, std::move(s));
    if (!created) return created.error();
    clients_.add(id, created.value(),
                 QueryBudget(opts_.qps, opts_.burst, now, "the Datadog request budget of this API key"), now);
    return created;
}

DatadogClients::Admission DatadogClients::admit(const std::shared_ptr<kube::DatadogClient>& client,
                                                Clock::time_point now, std::chrono::nanoseconds max_wait) {
    return clients_.admit(client, now, max_wait);
}

void DatadogClients::note_rate_limited(const std::shared_ptr<kube::DatadogClient>& client,
                                       std::chrono::seconds retry_after, std::string message, Clock::time_point now) {
    clients_.hold(client, now + retry_after, std::move(message));
}

void DatadogClients::note_unanswered(const std::shared_ptr<kube::DatadogClient>& client, std::string message,
                                     Clock::time_point now) {
    note_rate_limited(client, opts_.hold_after_failure, std::move(message), now);
}

void DatadogClients::note_answered(const std::shared_ptr<kube::DatadogClient>& client) { clients_.release(client); }

void DatadogClients::shutdown() noexcept {
    stopped_ = true;
    clients_.shutdown();
}

}  // namespace attune::controller
