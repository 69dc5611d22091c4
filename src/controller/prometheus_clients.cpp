#include <attune/controller/prometheus_clients.hpp>

#include <algorithm>

namespace attune::controller {

namespace {
// Every setting that makes one client differ from another, NUL-separated so
// no two configurations share an identity.
std::string identity(const prometheus_settings& s) {
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
    add(std::to_string(s.query_timeout.count()));
    return id;
}
}  // namespace

prometheus_clients::prometheus_clients(boost::asio::any_io_executor ex, prometheus_clients_options opts)
    : ex_(std::move(ex)), opts_(std::move(opts)) {}

core::result<std::shared_ptr<prometheus_client>> prometheus_clients::get(const core::PrometheusSource& src,
                                                                         const std::string& secret_token,
                                                                         const std::string& secret_ca_pem,
                                                                         clock::time_point now) {
    if (stopped_) return core::make_error("cancelled", "prometheus clients shut down");
    prometheus_settings s;
    s.address = src.address;
    s.headers.insert(src.headers.begin(), src.headers.end());
    s.query_parameters.insert(src.query_parameters.begin(), src.query_parameters.end());
    s.ca_pem = src.ca;
    if (!secret_ca_pem.empty()) s.ca_pem += (s.ca_pem.empty() ? "" : "\n") + secret_ca_pem;
    s.insecure_skip_verify = src.insecure_skip_verify;
    if (!secret_token.empty()) s.bearer_token = secret_token;
    else s.bearer_token_file = opts_.bearer_token_file;
    s.query_timeout = opts_.query_timeout;
    const auto id = identity(s);
    evict(now);
    if (auto it = clients_.find(id); it != clients_.end()) {
        it->second.used = now;
        return it->second.client;
    }
    auto created = prometheus_client::create(ex_, std::move(s));
    if (!created) return created.error();
    if (clients_.size() >= std::max<std::size_t>(opts_.max_clients, 1)) {
        auto lru = std::min_element(clients_.begin(), clients_.end(),
                                    [](const auto& a, const auto& b) { return a.second.used < b.second.used; });
        clients_.erase(lru);
    }
    clients_.emplace(id, entry{created.value(), now});
    return created;
}

void prometheus_clients::evict(clock::time_point now) {
    std::erase_if(clients_, [&](const auto& e) { return now - e.second.used > opts_.idle_ttl; });
}

void prometheus_clients::shutdown() noexcept {
    stopped_ = true;
    for (auto& [id, e] : clients_) e.client->shutdown();
    clients_.clear();
}

}  // namespace attune::controller
