#include <attune/kube/prometheus_client.hpp>

#include <attune/http/https_client.hpp>
#include <attune/http/url.hpp>
#include <attune/kube/resource.hpp>
#include <attune/kube/rest_config.hpp>

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <fstream>
#include <sstream>

namespace attune::kube {

namespace {

using steady = std::chrono::steady_clock;

core::error invalid_config(std::string what) { return core::make_error("invalid_config", std::move(what)); }

bool reserved_parameter(std::string key) {
    std::transform(key.begin(), key.end(), key.begin(), [](unsigned char c) { return std::tolower(c); });
    return key == "query" || key == "time" || key == "start" || key == "end" || key == "step" || key == "timeout";
}

// RFC 9110 token characters: a header name cannot smuggle another header.
bool header_name_ok(const std::string& n) {
    return !n.empty() && std::all_of(n.begin(), n.end(), [](unsigned char c) {
        return std::isalnum(c) || std::string_view("!#$%&'*+-.^_`|~").find(static_cast<char>(c)) != std::string_view::npos;
    });
}
bool header_value_ok(const std::string& v) {
    return std::none_of(v.begin(), v.end(), [](unsigned char c) { return c == '\r' || c == '\n' || c == 0; });
}

std::string seconds_text(double t) {
    char buf[64];
    std::snprintf(buf, sizeof buf, "%.3f", t);
    return buf;
}

std::string excerpt(const std::string& body) {
    std::string out = body.substr(0, 200);
    for (auto& c : out)
        if (c == '\n' || c == '\r') c = ' ';
    return out + (body.size() > 200 ? "..." : "");
}

core::error transport_error(const http::exchange_result& r, const std::string& address) {
    const std::string detail = std::string(http::to_string(r.kind)) + ": " + r.ec.message();
    switch (r.kind) {
        case http::failure::timeout: return core::make_error("timeout", "prometheus " + address + " did not answer in time (" + detail + ")");
        case http::failure::body_too_large:
            return core::make_error("response_too_large", "prometheus " + address + " answered more than the response size limit");
        case http::failure::cancelled: return core::make_error("cancelled", "prometheus client shut down");
        default:
            if (!r.detail.empty())
                return core::make_error("address_refused", "prometheus " + address +
                                                               " was not connected to: every address its host "
                                                               "resolves to is refused (" + r.detail + ")");
            return core::make_error("unreachable", "prometheus " + address + " unreachable (" + detail + ")");
    }
}

}  // namespace

struct prometheus_client::impl {
    impl(prometheus_settings st, http::server_url u, std::shared_ptr<kube::token_source> t,
         std::unique_ptr<http::https_client> h)
        : s(std::move(st)), url(std::move(u)), token(std::move(t)), http(std::move(h)) {
        kube::query q;
        for (const auto& [k, v] : s.query_parameters) q.add(k, v);
        url_query = q.encode();
    }
    prometheus_settings s;
    http::server_url url;
    std::shared_ptr<kube::token_source> token;
    std::unique_ptr<http::https_client> http;
    std::string url_query;  // "" or "?k=v&..."
    bool stopped = false;

    std::string withheld_note() const {
        return s.withheld_token_note.empty() ? "" : " (" + s.withheld_token_note + ")";
    }

    boost::asio::awaitable<prometheus_outcome> run(std::string path, std::string form) {
        const auto t0 = steady::now();
        auto elapsed = [&] { return std::chrono::duration_cast<std::chrono::nanoseconds>(steady::now() - t0); };
        if (stopped) co_return prometheus_outcome(core::make_error("cancelled", "prometheus client shut down"), elapsed(), 0);
        // POST with a form body, as Prometheus' own clients do: a regex over
        // a hundred pod names does not fit every proxy's URL limit.
        http::request req;
        req.method = http::verb::post;
        req.target = url.path_prefix + path + url_query;
        req.body = std::move(form);
        req.timeout = s.query_timeout;
        req.headers.push_back({"Accept", "application/json"});
        req.headers.push_back({"Content-Type", "application/x-www-form-urlencoded"});
        for (const auto& [k, v] : s.headers) req.headers.push_back({k, v});
        for (int attempt = 0;; ++attempt) {
            std::erase_if(req.headers, [](const http::header& h) { return h.name == "Authorization"; });
            if (token) req.headers.push_back({"Authorization", "Bearer " + token->current(steady::now())});
            auto r = co_await http->send(req);
            if (!r.ok()) co_return prometheus_outcome(transport_error(r, s.address), elapsed(), 0);
            const unsigned status = r.resp.status;
            if (status == 401 || status == 403) {
                // A rotated token: read the file again and try once more.
                if (attempt == 0 && token && token->force_reread()) continue;
                co_return prometheus_outcome(
                    core::make_error("unauthorized", "prometheus " + s.address + " refused the query with " +
                                                         std::to_string(status) + ": " + excerpt(r.resp.body) +
                                                         withheld_note()),
                    elapsed(), status);
            }
            auto decoded = core::decode_prometheus_response(r.resp.body, s.decode);
            if (status == 200 || (!decoded.ok() && decoded.error().code == "prometheus_error"))
                co_return prometheus_outcome(std::move(decoded), elapsed(), status);
            co_return prometheus_outcome(
                core::make_error("http_status", "prometheus " + s.address + " answered " + std::to_string(status) +
                                                    ": " + excerpt(r.resp.body)),
                elapsed(), status);
        }
    }
};

core::result<std::shared_ptr<prometheus_client>> prometheus_client::create(boost::asio::any_io_executor ex,
                                                                           prometheus_settings s) {
    http::server_url url;
    try {
        url = http::split_server_url(s.address);
    } catch (const std::invalid_argument& e) {
        return invalid_config(std::string("prometheus address: ") + e.what());
    }
    for (const auto& [k, v] : s.query_parameters)
        if (reserved_parameter(k))
            return invalid_config("prometheus queryParameters: \"" + k + "\" is set by Attune itself and may not be overridden");
    for (const auto& [k, v] : s.headers)
        if (!header_name_ok(k) || !header_value_ok(v))
            return invalid_config("prometheus headers: \"" + k + "\" is not a valid header name and value");
    http::tls_options tls;
    tls.insecure_skip_verify = s.insecure_skip_verify;
    if (!s.ca_file.empty()) {
        std::ifstream in(s.ca_file, std::ios::binary);
        std::ostringstream ss;
        if (in) ss << in.rdbuf();
        tls.ca_pem = ss.str();
        if (!in || tls.ca_pem.empty()) return invalid_config("prometheus CA bundle " + s.ca_file + ": cannot be read");
    }
    if (!s.ca_pem.empty()) tls.ca_pem += (tls.ca_pem.empty() ? "" : "\n") + s.ca_pem;
    std::shared_ptr<kube::token_source> token;
    if (!s.bearer_token.empty()) {
        token = kube::token_source::fixed(s.bearer_token);
    } else if (!s.bearer_token_file.empty()) {
        try {
            token = kube::token_source::from_file(s.bearer_token_file, std::chrono::seconds(60), true);
        } catch (const kube::config_error& e) {
            return invalid_config(std::string("prometheus bearer token: ") + e.what());
        }
    }
    http::client_options o;
    o.tls = url.scheme == "https";
    o.endpoint_filter = s.endpoint_filter;
    o.max_body_bytes = s.max_response_bytes;
    o.max_connections = std::max<std::size_t>(s.max_connections, 1);
    // The query's own budget bounds the exchange; the phases only keep their usual ceilings.
    o.limits.read = std::max(o.limits.read, s.query_timeout);
    std::unique_ptr<http::https_client> h;
    try {
        h = std::make_unique<http::https_client>(ex, url.host, url.port, tls, o);
    } catch (const std::exception& e) {
        return invalid_config(std::string("prometheus TLS: ") + e.what());
    }
    auto i = std::make_shared<impl>(std::move(s), std::move(url), std::move(token), std::move(h));
    return std::shared_ptr<prometheus_client>(new prometheus_client(std::move(i)));
}

prometheus_client::prometheus_client(std::shared_ptr<impl> i) : impl_(std::move(i)) {}

prometheus_client::~prometheus_client() {
    if (impl_) impl_->http->close_idle();
}

boost::asio::awaitable<prometheus_outcome> prometheus_client::query_range(std::string query, double start, double end,
                                                                          std::chrono::seconds step) {
    auto keep = impl_;
    kube::query form;
    form.add("query", query).add("start", seconds_text(start)).add("end", seconds_text(end)).add("step", step.count());
    co_return co_await keep->run("/api/v1/query_range", form.encode().substr(1));
}

boost::asio::awaitable<prometheus_outcome> prometheus_client::query(std::string query, double time) {
    auto keep = impl_;
    kube::query form;
    form.add("query", query).add("time", seconds_text(time));
    co_return co_await keep->run("/api/v1/query", form.encode().substr(1));
}

boost::asio::awaitable<prometheus_health> prometheus_client::healthy(std::chrono::milliseconds timeout) {
    auto keep = impl_;
    const auto t0 = steady::now();
    if (keep->stopped) co_return prometheus_health(core::make_error("cancelled", "prometheus client shut down"));
    http::request req;
    req.method = http::verb::get;
    req.target = keep->url.path_prefix + "/-/healthy";
    req.timeout = timeout;
    for (const auto& [k, v] : keep->s.headers) req.headers.push_back({k, v});
    if (keep->token) req.headers.push_back({"Authorization", "Bearer " + keep->token->current(steady::now())});
    auto r = co_await keep->http->send(req);
    if (!r.ok()) co_return prometheus_health(transport_error(r, keep->s.address));
    const unsigned status = r.resp.status;
    if (status == 401 || status == 403)
        co_return prometheus_health(core::make_error(
            "unauthorized", "prometheus " + keep->s.address + " refused /-/healthy with " + std::to_string(status) +
                                keep->withheld_note()));
    if (status != 200)
        co_return prometheus_health(core::make_error("http_status", "prometheus " + keep->s.address +
                                                                        " answered /-/healthy with " +
                                                                        std::to_string(status) + ": " + excerpt(r.resp.body)));
    co_return prometheus_health(std::chrono::duration_cast<std::chrono::milliseconds>(steady::now() - t0));
}

void prometheus_client::shutdown() noexcept {
    impl_->stopped = true;
    impl_->http->abort_all();
}

const std::string& prometheus_client::address() const noexcept { return impl_->s.address; }

}  // namespace attune::kube
