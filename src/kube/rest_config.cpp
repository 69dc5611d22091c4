#include <attune/kube/rest_config.hpp>

#include <charconv>
#include <fstream>
#include <sstream>

namespace attune::kube {

std::shared_ptr<token_source> token_source::fixed(std::string token) {
    auto t = std::shared_ptr<token_source>(new token_source());
    t->token_ = std::move(token);
    return t;
}

std::shared_ptr<token_source> token_source::from_file(std::filesystem::path path, std::chrono::seconds refresh) {
    auto t = std::shared_ptr<token_source>(new token_source());
    t->path_ = std::move(path);
    t->refresh_ = refresh;
    if (!t->reread()) throw config_error("token file " + t->path_.string() + ": cannot read a non-empty token");
    t->read_at_ = clock::now();
    return t;
}

bool token_source::reread() {
    std::ifstream in(path_, std::ios::binary);
    if (!in) return false;
    std::ostringstream ss;
    ss << in.rdbuf();
    std::string s = ss.str();
    while (!s.empty() && (s.back() == '\n' || s.back() == '\r' || s.back() == ' ' || s.back() == '\t')) s.pop_back();
    if (s.empty() || s.find_first_of("\r\n") != std::string::npos) return false;
    token_ = std::move(s);
    return true;
}

const std::string& token_source::current(clock::time_point now) {
    if (!path_.empty() && now - read_at_ >= refresh_) {
        reread();  // on failure the previous token stays in use
        read_at_ = now;
    }
    return token_;
}

void parse_server_url(std::string_view url, rest_config& out) {
    const std::string whole(url);
    constexpr std::string_view scheme = "https://";
    if (url.substr(0, scheme.size()) != scheme) {
        throw config_error("server URL '" + whole + "': only https:// is supported");
    }
    url.remove_prefix(scheme.size());
    const auto slash = url.find('/');
    std::string_view authority = url.substr(0, slash);
    std::string prefix = slash == std::string_view::npos ? "" : std::string(url.substr(slash));
    while (!prefix.empty() && prefix.back() == '/') prefix.pop_back();
    if (authority.empty()) throw config_error("server URL '" + whole + "': missing host");
    if (authority.find('@') != std::string_view::npos) throw config_error("server URL '" + whole + "': userinfo not allowed");
    std::string_view host, port;
    if (authority.front() == '[') {
        const auto close = authority.find(']');
        if (close == std::string_view::npos) throw config_error("server URL '" + whole + "': unterminated IPv6 literal");
        host = authority.substr(1, close - 1);
        auto rest = authority.substr(close + 1);
        if (!rest.empty()) {
            if (rest.front() != ':') throw config_error("server URL '" + whole + "': garbage after IPv6 literal");
            port = rest.substr(1);
        }
    } else {
        const auto colon = authority.rfind(':');
        host = authority.substr(0, colon);
        if (colon != std::string_view::npos) port = authority.substr(colon + 1);
    }
    if (host.empty()) throw config_error("server URL '" + whole + "': missing host");
    if (!port.empty()) {
        unsigned n = 0;
        auto [p, ec] = std::from_chars(port.data(), port.data() + port.size(), n);
        if (ec != std::errc{} || p != port.data() + port.size() || n == 0 || n > 65535)
            throw config_error("server URL '" + whole + "': invalid port '" + std::string(port) + "'");
        out.port = std::string(port);
    } else {
        out.port = "443";
    }
    out.host = std::string(host);
    out.path_prefix = prefix;
}

}  // namespace attune::kube
