#include <attune/http/listen.hpp>

namespace attune::http {
using tcp = boost::asio::ip::tcp;

void bind_and_listen(tcp::acceptor& acceptor, const std::string& host, const std::string& port) {
    tcp::resolver resolver(acceptor.get_executor());
    auto results = resolver.resolve(host, port, tcp::resolver::passive | tcp::resolver::numeric_host |
                                                    tcp::resolver::numeric_service);
    const tcp::endpoint ep = *results.begin();
    acceptor.open(ep.protocol());
    acceptor.set_option(boost::asio::socket_base::reuse_address(true));
    acceptor.bind(ep);
    acceptor.listen();
}

unsigned short bound_port(const tcp::acceptor& acceptor) noexcept {
    boost::system::error_code ec;
    auto ep = acceptor.local_endpoint(ec);
    return ec ? 0 : ep.port();
}

}  // namespace attune::http
