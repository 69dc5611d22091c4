#pragma once
// Binding a listener the way every server of ours does: a numeric host and
// port only (no DNS at start), SO_REUSEADDR, then listen.
#include <boost/asio/ip/tcp.hpp>

#include <string>

namespace attune::http {

// Throws std::system_error when the address is unusable.
void bind_and_listen(boost::asio::ip::tcp::acceptor& acceptor, const std::string& host, const std::string& port);

// The bound port (useful with port 0); 0 when not bound.
unsigned short bound_port(const boost::asio::ip::tcp::acceptor& acceptor) noexcept;

}  // namespace attune::http
