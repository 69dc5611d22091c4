#include <attune/kube/datadog_client.hpp>

#include <attune/core/recommend/datadog_response.hpp>
#include <attune/http/https_client.hpp>
#include <attune/http/url.hpp>
#include <attune/kube/resource.hpp>

#include <algorithm>

namespace attune::kube {

namespace {

using Steady = std::chrono::steady_clock;

core::Error invalid_config(std::string what) { return core::make_error("invalid_config", std::move(what)); }

bool header_value_ok(const std::string& v) {
    return !v.empty() && std::none_of(v.begin(), v.end(), [](unsigned char c) { return c < 0x20 || c == 0x7f; });
}

// Datadog's own error text when it gave one, else an excerpt of the body.
std::string answer_text(const std::string& body) {
    auto text = core::datadog_error_text(body);
    return text.empty() ? body_excerpt(body) : text;
}

}  // namespace

struct DatadogClient::impl {
    impl(DatadogSettings st, http::ServerUrl u, std::unique_ptr<http::HttpsClient> h)
        : s(std::move(st)), url(std::move(u)), http(std::move(h)) {}
    DatadogSettings s;
    http::ServerUrl url;
    std::unique_ptr<http::HttpsClient> http;
    bool stopped = false;
};

core::Result<std::shared_ptr<DatadogClient>> DatadogClient::create(boost::asio::any_io_executor ex, DatadogSettings s) {
    http::ServerUrl url;
    try {
        url = http::split_server_url(s.base_url);
    } catch (const std::invalid_argument& e) {
        return invalid_config(std::string("datadog URL: ") + e.what());
    }
    if (url.scheme != "https")
        return invalid_config("datadog URL " + s.base_url +
                              " is not https: the API and application keys go with every query");
    if (!header_value_ok(s.api_key)) return invalid_config("the Datadog API key is empty or not a header value");
    if (!s.app_key.empty() && !header_value_ok(s.app_key))
        return invalid_config("the Datadog application key is not a header value");
    auto h = make_query_http_client(ex, url, s.http, "datadog");
    if (!h) return h.error();
    auto i = std::make_shared<impl>(std::move(s), std::move(url), std::move(h).value());
    return std::shared_ptr<DatadogClient>(new DatadogClient(std::move(i)));
}

DatadogClient::DatadogClient(std::shared_ptr<impl> i) : impl_(std::move(i)) {}

DatadogClient::~DatadogClient() {
    if (impl_) impl_->http->close_idle();
}

boost::asio::awaitable<DatadogOutcome> DatadogClient::query(std::string query, core::ResourceKind resource,
                                                            long long from, long long to) {
    auto keep = impl_;
    const auto& s = keep->s;
    const auto t0 = Steady::now();
    auto elapsed = [&] { return std::chrono::duration_cast<std::chrono::nanoseconds>(Steady::now() - t0); };
    if (keep->stopped)
        co_return DatadogOutcome(core::make_error("cancelled", "datadog client shut down"), elapsed(), 0);
    kube::Query q;
    q.add("from", from).add("to", to).add("query", query);
    http::Request req;
    req.method = http::Verb::Get;
    req.target = keep->url.path_prefix + "/api/v1/query" + q.encode();
    req.timeout = s.http.query_timeout;
    req.headers.push_back({"Accept", "application/json"});
    req.headers.push_back({"DD-API-KEY", s.api_key});
    if (!s.app_key.empty()) req.headers.push_back({"DD-APPLICATION-KEY", s.app_key});
    auto r = co_await keep->http->send(req);
    if (!r.ok()) co_return DatadogOutcome(query_transport_error(r, "datadog", s.base_url), elapsed(), 0);
    const unsigned status = r.resp.status;
    const std::string code = std::to_string(status);
    if (status == 401 || status == 403)
        co_return DatadogOutcome(core::make_error("unauthorized", "datadog " + s.base_url + " refused the query with " +
                                                                      code + ": " + answer_text(r.resp.body) +
                                                                      " (check the API and application keys)"),
                                 elapsed(), status);
    if (status == 429) {
        const auto wait = core::datadog_rate_limit_wait(r.resp.header_value("X-RateLimit-Reset").value_or(""),
                                                        r.resp.header_value("X-RateLimit-Period").value_or(""));
        DatadogOutcome out(core::make_error("rate_limited",
                                            "datadog " + s.base_url +
                                                " rate-limited the query (429): " + answer_text(r.resp.body)),
                           elapsed(), status);
        out.retry_after = wait;
        co_return out;
    }
    if (status != 200) {
        auto decoded = core::decode_datadog_response(r.resp.body, resource, s.decode);
        if (!decoded.ok() && decoded.error().code == "datadog_error")
            co_return DatadogOutcome(std::move(decoded), elapsed(), status);
        co_return DatadogOutcome(core::make_error("http_status", "datadog " + s.base_url + " answered " + code + ": " +
                                                                     body_excerpt(r.resp.body)),
                                 elapsed(), status);
    }
    co_return DatadogOutcome(core::decode_datadog_response(r.resp.body, resource, s.decode), elapsed(), status);
}

void DatadogClient::shutdown() noexcept {
    impl_->stopped = true;
    impl_->http->abort_all();
}

const std::string& DatadogClient::base_url() const noexcept { return impl_->s.base_url; }

}  // namespace attune::kube
