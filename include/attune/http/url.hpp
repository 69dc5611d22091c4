#pragma once
// Splitting a server URL ("https://host:port/prefix") into the parts a
// client connects with. Plain values; no Asio.
#include <stdexcept>
#include <string>
#include <string_view>

namespace attune::http {

struct ServerUrl {
    std::string scheme;       // "http" | "https"
    std::string host;         // DNS name or IP literal (no brackets)
    std::string port;         // explicit, else 80 / 443
    std::string path_prefix;  // "" or "/prefix" (no trailing slash)
};

// Throws std::invalid_argument naming the URL and the fault: a scheme other
// than http/https, no host, userinfo, a query or fragment, a bad port, an
// unterminated IPv6 literal.
ServerUrl split_server_url(std::string_view url);

}  // namespace attune::http
