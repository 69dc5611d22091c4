#include <attune/controller/datadog_clients.hpp>

#include <attune/core/policy/policy_validation.hpp>

#include <algorithm>

namespace attune::controller {

std::string datadog_endpoint(const DatadogClientsOptions& options, const std::string& site) {
    return options.url.empty() ? "https://api." + site : options.url;
}

DatadogClients::DatadogClients(boost::asio::any_io_executor ex, DatadogClientsOptions opts)
    : ex_(std::move(ex)), opts_(std::move(opts)) {}

core::Result<std::shared_ptr<kube::DatadogClient>> DatadogClients::get(const core::DatadogSource& source,
                                                                       const std::string& api_key,
                                                                       const std::string& app_key,
                                                                       Clock::time_point now) {
    if (stopped_) return core::make_error("cancelled", "datadog clients shut down");
    const std::string endpoint = datadog_endpoint(opts_, source.site);
    // NUL-separated: no two configurations share an identity. The keys stay in memory only.
    const std::string id = endpoint + '\0' + api_key + '\0' + app_key;
    std::erase_if(clients_, [&](const auto& e) { return now - e.second.used > opts_.idle_ttl; });
    if (auto it = clients_.find(id); it != clients_.end()) {
        it->second.used = now;
        return it->second.client;
    }
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
    if (clients_.size() >= std::max<std::size_t>(opts_.max_clients, 1)) {
        auto lru = std::min_element(clients_.begin(), clients_.end(),
                                    [](const auto& a, const auto& b) { return a.second.used < b.second.used; });
        clients_.erase(lru);
    }
    clients_.emplace(id, Entry{created.value(), kube::TokenBucket(opts_.qps, opts_.burst, now), now});
    return created;
}

DatadogClients::Entry* DatadogClients::find(const std::shared_ptr<kube::DatadogClient>& client) {
    for (auto& [id, e] : clients_)
        if (e.client == client) return &e;
    return nullptr;
}

DatadogClients::Admission DatadogClients::admit(const std::shared_ptr<kube::DatadogClient>& client,
                                                Clock::time_point now, std::chrono::nanoseconds max_wait) {
    auto* e = find(client);
    if (!e) return {std::chrono::nanoseconds(0), ""};  // dropped from the cache meanwhile: nothing to hold it back
    if (now < e->held_until) {
        const auto left = std::chrono::ceil<std::chrono::seconds>(e->held_until - now).count();
        return {std::nullopt, e->failure + " (not asked again for " + std::to_string(left) + " s)"};
    }
    if (e->budget.qps() > 0) {
        // The wait a reservation would get, without reserving: a query that
        // will not wait must not push the others further back.
        const double missing = 1.0 - e->budget.available(now);
        const auto wait = missing <= 0
                              ? std::chrono::nanoseconds(0)
                              : std::chrono::nanoseconds(static_cast<long long>(missing / e->budget.qps() * 1e9));
        if (wait > max_wait)
            return {std::nullopt, "the Datadog request budget of this API key (" + std::to_string(e->budget.burst()) +
                                      " at once, then one every " +
                                      std::to_string(static_cast<long long>(1.0 / e->budget.qps() + 0.5)) +
                                      " s) is spent: the query waits for the next refresh"};
    }
    return {e->budget.reserve(now), ""};
}

void DatadogClients::note_rate_limited(const std::shared_ptr<kube::DatadogClient>& client,
                                       std::chrono::seconds retry_after, std::string message, Clock::time_point now) {
    if (auto* e = find(client)) {
        e->held_until = now + retry_after;
        e->failure = std::move(message);
    }
}

void DatadogClients::note_unanswered(const std::shared_ptr<kube::DatadogClient>& client, std::string message,
                                     Clock::time_point now) {
    note_rate_limited(client, opts_.hold_after_failure, std::move(message), now);
}

void DatadogClients::note_answered(const std::shared_ptr<kube::DatadogClient>& client) {
    if (auto* e = find(client)) e->held_until = {};
}

void DatadogClients::shutdown() noexcept {
    stopped_ = true;
    for (auto& [id, e] : clients_) e.client->shutdown();
    clients_.clear();
}

}  // namespace attune::controller
