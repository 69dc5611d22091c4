#include <attune/kube/forge_client.hpp>

#include <attune/http/https_client.hpp>
#include <attune/http/url.hpp>

#include <algorithm>

namespace attune::kube {

namespace {

core::Error invalid_config(std::string what) { return core::make_error("invalid_config", std::move(what)); }

bool header_value_ok(const std::string& v) {
    return !v.empty() && std::none_of(v.begin(), v.end(), [](unsigned char c) { return c < 0x20 || c == 0x7f; });
}

http::Verb verb_of(std::string_view m) {
    if (m == "POST") return http::Verb::Post;
    if (m == "PUT") return http::Verb::Put;
    if (m == "PATCH") return http::Verb::Patch;
    return http::Verb::Get;
}

}  // namespace

struct ForgeClient::impl {
    impl(ForgeSettings st, http::ServerUrl u, std::unique_ptr<http::HttpsClient> h)
        : s(std::move(st)), url(std::move(u)), http(std::move(h)) {}
    ForgeSettings s;
    http::ServerUrl url;
    std::unique_ptr<http::HttpsClient> http;
    bool stopped = false;
};

core::Result<std::shared_ptr<ForgeClient>> ForgeClient::create(boost::asio::any_io_executor ex, ForgeSettings s) {
    http::ServerUrl url;
    try {
        url = http::split_server_url(s.api_url);
    } catch (const std::invalid_argument& e) {
        return invalid_config(std::string("apiUrl: ") + e.what());
    }
    if (url.scheme != "https")
        return invalid_config("apiUrl " + s.api_url + " is not https: the token goes with every request");
    if (!header_value_ok(s.token)) return invalid_config("the token is empty or not a header value");
    auto h = make_query_http_client(ex, url, s.http, "forge");
    if (!h) return h.error();
    auto i = std::make_shared<impl>(std::move(s), std::move(url), std::move(h).value());
    return std::shared_ptr<ForgeClient>(new ForgeClient(std::move(i)));
}

ForgeClient::ForgeClient(std::shared_ptr<impl> i) : impl_(std::move(i)) {}

ForgeClient::~ForgeClient() {
    if (impl_) impl_->http->close_idle();
}

boost::asio::awaitable<core::Result<ForgeAnswer>> ForgeClient::send(core::ForgeRequest request) {
    auto keep = impl_;
    const auto& s = keep->s;
    const bool github = s.provider == core::ForgeProvider::GitHub;
    if (keep->stopped) co_return core::make_error("cancelled", "forge client shut down");
    http::Request req;
    req.method = verb_of(request.method);
    req.target = keep->url.path_prefix + request.target;
    req.timeout = s.http.query_timeout;
    req.headers.push_back({"User-Agent", "attune"});
    if (github) {
        req.headers.push_back({"Accept", "application/vnd.github+json"});
        req.headers.push_back({"X-GitHub-Api-Version", "2022-11-28"});
        req.headers.push_back({"Authorization", "Bearer " + s.token});
    } else {
        req.headers.push_back({"Accept", "application/json"});
        req.headers.push_back({"PRIVATE-TOKEN", s.token});
    }
    if (!request.body.empty()) {
        req.headers.push_back({"Content-Type", "application/json"});
        req.body = std::move(request.body);
    }
    auto r = co_await keep->http->send(req);
    if (!r.ok()) co_return query_transport_error(r, github ? "github" : "gitlab", s.api_url);
    co_return ForgeAnswer{r.resp.status, std::move(r.resp.body)};
}

void ForgeClient::shutdown() noexcept {
    impl_->stopped = true;
    impl_->http->abort_all();
}

}  // namespace attune::kube
