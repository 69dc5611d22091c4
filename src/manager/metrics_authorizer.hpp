#pragma once
// The secure /metrics' gate: the caller's bearer token is checked with a
// TokenReview and a SubjectAccessReview (get on /metrics), decided by
// core/security/metrics_access.hpp and cached there for a short time.
#include <attune/core/security/metrics_access.hpp>
#include <attune/http/https_server.hpp>
#include <attune/kube/client.hpp>

#include <boost/asio/awaitable.hpp>

#include <optional>
#include <string>

namespace attune::manager {

class MetricsAuthorizer {
public:
    explicit MetricsAuthorizer(kube::Client& client) : client_(client) {}

    // nullopt when the request may read `path`; otherwise the answer to send
    // (401 with WWW-Authenticate, 403, or 503 when the apiserver could not
    // tell: that one is not cached, the next scrape asks again).
    boost::asio::awaitable<std::optional<http::ServerReply>> refusal(std::string authorization, std::string path);

private:
    // The client does not fence reviews (they store nothing), so a standby
    // replica without the leader lease still serves its metrics.
    boost::asio::awaitable<core::Result<core::MetricsAccess>> review(std::string token, std::string path);

    kube::Client& client_;
    core::MetricsAccessCache cache_;
};

}  // namespace attune::manager
