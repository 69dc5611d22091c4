#include <attune/http/url.hpp>

#include <charconv>

namespace attune::http {

ServerUrl split_server_url(std::string_view url) {
    const std::string whole(url);
    auto bad = [&](const std::string& why) { return std::invalid_argument("server URL '" + whole + "': " + why); };
    ServerUrl out;
    const auto sep = url.find("://");
    if (sep == std::string_view::npos) throw bad("missing scheme (http:// or https://)");
    out.scheme = std::string(url.substr(0, sep));
    if (out.scheme != "http" && out.scheme != "https") throw bad("only http:// and https:// are supported");
    url.remove_prefix(sep + 3);
    if (url.find_first_of("?#") != std::string_view::npos) throw bad("a query or fragment is not allowed");
    const auto slash = url.find('/');
    std::string_view authority = url.substr(0, slash);
    std::string prefix = slash == std::string_view::npos ? "" : std::string(url.substr(slash));
    while (!prefix.empty() && prefix.back() == '/') prefix.pop_back();
    if (authority.empty()) throw bad("missing host");
    if (authority.find('@') != std::string_view::npos) throw bad("userinfo not allowed");
    std::string_view host, port;
    if (authority.front() == '[') {
        const auto close = authority.find(']');
        if (close == std::string_view::npos) throw bad("unterminated IPv6 literal");
        host = authority.substr(1, close - 1);
        auto rest = authority.substr(close + 1);
        if (!rest.empty()) {
            if (rest.front() != ':') throw bad("garbage after IPv6 literal");
            port = rest.substr(1);
        }
    } else {
        const auto colon = authority.rfind(':');
        host = authority.substr(0, colon);
        if (colon != std::string_view::npos) port = authority.substr(colon + 1);
    }
    if (host.empty()) throw bad("missing host");
    if (!port.empty()) {
        unsigned n = 0;
        auto [p, ec] = std::from_chars(port.data(), port.data() + port.size(), n);
        if (ec != std::errc{} || p != port.data() + port.size() || n == 0 || n > 65535)
            throw bad("invalid port '" + std::string(port) + "'");
        out.port = std::string(port);
    } else {
        out.port = out.scheme == "https" ? "443" : "80";
    }
    out.host = std::string(host);
    out.path_prefix = prefix;
    return out;
}

}  // namespace attune::http
