#include <attune/http/message.hpp>

#include <algorithm>
#include <cctype>

namespace attune::http {

std::string_view to_string(verb v) noexcept {
    switch (v) {
        case verb::get: return "GET";
        case verb::head: return "HEAD";
        case verb::post: return "POST";
        case verb::put: return "PUT";
        case verb::patch: return "PATCH";
        case verb::del: return "DELETE";
    }
    return "GET";
}

std::string_view to_string(failure f) noexcept {
    switch (f) {
        case failure::none: return "none";
        case failure::resolve: return "resolve";
        case failure::connect: return "connect";
        case failure::tls_handshake: return "tls_handshake";
        case failure::timeout: return "timeout";
        case failure::connection_reset: return "connection_reset";
        case failure::body_too_large: return "body_too_large";
        case failure::protocol: return "protocol";
        case failure::pool_exhausted: return "pool_exhausted";
        case failure::cancelled: return "cancelled";
    }
    return "unknown";
}

std::optional<std::string_view> find_header(const std::vector<header>& headers, std::string_view name) noexcept {
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
