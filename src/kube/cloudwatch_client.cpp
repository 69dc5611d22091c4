#include <attune/kube/cloudwatch_client.hpp>

#include <attune/core/recommend/cloudwatch_query.hpp>
#include <attune/core/recommend/cloudwatch_response.hpp>
#include <attune/http/https_client.hpp>
#include <attune/http/url.hpp>

#include <boost/asio/as_tuple.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/this_coro.hpp>
#include <boost/asio/use_awaitable.hpp>

#include <algorithm>
#include <random>

namespace attune::kube {

namespace {

namespace asio = boost::asio;
using Steady = std::chrono::steady_clock;

core::Error invalid_config(std::string what) { return core::make_error("invalid_config", std::move(what)); }

// The Host header the HTTP client sends (http/https_client.cpp), which the signature covers.
std::string host_header(const http::ServerUrl& u) {
    if (u.host.find(':') != std::string::npos) return "[" + u.host + "]:" + u.port;
    return u.port == "443" ? u.host : u.host + ":" + u.port;
}

std::string aws_words(const core::CloudWatchError& e, const std::string& body) {
    if (e.code.empty() && e.message.empty()) return body_excerpt(body);
    return e.code + (e.message.empty() ? "" : ": " + e.message);
}

}  // namespace

struct CloudWatchClient::impl {
    impl(CloudWatchSettings st, http::ServerUrl u, std::unique_ptr<http::HttpsClient> h)
        : s(std::move(st)), url(std::move(u)), host(host_header(url)), http(std::move(h)) {}
    CloudWatchSettings s;
    http::ServerUrl url;
    std::string host;
    std::unique_ptr<http::HttpsClient> http;
    std::mt19937 jitter{std::random_device{}()};
    bool stopped = false;
};

core::Result<std::shared_ptr<CloudWatchClient>> CloudWatchClient::create(boost::asio::any_io_executor ex,
                                                                         CloudWatchSettings s) {
    http::ServerUrl url;
    try {
        url = http::split_server_url(s.base_url);
    } catch (const std::invalid_argument& e) {
        return invalid_config(std::string("cloudwatch URL: ") + e.what());
    }
    if (url.scheme != "https")
        return invalid_config("cloudwatch URL " + s.base_url + " is not https: every request carries a signature");
    if (s.region.empty()) return invalid_config("the CloudWatch region is empty");
    auto h = make_query_http_client(ex, url, s.http, "cloudwatch");
    if (!h) return h.error();
    auto i = std::make_shared<impl>(std::move(s), std::move(url), std::move(h).value());
    return std::shared_ptr<CloudWatchClient>(new CloudWatchClient(std::move(i)));
}

CloudWatchClient::CloudWatchClient(std::shared_ptr<impl> i) : impl_(std::move(i)) {}

CloudWatchClient::~CloudWatchClient() {
    if (impl_) impl_->http->close_idle();
}

asio::awaitable<CloudWatchOutcome> CloudWatchClient::query(CloudWatchQuery q, core::AwsCredentials credentials) {
    auto keep = impl_;
    const auto& s = keep->s;
    const auto t0 = Steady::now();
    CloudWatchOutcome out;
    auto finish = [&](core::Result<core::PromResponse> r) {
        out.result = std::move(r);
        out.duration = std::chrono::duration_cast<std::chrono::nanoseconds>(Steady::now() - t0);
        return std::move(out);
    };
    const std::string who = "cloudwatch " + s.base_url;
    core::CloudWatchAnswer answer(q.resource, q.cpu_unit, q.pod_prefix, s.decode);
    std::string token;
    asio::steady_timer timer(co_await asio::this_coro::executor);
    for (int page = 0;; ++page) {
        if (page >= s.max_pages) {
            auto partial = answer.take();
            partial.samples_capped = true;
            partial.warnings.push_back("more than " + std::to_string(s.max_pages) + " pages: the rest was not read");
            co_return finish(std::move(partial));
        }
        const std::string body = core::cloudwatch_request_body(q.expression, q.period, q.start, q.end, token);
        http::ExchangeResult r;
        for (int attempt = 0;; ++attempt) {
            if (keep->stopped) co_return finish(core::make_error("cancelled", "cloudwatch client shut down"));
            // Signed anew for every attempt: X-Amz-Date must be the time it is sent.
            const auto ts = core::sigv4_timestamp(std::chrono::system_clock::now());
            core::SigV4Request sr;
            sr.method = "POST";
            sr.path = keep->url.path_prefix + "/";
            sr.headers = {{"Host", keep->host},
                          {"Content-Type", std::string(core::kCloudWatchContentType)},
                          {"X-Amz-Target", std::string(core::kCloudWatchGetMetricDataTarget)}};
            for (auto& h : core::sigv4_headers(credentials, ts)) sr.headers.push_back(std::move(h));
            sr.payload = body;
            const auto sig = core::sigv4_sign(sr, credentials, {s.region, "monitoring"}, ts);
            http::Request req;
            req.method = http::Verb::Post;
            req.target = sr.path;
            req.timeout = s.http.query_timeout;
            req.body = body;
            for (std::size_t i = 1; i < sr.headers.size(); ++i)  // Host is the HTTP client's own
                req.headers.push_back({sr.headers[i].first, sr.headers[i].second});
            req.headers.push_back({"Accept", "application/json"});
            req.headers.push_back({"Authorization", sig.authorization});
            r = co_await keep->http->send(req);
            if (!r.ok()) co_return finish(query_transport_error(r, "cloudwatch", s.base_url));
            out.http_status = r.resp.status;
            if (r.resp.status == 200) break;
            const auto e = core::cloudwatch_error(r.resp.body, r.resp.header_value("x-amzn-query-error").value_or(""));
            const std::string code = std::to_string(r.resp.status);
            if (core::cloudwatch_throttled(r.resp.status, e.code)) {
                ++out.throttled;
                if (attempt + 1 >= core::kCloudWatchMaxAttempts)
                    co_return finish(core::make_error("rate_limited",
                                                      who + " throttled the query " + std::to_string(attempt + 1) +
                                                          " times (" + code + " " + aws_words(e, r.resp.body) + ")"));
                timer.expires_after(
                    core::cloudwatch_retry_delay(attempt,
                                                 std::uniform_real_distribution<double>(0.0, 1.0)(keep->jitter)));
                co_await timer.async_wait(asio::as_tuple(asio::use_awaitable));
                continue;
            }
            if (core::cloudwatch_auth_error(r.resp.status, e.code))
                co_return finish(core::make_error("unauthorized", who + " refused the request with " + code + " " +
                                                                      aws_words(e, r.resp.body) +
                                                                      " (check the AWS credentials)"));
            co_return finish(
                core::make_error("http_status", who + " answered " + code + " " + aws_words(e, r.resp.body)));
        }
        auto next = answer.add_page(r.resp.body);
        if (!next) co_return finish(next.error());
        out.pages = answer.pages();
        if (next.value().empty()) break;
        token = std::move(next).value();
    }
    co_return finish(answer.take());
}

void CloudWatchClient::shutdown() noexcept {
    impl_->stopped = true;
    impl_->http->abort_all();
}

const std::string& CloudWatchClient::base_url() const noexcept { return impl_->s.base_url; }

}  // namespace attune::kube
