#include <attune/controller/prometheus_clients.hpp>

#include <attune/core/policy/policy_validation.hpp>
#include <attune/core/security/prometheus_token.hpp>

#include <spdlog/spdlog.h>

#include <algorithm>

namespace attune::controller {

namespace {
// Every setting that makes one client differ from another, NUL-separated so
// no two configurations share an identity.
std::string identity(const kube::PrometheusSettings& s) {
    std::string id;
    auto add = [&](const std::string& v) {
        id += v;
        id.push_back('\0');
    };
    add(s.address);
    for (const auto& [k, v] : s.headers) add("h:" + k + "=" + v);
    for (const auto& [k, v] : s.query_parameters) add("q:" + k + "=" + v);
    add(s.ca_pem);
    add(s.insecure_skip_verify ? "insecure" : "verify");
    add(s.bearer_token_file);
    add(s.bearer_token);
    add(s.withheld_token_note);
    add(std::to_string(s.query_timeout.count()));
    return id;
}
}  // namespace

PrometheusClients::PrometheusClients(boost::asio::any_io_executor ex, PrometheusClientsOptions opts)
    : ex_(std::move(ex)), opts_(std::move(opts)) {}

core::Result<std::shared_ptr<kube::PrometheusClient>> PrometheusClients::get(const core::PrometheusSource& src,
                                                                             const std::string& secret_token,
                                                                             const std::string& secret_ca_pem,
                                                                             Clock::time_point now) {
    if (stopped_) return core::make_error("cancelled", "prometheus clients shut down");
    kube::PrometheusSettings s;
    s.address = src.address;
    s.headers.insert(src.headers.begin(), src.headers.end());
    s.query_parameters.insert(src.query_parameters.begin(), src.query_parameters.end());
    s.ca_pem = src.ca;
    if (!secret_ca_pem.empty()) s.ca_pem += (s.ca_pem.empty() ? "" : "\n") + secret_ca_pem;
    s.insecure_skip_verify = src.insecure_skip_verify;
    auto parsed = core::origin_of_url(src.address);
    if (!parsed) return core::make_error("invalid_config", "prometheus address " + parsed.error().message);
    const std::string origin = std::move(parsed).value();
    core::PrometheusTokenRules rules;
    rules.has_flag_token = !opts_.bearer_token_file.empty();
    rules.flag_token_origins = opts_.token_origins;
    rules.allow_plaintext_credentials = opts_.allow_plaintext_credentials;
    auto token = core::decide_prometheus_token(origin, !secret_token.empty(), rules);
    if (token.refused) return *token.refused;
    if (token.source == core::TokenSource::Secret) s.bearer_token = secret_token;
    if (token.source == core::TokenSource::Flag) s.bearer_token_file = opts_.bearer_token_file;
    // Bounded: policies choose the origins. Past the bound, origins are logged again.
    if (withheld_logged_.size() >= 1024) withheld_logged_.clear();
    if (!token.withheld.empty() && withheld_logged_.insert(origin).second)
        spdlog::warn("prometheus token withheld origin={} reason=\"{}\"", origin, token.withheld);
    s.withheld_token_note = std::move(token.withheld);
    s.endpoint_filter = [allow = opts_.allow_local_addresses](std::string_view ip) {
        return core::check_resolved_address(ip, allow);
    };
    s.query_timeout = opts_.query_timeout;
    const auto id = identity(s);
    evict(now);
    if (auto it = clients_.find(id); it != clients_.end()) {
        it->second.used = now;
        return it->second.client;
    }
    auto created = kube::PrometheusClient::create(ex_, std::move(s));
    if (!created) return created.error();
    if (clients_.size() >= std::max<std::size_t>(opts_.max_clients, 1)) {
        auto lru = std::min_element(clients_.begin(), clients_.end(),
                                    [](const auto& a, const auto& b) { return a.second.used < b.second.used; });
        clients_.erase(lru);
    }
    clients_.emplace(id, Entry{created.value(), now});
    return created;
}

void PrometheusClients::evict(Clock::time_point now) {
    std::erase_if(clients_, [&](const auto& e) { return now - e.second.used > opts_.idle_ttl; });
}

PrometheusClients::Entry* PrometheusClients::find(const std::shared_ptr<kube::PrometheusClient>& client) {
    for (auto& [id, e] : clients_)
        if (e.client == client) return &e;
    return nullptr;
}

void PrometheusClients::note_unanswered(const std::shared_ptr<kube::PrometheusClient>& client, std::string message,
                                        Clock::time_point now) {
    if (auto* e = find(client)) {
        e->held_until = now + opts_.hold_after_failure;
        e->failure = std::move(message);
    }
}

void PrometheusClients::note_answered(const std::shared_ptr<kube::PrometheusClient>& client) {
    if (auto* e = find(client)) e->held_until = {};
}

std::string PrometheusClients::holding_back(const std::shared_ptr<kube::PrometheusClient>& client,
                                            Clock::time_point now) const {
    for (const auto& [id, e] : clients_)
        if (e.client == client && now < e.held_until) return e.failure + " (not asked again for a few seconds)";
    return {};
}

void PrometheusClients::shutdown() noexcept {
    stopped_ = true;
    for (auto& [id, e] : clients_) e.client->shutdown();
    clients_.clear();
}

}  // namespace attune::controller
