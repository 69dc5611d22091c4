#include <attune/http/message.hpp>

#include <algorithm>
#include <cctype>

namespace attune::http {

std::string_view to_string(Verb v) noexcept {
    switch (v) {
        case Verb::Get: return "GET";
        case Verb::Head: return "HEAD";
        case Verb::Post: return "POST";
        case Verb::Put: return "PUT";
        case Verb::Patch: return "PATCH";
        case Verb::Del: return "DELETE";
    }
    return "GET";
}

std::string_view to_string(Failure f) noexcept {
    switch (f) {
        case Failure::None: return "none";
        case Failure::Resolve: return "resolve";
        case Failure::Connect: return "connect";
        case Failure::TlsHandshake: return "tls_handshake";
        case Failure::Timeout: return "timeout";
        case Failure::ConnectionReset: return "connection_reset";
        case Failure::BodyTooLarge: return "body_too_large";
        case Failure::Protocol: return "protocol";
        case Failure::PoolExhausted: return "pool_exhausted";
        case Failure::Cancelled: return "cancelled";
    }
    return "unknown";
}

std::optional<std::string_view> find_header(const std::vector<Header>& headers, std::string_view name) noexcept {
    auto eq = [](std::string_view a, std::string_view b) {
        return a.size() == b.size() && std::equal(a.begin(), a.end(), b.begin(), [](char x, char y) {
                   return std::tolower(static_cast<unsigned char>(x)) == std::tolower(static_cast<unsigned char>(y));
               });
    };
    for (const auto& h : headers) {
        if (eq(h.name, name)) return std::string_view(h.value);
    }
    return std::nullopt;
}

}  // namespace attune::http
