#include "probe_server.hpp"

#include <attune/http/listen.hpp>

#include <boost/asio/as_tuple.hpp>
#include <boost/asio/co_spawn.hpp>
#include <boost/asio/detached.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/this_coro.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <boost/beast/core/flat_buffer.hpp>
#include <boost/beast/core/tcp_stream.hpp>
#include <boost/beast/http/read.hpp>
#include <boost/beast/http/string_body.hpp>
#include <boost/beast/http/write.hpp>

#include <spdlog/spdlog.h>

#include <list>

namespace attune::manager {
namespace asio = boost::asio;
namespace beast = boost::beast;
namespace bhttp = boost::beast::http;
using Tcp = asio::ip::tcp;

namespace {
constexpr auto kIdleTimeout = std::chrono::seconds(30);  // between requests on a kept-alive connection
constexpr auto kIoTimeout = std::chrono::seconds(10);    // one request read or response write
constexpr std::size_t kMaxRequestBytes = 16 * 1024;
}  // namespace

struct ProbeServer::impl : std::enable_shared_from_this<impl> {
    impl(asio::any_io_executor ex, Handler h) : acceptor(ex), on_request(std::move(h)) {}

    Tcp::acceptor acceptor;
    Handler on_request;
    std::list<beast::tcp_stream*> open;  // for stop()
    bool stopping = false;

    asio::awaitable<void> serve(Tcp::socket socket) {
        auto self = shared_from_this();
        beast::tcp_stream stream(std::move(socket));
        auto it = open.insert(open.end(), &stream);
        beast::flat_buffer buffer(kMaxRequestBytes);
        bool first = true;
        while (!stopping) {
            bhttp::request_parser<bhttp::string_body> parser;
            parser.body_limit(kMaxRequestBytes);
            parser.header_limit(kMaxRequestBytes);
            stream.expires_after(first ? kIoTimeout : kIdleTimeout);
            first = false;
            auto [ec, n] = co_await bhttp::async_read(stream, buffer, parser, asio::as_tuple(asio::use_awaitable));
            if (ec) break;  // closed, timed out or malformed: nothing to answer
            auto& req = parser.get();
            bhttp::response<bhttp::string_body> res;
            res.version(req.version());
            res.keep_alive(req.keep_alive());
            if (req.method() != bhttp::verb::get && req.method() != bhttp::verb::head) {
                res.result(bhttp::status::method_not_allowed);
                res.set(bhttp::field::allow, "GET, HEAD");
                res.set(bhttp::field::content_type, "text/plain; charset=utf-8");
                res.body() = "method not allowed\n";
            } else {
                auto r = on_request(std::string_view(req.target().data(), req.target().size()));
                res.result(r.status);
                res.set(bhttp::field::content_type, r.content_type);
                if (req.method() == bhttp::verb::get) res.body() = std::move(r.body);
            }
            res.prepare_payload();
            stream.expires_after(kIoTimeout);
            auto [wec, wn] = co_await bhttp::async_write(stream, res, asio::as_tuple(asio::use_awaitable));
            if (wec || !res.keep_alive()) break;
        }
        beast::error_code ignored;
        stream.socket().shutdown(Tcp::socket::shutdown_both, ignored);
        stream.close();
        open.erase(it);
    }
};

ProbeServer::ProbeServer(asio::any_io_executor ex, Handler h) : impl_(std::make_shared<impl>(ex, std::move(h))) {}

ProbeServer::~ProbeServer() { stop(); }

void ProbeServer::listen(const std::string& host, const std::string& port) {
    http::bind_and_listen(impl_->acceptor, host, port);
}

unsigned short ProbeServer::port() const { return http::bound_port(impl_->acceptor); }

asio::awaitable<void> ProbeServer::run() {
    auto self = impl_;
    while (!self->stopping) {
        auto [ec, socket] = co_await self->acceptor.async_accept(asio::as_tuple(asio::use_awaitable));
        if (self->stopping) break;
        if (ec) {
            if (ec == asio::error::operation_aborted) break;
            spdlog::warn("probe server accept failed error=\"{}\"", ec.message());
            continue;
        }
        // A broken connection is that connection's business; it must not stop the server.
        asio::co_spawn(self->acceptor.get_executor(), self->serve(std::move(socket)), [](std::exception_ptr e) {
            if (!e) return;
            try {
                std::rethrow_exception(e);
            } catch (const std::exception& ex) {
                spdlog::warn("probe connection failed error=\"{}\"", ex.what());
            }
        });
    }
}

void ProbeServer::stop() noexcept {
    impl_->stopping = true;
    boost::system::error_code ignored;
    impl_->acceptor.close(ignored);
    for (auto* s : impl_->open) s->socket().close(ignored);
}

}  // namespace attune::manager
