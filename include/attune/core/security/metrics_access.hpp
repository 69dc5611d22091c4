#pragma once
// Who may read /metrics when it is served securely (docs/security.md,
// "Metrics"): the caller's bearer token is authenticated with a TokenReview
// and authorised with a SubjectAccessReview for the non-resource URL
// /metrics and verb get, as kube-rbac-proxy and controller-runtime's
// filters.WithAuthenticationAndAuthorization do. Pure: the shell posts the
// two reviews this file builds and hands back their answers; decisions are
// cached here for a short time so a scraper costs the apiserver two writes a
// minute at most, not two per scrape.
#include <boost/json/value.hpp>

#include <chrono>
#include <cstddef>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "attune/core/util/result.hpp"

namespace attune::core {

// The token of an "Authorization: Bearer <token>" header value; nullopt when
// the header is absent, of another scheme or carries an empty token. The
// scheme is case-insensitive (RFC 7235 section 2.1).
std::optional<std::string> bearer_token_of(std::string_view authorization);

// The authenticated identity a TokenReview answered.
struct ReviewedUser {
    std::string username;
    std::string uid;
    std::vector<std::string> groups;
    std::map<std::string, std::vector<std::string>> extra;
};

boost::json::value token_review_request(std::string_view token);

// status.authenticated false (or absent) is not an error: nullopt. A body
// that is not a TokenReview, or an authenticated one without a user, is an
// error ("invalid_review").
Result<std::optional<ReviewedUser>> decode_token_review(const boost::json::value& review);

// The SubjectAccessReview for `user` to `verb` the non-resource URL `path`.
boost::json::value access_review_request(const ReviewedUser& user, std::string_view path, std::string_view verb);

// status.allowed; false when absent. Error "invalid_review" for a body that
// is not a SubjectAccessReview.
Result<bool> decode_access_review(const boost::json::value& review);

enum class MetricsAccess { Allowed, Unauthenticated, Forbidden };

// The HTTP status each decision is answered with: 200, 401, 403.
unsigned http_status_of(MetricsAccess access);

// Recent decisions by token. Allowed and forbidden answers are kept for
// allow_ttl / deny_ttl (forbidden shorter, so a RoleBinding just created
// takes effect soon); at most `capacity` tokens, the entry that expires
// first making room. Apiserver failures are never cached.
struct MetricsAccessCacheOptions {
    std::chrono::seconds allow_ttl{60};
    std::chrono::seconds deny_ttl{10};
    std::size_t capacity = 256;
};

class MetricsAccessCache {
public:
    using Clock = std::chrono::steady_clock;
    using Options = MetricsAccessCacheOptions;

    MetricsAccessCache() = default;
    explicit MetricsAccessCache(Options options) : options_(options) {}

    std::optional<MetricsAccess> lookup(const std::string& token, Clock::time_point now);
    void store(const std::string& token, MetricsAccess access, Clock::time_point now);
    std::size_t size() const noexcept { return entries_.size(); }

private:
    struct Entry {
        MetricsAccess access;
        Clock::time_point expires;
    };
    Options options_;
    std::map<std::string, Entry> entries_;
};

}  // namespace attune::core
