#include "metrics_authorizer.hpp"

#include <spdlog/spdlog.h>


namespace attune::manager {

namespace {

http::ServerReply text_reply(unsigned status, std::string body) {
    return http::ServerReply(status, "text/plain; charset=utf-8", std::move(body));
}

}  // namespace

boost::asio::awaitable<core::Result<core::MetricsAccess>> MetricsAuthorizer::review(std::string token,
                                                                                    std::string path) {
    static const kube::ResourceType kTokenReviews("authentication.k8s.io", "v1", "tokenreviews", "TokenReview", false);
    static const kube::ResourceType kAccessReviews("authorization.k8s.io", "v1", "subjectaccessreviews",
                                                   "SubjectAccessReview", false);
    auto authn = co_await client_.create(kTokenReviews, std::string(), core::token_review_request(token));
    if (!authn) co_return core::make_error("apiserver", "TokenReview: " + authn.error().message);
    auto user = core::decode_token_review(authn.value());
    if (!user) co_return user.error();
    if (!user.value()) co_return core::MetricsAccess::Unauthenticated;
    auto authz =
        co_await client_.create(kAccessReviews, std::string(), core::access_review_request(*user.value(), path, "get"));
    if (!authz) co_return core::make_error("apiserver", "SubjectAccessReview: " + authz.error().message);
    auto allowed = core::decode_access_review(authz.value());
    if (!allowed) co_return allowed.error();
    if (!allowed.value()) spdlog::debug("metrics request refused user={} path={}", user.value()->username, path);
    co_return allowed.value() ? core::MetricsAccess::Allowed : core::MetricsAccess::Forbidden;
}

boost::asio::awaitable<std::optional<http::ServerReply>> MetricsAuthorizer::refusal(std::string authorization,
                                                                                    std::string path) {
    auto token = core::bearer_token_of(authorization);
    std::optional<core::MetricsAccess> access;
    if (!token) {
        access = core::MetricsAccess::Unauthenticated;
    } else {
        access = cache_.lookup(*token, core::MetricsAccessCache::Clock::now());
        if (!access) {
            auto decided = co_await review(*token, path);
            if (!decided) {
                spdlog::warn("metrics request not reviewed reason={}", decided.error().message);
                co_return text_reply(503, "cannot review the request's token: " + decided.error().message + "\n");
            }
            access = decided.value();
            cache_.store(*token, *access, core::MetricsAccessCache::Clock::now());
        }
    }
    switch (*access) {
        case core::MetricsAccess::Allowed: co_return std::nullopt;
        case core::MetricsAccess::Unauthenticated: {
            auto r = text_reply(401, "Unauthorized: a valid bearer token is required\n");
            r.headers.emplace_back("WWW-Authenticate", "Bearer");
            co_return r;
        }
        case core::MetricsAccess::Forbidden: break;
    }
    co_return text_reply(403, "Forbidden: the token's user may not get " + path + "\n");
}

}  // namespace attune::manager
