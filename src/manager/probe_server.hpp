#pragma once
// A small plain-HTTP/1.1 server for /metrics, /healthz and /readyz, as a
// coroutine on the shared io_context. Beast stays in the .cpp. Every read
// and write has a deadline; stop() closes the listener and open connections.
#include <boost/asio/any_io_executor.hpp>
#include <boost/asio/awaitable.hpp>

#include <functional>
#include <memory>
#include <string>
#include <string_view>

namespace attune::manager {

struct ProbeResponse {
    unsigned status = 200;
    std::string content_type = "text/plain; charset=utf-8";
    std::string body;
};

class ProbeServer {
public:
    // `target` is the request path (query included); only GET/HEAD reach the handler.
    using Handler = std::function<ProbeResponse(std::string_view target)>;

    ProbeServer(boost::asio::any_io_executor ex, Handler h);
    ~ProbeServer();

    // Binds and listens; throws std::system_error when the address is unusable.
    void listen(const std::string& host, const std::string& port);
    // The bound port (useful with port 0).
    unsigned short port() const;
    // Accepts until stop().
    boost::asio::awaitable<void> run();
    void stop() noexcept;

private:
    struct impl;
    std::shared_ptr<impl> impl_;
};

}  // namespace attune::manager
