#pragma once
// STS AssumeRoleWithWebIdentity over HTTPS (the shell around
// core/aws/sts_web_identity.hpp): POST / with the form body, unsigned (the
// web identity token is the proof), the XML answer read into temporary
// credentials. The token and the credentials never appear in a message.
#include <attune/core/aws/sigv4.hpp>
#include <attune/core/util/result.hpp>
#include <attune/kube/query_http.hpp>

#include <boost/asio/any_io_executor.hpp>
#include <boost/asio/awaitable.hpp>

#include <memory>
#include <string>

namespace attune::kube {

struct StsSettings {
    StsSettings() = default;
    std::string base_url;  // https://sts.<region>.amazonaws.com, or the manager's --sts-url
    QueryHttpOptions http;
};

class StsClient {
public:
    // Error "invalid_config": a base URL that is not https, TLS.
    static core::Result<std::shared_ptr<StsClient>> create(boost::asio::any_io_executor ex, StsSettings settings);
    ~StsClient();
    StsClient(const StsClient&) = delete;
    StsClient& operator=(const StsClient&) = delete;

    // Errors: query_transport_error's, "sts_error" (STS refused: its code
    // and message, e.g. InvalidIdentityToken), "http_status",
    // "invalid_response".
    boost::asio::awaitable<core::Result<core::AwsCredentials>> assume_role_with_web_identity(std::string role_arn,
                                                                                             std::string session_name,
                                                                                             std::string token);
    void shutdown() noexcept;
    const std::string& base_url() const noexcept;

private:
    struct impl;
    explicit StsClient(std::shared_ptr<impl> i);
    std::shared_ptr<impl> impl_;
};

}  // namespace attune::kube
