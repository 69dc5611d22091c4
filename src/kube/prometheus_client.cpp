#include <attune/kube/prometheus_client.hpp>

#include <attune/http/https_client.hpp>
#include <attune/http/url.hpp>
#include <attune/kube/query_http.hpp>
#include <attune/kube/resource.hpp>
#include <attune/kube/rest_config.hpp>

#include <algorithm>
#include <cctype>
#include <cstdio>

namespace attune::kube {

namespace {

using Steady = std::chrono::steady_clock;

core::Error invalid_config(std::string what) { return core::make_error("invalid_config", std::move(what)); }

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

}  // namespace

struct PrometheusClient::impl {
    impl(PrometheusSettings st, http::ServerUrl u, std::shared_ptr<kube::TokenSource> t,
         std::unique_ptr<http::HttpsClient> h)
        : s(std::move(st)), url(std::move(u)), token(std::move(t)), http(std::move(h)) {
        kube::Query q;
        for (const auto& [k, v] : s.query_parameters) q.add(k, v);
        url_query = q.encode();
    }
    PrometheusSettings s;
    http::ServerUrl url;
    std::shared_ptr<kube::TokenSource> token;
    std::unique_ptr<http::HttpsClient> http;
    std::string url_query;  // "" or "?k=v&..."
    bool stopped = false;

    std::string withheld_note() const {
        return s.withheld_token_note.empty() ? "" : " (" + s.withheld_token_note + ")";
    }

    boost::asio::awaitable<PrometheusOutcome> run(std::string path, std::string form) {
        const auto t0 = Steady::now();
        auto elapsed = [&] { return std::chrono::duration_cast<std::chrono::nanoseconds>(Steady::now() - t0); };
        if (stopped)
            co_return PrometheusOutcome(core::make_error("cancelled", "prometheus client shut down"), elapsed(), 0);
        // POST with a form body, as Prometheus' own clients do: a regex over
        // a hundred pod names does not fit every proxy's URL limit.
        http::Request req;
        req.method = http::Verb::Post;
        req.target = url.path_prefix + path + url_query;
        req.body = std::move(form);
        req.timeout = s.query_timeout;
        req.headers.push_back({"Accept", "application/json"});
        req.headers.push_back({"Content-Type", "application/x-www-form-urlencoded"});
        for (const auto& [k, v] : s.headers) req.headers.push_back({k, v});
        for (int attempt = 0;; ++attempt) {
            std::erase_if(req.headers, [](const http::Header& h) { return h.name == "Authorization"; });
            if (token) req.headers.push_back({"Authorization", "Bearer " + token->current(Steady::now())});
            auto r = co_await http->send(req);
            if (!r.ok()) co_return PrometheusOutcome(query_transport_error(r, "prometheus", s.address), elapsed(), 0);
            const unsigned status = r.resp.status;
            if (status == 401 || status == 403) {
                // A rotated token: read the file again and try once more.
                if (attempt == 0 && token && token->force_reread()) continue;
                co_return PrometheusOutcome(core::make_error("unauthorized",
                                                             "prometheus " + s.address + " refused the query with " +
                                                                 std::to_string(status) + ": " +
                                                                 body_excerpt(r.resp.body) + withheld_note()),
                                            elapsed(), status);
            }
            auto decoded = core::decode_prometheus_response(r.resp.body, s.decode);
            if (status == 200 || (!decoded.ok() && decoded.error().code == "prometheus_error"))
                co_return PrometheusOutcome(std::move(decoded), elapsed(), status);
            co_return PrometheusOutcome(core::make_error("http_status", "prometheus " + s.address + " answered " +
                                                                            std::to_string(status) + ": " +
                                                                            body_excerpt(r.resp.body)),
                                        elapsed(), status);
        }
    }
};

core::Result<std::shared_ptr<PrometheusClient>> PrometheusClient::create(boost::asio::any_io_executor ex,
                                                                         PrometheusSettings s) {
    http::ServerUrl url;
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
    std::shared_ptr<kube::TokenSource> token;
    if (!s.bearer_token.empty()) {
        token = kube::TokenSource::fixed(s.bearer_token);
    } else if (!s.bearer_token_file.empty()) {
        try {
            token = kube::TokenSource::from_file(s.bearer_token_file, std::chrono::seconds(60), true);
        } catch (const kube::ConfigError& e) {
            return invalid_config(std::string("prometheus bearer token: ") + e.what());
        }
    }
    QueryHttpOptions o;
    o.ca_file = s.ca_file;
    o.ca_pem = s.ca_pem;
    o.insecure_skip_verify = s.insecure_skip_verify;
    o.endpoint_filter = s.endpoint_filter;
    o.query_timeout = s.query_timeout;
    o.max_response_bytes = s.max_response_bytes;
    o.max_connections = s.max_connections;
    auto h = make_query_http_client(ex, url, o, "prometheus");
    if (!h) return h.error();
    auto i = std::make_shared<impl>(std::move(s), std::move(url), std::move(token), std::move(h).value());
    return std::shared_ptr<PrometheusClient>(new PrometheusClient(std::move(i)));
}

PrometheusClient::PrometheusClient(std::shared_ptr<impl> i) : impl_(std::move(i)) {}

PrometheusClient::~PrometheusClient() {
    if (impl_) impl_->http->close_idle();
}

boost::asio::awaitable<PrometheusOutcome> PrometheusClient::query_range(std::string query, double start, double end,
                                                                        std::chrono::seconds step) {
    auto keep = impl_;
    kube::Query form;
    form.add("query", query).add("start", seconds_text(start)).add("end", seconds_text(end)).add("step", step.count());
    co_return co_await keep->run("/api/v1/query_range", form.encode().substr(1));
}

boost::asio::awaitable<PrometheusOutcome> PrometheusClient::query(std::string query, double time) {
    auto keep = impl_;
    kube::Query form;
    form.add("query", query).add("time", seconds_text(time));
    co_return co_await keep->run("/api/v1/query", form.encode().substr(1));
}

boost::asio::awaitable<PrometheusHealth> PrometheusClient::healthy(std::chrono::milliseconds timeout) {
    auto keep = impl_;
    const auto t0 = Steady::now();
    if (keep->stopped) co_return PrometheusHealth(core::make_error("cancelled", "prometheus client shut down"));
    http::Request req;
    req.method = http::Verb::Get;
    req.target = keep->url.path_prefix + "/-/healthy";
    req.timeout = timeout;
    for (const auto& [k, v] : keep->s.headers) req.headers.push_back({k, v});
    if (keep->token) req.headers.push_back({"Authorization", "Bearer " + keep->token->current(Steady::now())});
    auto r = co_await keep->http->send(req);
    if (!r.ok()) co_return PrometheusHealth(query_transport_error(r, "prometheus", keep->s.address));
    const unsigned status = r.resp.status;
    if (status == 401 || status == 403)
        co_return PrometheusHealth(
            core::make_error("unauthorized", "prometheus " + keep->s.address + " refused /-/healthy with " +
                                                 std::to_string(status) + keep->withheld_note()));
    if (status != 200)
        co_return PrometheusHealth(
            core::make_error("http_status", "prometheus " + keep->s.address + " answered /-/healthy with " +
                                                std::to_string(status) + ": " + body_excerpt(r.resp.body)));
    co_return PrometheusHealth(std::chrono::duration_cast<std::chrono::milliseconds>(Steady::now() - t0));
}

void PrometheusClient::shutdown() noexcept {
    impl_->stopped = true;
    impl_->http->abort_all();
}

const std::string& PrometheusClient::address() const noexcept { return impl_->s.address; }

}  // namespace attune::kube
