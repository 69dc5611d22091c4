#pragma once
// The HTTPS client of a policy's Git forge (GitHub, GitLab) for its GitOps
// pull request: it sends the core's ForgeRequests (core/followups/forge_session.hpp)
// to the policy's apiUrl with the token, over the runtime's pool
// (kube/query_http.hpp), so the SSRF rule judges every address at connect
// time and every exchange has a deadline. The token goes only to this
// apiUrl, in GitHub's Authorization: Bearer or GitLab's PRIVATE-TOKEN
// header, and never into a message.
#include <attune/core/followups/forge_session.hpp>
#include <attune/core/util/result.hpp>
#include <attune/kube/query_http.hpp>

#include <boost/asio/any_io_executor.hpp>
#include <boost/asio/awaitable.hpp>

#include <memory>
#include <string>

namespace attune::kube {

struct ForgeSettings {
    ForgeSettings() = default;
    std::string api_url;  // https://api.github.com, https://gitlab.example.com/api/v4
    std::string token;
    core::ForgeProvider provider = core::ForgeProvider::GitHub;
    QueryHttpOptions http;
};

struct ForgeAnswer {
    unsigned status = 0;
    std::string body;
};

class ForgeClient {
public:
    // Error "invalid_config": an apiUrl that is not an https URL (the token
    // goes with every request), a token that is empty or not a header value, TLS.
    static core::Result<std::shared_ptr<ForgeClient>> create(boost::asio::any_io_executor ex, ForgeSettings settings);
    ~ForgeClient();
    ForgeClient(const ForgeClient&) = delete;
    ForgeClient& operator=(const ForgeClient&) = delete;

    // One exchange. Errors of query_transport_error ("unreachable",
    // "address_refused", "timeout", "response_too_large", "cancelled").
    boost::asio::awaitable<core::Result<ForgeAnswer>> send(core::ForgeRequest request);

    void shutdown() noexcept;

private:
    struct impl;
    explicit ForgeClient(std::shared_ptr<impl> i);
    std::shared_ptr<impl> impl_;
};

}  // namespace attune::kube
