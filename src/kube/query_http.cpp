#include <attune/kube/query_http.hpp>

#include <algorithm>
#include <fstream>
#include <sstream>

namespace attune::kube {

core::Result<std::unique_ptr<http::HttpsClient>> make_query_http_client(boost::asio::any_io_executor ex,
                                                                        const http::ServerUrl& url,
                                                                        const QueryHttpOptions& o,
                                                                        std::string_view who) {
    const std::string name(who);
    http::TlsOptions tls;
    tls.insecure_skip_verify = o.insecure_skip_verify;
    if (!o.ca_file.empty()) {
        std::ifstream in(o.ca_file, std::ios::binary);
        std::ostringstream ss;
        if (in) ss << in.rdbuf();
        tls.ca_pem = ss.str();
        if (!in || tls.ca_pem.empty())
            return core::make_error("invalid_config", name + " CA bundle " + o.ca_file + ": cannot be read");
    }
    if (!o.ca_pem.empty()) tls.ca_pem += (tls.ca_pem.empty() ? "" : "\n") + o.ca_pem;
    http::ClientOptions c;
    c.tls = url.scheme == "https";
    c.endpoint_filter = o.endpoint_filter;
    c.max_body_bytes = o.max_response_bytes;
    c.max_connections = std::max<std::size_t>(o.max_connections, 1);
    // The query's own budget bounds the exchange; the phases only keep their usual ceilings.
    c.limits.read = std::max(c.limits.read, o.query_timeout);
    try {
        return std::make_unique<http::HttpsClient>(ex, url.host, url.port, tls, c);
    } catch (const std::exception& e) {
        return core::make_error("invalid_config", name + " TLS: " + e.what());
    }
}

core::Error query_transport_error(const http::ExchangeResult& r, std::string_view who, std::string_view address) {
    const std::string name = std::string(who) + " " + std::string(address);
    const std::string detail = std::string(http::to_string(r.kind)) + ": " + r.ec.message();
    switch (r.kind) {
        case http::Failure::Timeout:
            return core::make_error("timeout", name + " did not answer in time (" + detail + ")");
        case http::Failure::BodyTooLarge:
            return core::make_error("response_too_large", name + " answered more than the response size limit");
        case http::Failure::Cancelled: return core::make_error("cancelled", std::string(who) + " client shut down");
        default:
            if (!r.detail.empty())
                return core::make_error("address_refused", name +
                                                               " was not connected to: every address its host "
                                                               "resolves to is refused (" +
                                                               r.detail + ")");
            return core::make_error("unreachable", name + " unreachable (" + detail + ")");
    }
}

std::string body_excerpt(const std::string& body) {
    std::string out = body.substr(0, 200);
    for (auto& c : out)
        if (c == '\n' || c == '\r') c = ' ';
    return out + (body.size() > 200 ? "..." : "");
}

}  // namespace attune::kube
