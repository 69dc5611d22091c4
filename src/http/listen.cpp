#include <attune/http/listen.hpp>

namespace attune::http {
using Tcp = boost::asio::ip::tcp;

void bind_and_listen(Tcp::acceptor& acceptor, const std::string& host, const std::string& port) {
    Tcp::resolver resolver(acceptor.get_executor());
    auto results =
        resolver.resolve(host, port,
                         Tcp::resolver::passive | Tcp::resolver::numeric_host | Tcp::resolver::numeric_service);
    const Tcp::endpoint ep = *results.begin();
    acceptor.open(ep.protocol());
    acceptor.set_option(boost::asio::socket_base::reuse_address(true));
    acceptor.bind(ep);
    acceptor.listen();
}

unsigned short bound_port(const Tcp::acceptor& acceptor) noexcept {
    boost::system::error_code ec;
    auto ep = acceptor.local_endpoint(ec);
    return ec ? 0 : ep.port();
}

}  // namespace attune::http
