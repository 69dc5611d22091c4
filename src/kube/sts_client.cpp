#include <attune/kube/sts_client.hpp>

#include <attune/core/aws/sts_web_identity.hpp>
#include <attune/http/https_client.hpp>
#include <attune/http/url.hpp>

namespace attune::kube {

struct StsClient::impl {
    impl(StsSettings st, http::ServerUrl u, std::unique_ptr<http::HttpsClient> h)
        : s(std::move(st)), url(std::move(u)), http(std::move(h)) {}
    StsSettings s;
    http::ServerUrl url;
    std::unique_ptr<http::HttpsClient> http;
    bool stopped = false;
};

core::Result<std::shared_ptr<StsClient>> StsClient::create(boost::asio::any_io_executor ex, StsSettings s) {
    http::ServerUrl url;
    try {
        url = http::split_server_url(s.base_url);
    } catch (const std::invalid_argument& e) {
        return core::make_error("invalid_config", std::string("STS URL: ") + e.what());
    }
    if (url.scheme != "https")
        return core::make_error("invalid_config",
                                "STS URL " + s.base_url + " is not https: the web identity token goes with the call");
    auto h = make_query_http_client(ex, url, s.http, "sts");
    if (!h) return h.error();
    auto i = std::make_shared<impl>(std::move(s), std::move(url), std::move(h).value());
    return std::shared_ptr<StsClient>(new StsClient(std::move(i)));
}

StsClient::StsClient(std::shared_ptr<impl> i) : impl_(std::move(i)) {}

StsClient::~StsClient() {
    if (impl_) impl_->http->close_idle();
}

boost::asio::awaitable<core::Result<core::AwsCredentials>> StsClient::assume_role_with_web_identity(
    std::string role_arn, std::string session_name, std::string token) {
    auto keep = impl_;
    const auto& s = keep->s;
    if (keep->stopped) co_return core::make_error("cancelled", "sts client shut down");
    http::Request req;
    req.method = http::Verb::Post;
    req.target = keep->url.path_prefix + "/";
    req.timeout = s.http.query_timeout;
    req.headers.push_back({"Content-Type", "application/x-www-form-urlencoded; charset=utf-8"});
    req.headers.push_back({"Accept", "text/xml"});
    req.body = core::sts_web_identity_body(role_arn, session_name, token);
    auto r = co_await keep->http->send(req);
    if (!r.ok()) co_return query_transport_error(r, "sts", s.base_url);
    auto decoded = core::decode_sts_credentials(r.resp.body);
    if (r.resp.status == 200 || (!decoded && decoded.error().code == "sts_error")) {
        if (!decoded)
            co_return core::make_error(decoded.error().code, "sts " + s.base_url +
                                                                 " refused AssumeRoleWithWebIdentity for " + role_arn +
                                                                 ": " + decoded.error().message);
        co_return decoded;
    }
    co_return core::make_error("http_status", "sts " + s.base_url + " answered " + std::to_string(r.resp.status) +
                                                  ": " + body_excerpt(r.resp.body));
}

void StsClient::shutdown() noexcept {
    impl_->stopped = true;
    impl_->http->abort_all();
}

const std::string& StsClient::base_url() const noexcept { return impl_->s.base_url; }

}  // namespace attune::kube
