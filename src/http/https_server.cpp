#include <attune/http/https_server.hpp>
#include <attune/http/listen.hpp>
#include <attune/http/tls_context.hpp>

#include <boost/asio/as_tuple.hpp>
#include <boost/asio/co_spawn.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/ssl/context.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <boost/beast/core/flat_buffer.hpp>
#include <boost/beast/core/tcp_stream.hpp>
#include <boost/beast/http/read.hpp>
#include <boost/beast/http/string_body.hpp>
#include <boost/beast/http/write.hpp>
#include <boost/beast/ssl/ssl_stream.hpp>

#include <openssl/ssl.h>

#include <algorithm>
#include <cctype>
#include <list>
#include <stdexcept>

namespace attune::http {
namespace asio = boost::asio;
namespace beast = boost::beast;
namespace bhttp = boost::beast::http;
namespace ssl = boost::asio::ssl;
using Tcp = asio::ip::tcp;

namespace {
using TlsStream = beast::ssl_stream<beast::tcp_stream>;
constexpr auto kUseTuple = asio::as_tuple(asio::use_awaitable);

struct Connection {
    TlsStream* stream = nullptr;
    bool busy = false;   // a request has arrived and is not answered yet
    bool large = false;  // ... and its body is large (ServerOptions::small_body_bytes)
};

bhttp::response<bhttp::string_body> plain_reply(unsigned version, bhttp::status status, std::string body) {
    bhttp::response<bhttp::string_body> res{status, version};
    res.set(bhttp::field::content_type, "text/plain; charset=utf-8");
    res.keep_alive(false);
    res.body() = std::move(body);
    res.prepare_payload();
    return res;
}

// The media type of a Content-Type value, parameters (charset) aside.
bool media_type_is(std::string_view value, std::string_view want) {
    value = value.substr(0, value.find(';'));
    while (!value.empty() && (value.back() == ' ' || value.back() == '\t')) value.remove_suffix(1);
    while (!value.empty() && (value.front() == ' ' || value.front() == '\t')) value.remove_prefix(1);
    return std::equal(value.begin(), value.end(), want.begin(), want.end(), [](char a, char b) {
        return std::tolower(static_cast<unsigned char>(a)) == std::tolower(static_cast<unsigned char>(b));
    });
}

bool carries_body(bhttp::verb v) { return v == bhttp::verb::post || v == bhttp::verb::put || v == bhttp::verb::patch; }
}  // namespace

struct HttpsServer::impl : std::enable_shared_from_this<impl> {
    impl(asio::any_io_executor ex, Handler h, ServerOptions o)
        : executor(ex), acceptor(ex), on_request(std::move(h)), opts(std::move(o)) {}
    impl(asio::any_io_executor ex, AsyncHandler h, ServerOptions o)
        : executor(ex), acceptor(ex), on_request_async(std::move(h)), opts(std::move(o)) {}

    asio::any_io_executor executor;
    Tcp::acceptor acceptor;
    Handler on_request;
    AsyncHandler on_request_async;
    ServerOptions opts;
    std::shared_ptr<ssl::context> tls;  // replaced whole by set_certificate
    std::uint64_t generation = 0;
    std::list<Connection> connections;
    bool stopping = false;

    void emit(ServerEvent e) const {
        if (opts.on_event) opts.on_event(e);
    }

    static void close(TlsStream& s) noexcept {
        boost::system::error_code ignored;
        beast::get_lowest_layer(s).socket().shutdown(Tcp::socket::shutdown_both, ignored);
        beast::get_lowest_layer(s).close();
    }

    // Writes one response; false when the connection must end.
    template <class Response>
    asio::awaitable<bool> write(TlsStream& stream, Response& res) {
        beast::get_lowest_layer(stream).expires_after(opts.write_timeout);
        auto [ec, n] = co_await bhttp::async_write(stream, res, kUseTuple);
        co_return !ec && res.keep_alive();
    }

    asio::awaitable<void> serve(Tcp::socket socket) {
        auto self = shared_from_this();
        // The context this connection was accepted with stays alive with it,
        // whatever set_certificate does meanwhile.
        const std::shared_ptr<ssl::context> ctx = tls;
        TlsStream stream(beast::tcp_stream(std::move(socket)), *ctx);
        auto it = connections.insert(connections.end(), Connection{&stream, false});
        emit(ServerEvent::ConnectionOpened);
        try {
            co_await session(stream, *it);
        } catch (const std::exception&) {
            // Out of memory or a bug in one connection: it ends, the server goes on.
        }
        close(stream);
        connections.erase(it);
        emit(ServerEvent::ConnectionClosed);
    }

    std::size_t large_count() const {
        std::size_t n = 0;
        for (const auto& c : connections) n += c.busy && c.large ? 1 : 0;
        return n;
    }

    // Answers without the handler and ends the connection.
    asio::awaitable<void> refuse(TlsStream& stream, unsigned version, bhttp::status status, std::string body) {
        auto res = plain_reply(version, status, std::move(body));
        // The apiserver's REST client may retry a 5xx that carries
        // Retry-After (client-go rest/request.go, checkWait).
        if (status == bhttp::status::service_unavailable) res.set(bhttp::field::retry_after, "1");
        co_await write(stream, res);
    }

    asio::awaitable<void> session(TlsStream& stream, Connection& conn) {
        beast::get_lowest_layer(stream).expires_after(opts.handshake_timeout);
        auto [hec] = co_await stream.async_handshake(ssl::stream_base::server, kUseTuple);
        if (hec) {
            emit(ServerEvent::HandshakeFailed);
            co_return;
        }
        // The read buffer holds a header at most (the body goes straight
        // into the parser's string), so an idle connection costs little.
        beast::flat_buffer buffer(opts.max_header_bytes + (8u << 10));
        bool first = true;
        while (!stopping) {
            conn.busy = conn.large = false;
            bhttp::request_parser<bhttp::string_body> parser;
            parser.body_limit(opts.max_body_bytes);
            parser.header_limit(static_cast<std::uint32_t>(opts.max_header_bytes));
            if (!first && buffer.size() == 0) {
                // Kept alive: wait up to idle_timeout for the next request's
                // first byte; from then on the request has ReadTimeout in
                // all, so a client that trickles its header byte by byte
                // holds the connection no longer than that.
                beast::get_lowest_layer(stream).expires_after(opts.idle_timeout);
                auto [iec, got] = co_await stream.async_read_some(buffer.prepare(512), kUseTuple);
                if (iec) co_return;  // idle timeout or the peer closed: nothing was asked
                buffer.commit(got);
            }
            first = false;
            beast::get_lowest_layer(stream).expires_after(opts.read_timeout);
            auto [ec, n] = co_await bhttp::async_read_header(stream, buffer, parser, kUseTuple);
            if (!ec) {
                conn.busy = true;
                const auto& head = parser.get();
                const auto length = parser.content_length();
                conn.large = parser.chunked() || (length && *length > opts.small_body_bytes);
                if (conn.large && large_count() > opts.max_large_requests) {
                    emit(ServerEvent::TooManyRequests);
                    co_await refuse(stream, head.version(), bhttp::status::service_unavailable,
                                    "too many large requests at once (more than " +
                                        std::to_string(opts.max_large_requests) + "), retry\n");
                    co_return;
                }
                if (!opts.required_content_type.empty() && carries_body(head.method())) {
                    auto ct = head.find(bhttp::field::content_type);
                    if (ct == head.end() || !media_type_is(ct->value(), opts.required_content_type)) {
                        emit(ServerEvent::UnsupportedMediaType);
                        co_await refuse(stream, head.version(), bhttp::status::unsupported_media_type,
                                        "Content-Type must be " + opts.required_content_type + "\n");
                        co_return;
                    }
                }
                if (!parser.is_done()) std::tie(ec, n) = co_await bhttp::async_read(stream, buffer, parser, kUseTuple);
            }
            if (ec) {
                const unsigned version = parser.is_header_done() ? parser.get().version() : 11;
                if (ec == bhttp::error::body_limit) {
                    // A declared Content-Length over the cap is refused at
                    // the header, a chunked body at the first byte past it.
                    emit(ServerEvent::BodyTooLarge);
                    co_await refuse(stream, version, bhttp::status::payload_too_large,
                                    "request body larger than " + std::to_string(opts.max_body_bytes) + " bytes\n");
                } else if (ec == beast::error::timeout) {
                    emit(ServerEvent::ReadTimeout);
                } else if (ec.category() == bhttp::make_error_code(bhttp::error::bad_method).category() &&
                           ec != bhttp::error::end_of_stream && ec != bhttp::error::partial_message) {
                    emit(ServerEvent::BadRequest);
                    co_await refuse(stream, version, bhttp::status::bad_request,
                                    "malformed HTTP request: " + ec.message() + "\n");
                }
                co_return;
            }
            const auto& req = parser.get();
            ServerRequest sr;
            sr.method = req.method_string();
            sr.target = req.target();
            if (auto ct = req.find(bhttp::field::content_type); ct != req.end()) sr.content_type = ct->value();
            if (auto au = req.find(bhttp::field::authorization); au != req.end()) sr.authorization = au->value();
            sr.body = req.body();
            ServerReply reply;
            try {
                if (on_request_async) {
                    reply = co_await on_request_async(sr);
                } else {
                    reply = on_request(sr);
                }
            } catch (const std::exception& e) {
                reply =
                    ServerReply(500, "text/plain; charset=utf-8", std::string("internal error: ") + e.what() + "\n");
            }
            bhttp::response<bhttp::string_body> res{static_cast<bhttp::status>(reply.status), req.version()};
            res.set(bhttp::field::content_type, reply.content_type);
            for (const auto& [name, value] : reply.headers) res.set(name, value);
            res.keep_alive(req.keep_alive() && !stopping);
            res.body() = std::move(reply.body);
            res.prepare_payload();
            if (!co_await write(stream, res)) co_return;
        }
    }
};

HttpsServer::HttpsServer(asio::any_io_executor ex, Handler h, ServerOptions opts)
    : impl_(std::make_shared<impl>(ex, std::move(h), std::move(opts))) {}

HttpsServer::HttpsServer(asio::any_io_executor ex, AsyncHandler h, ServerOptions opts)
    : impl_(std::make_shared<impl>(ex, std::move(h), std::move(opts))) {}

HttpsServer::~HttpsServer() { stop(); }

void HttpsServer::set_certificate(const std::string& cert_chain_pem, const std::string& key_pem) {
    auto ctx = std::make_shared<ssl::context>(make_server_tls_context(cert_chain_pem, key_pem));
    if (SSL_CTX_check_private_key(ctx->native_handle()) != 1)
        throw std::runtime_error("tls: server key does not match the server certificate");
    // An idle kept-alive connection gives its TLS read and write buffers
    // back (about 34 KiB each) until its next record.
    SSL_CTX_set_mode(ctx->native_handle(), SSL_MODE_RELEASE_BUFFERS);
    if (!impl_->opts.client_ca_pem.empty()) {
        try {
            ctx->add_certificate_authority(asio::buffer(impl_->opts.client_ca_pem));
        } catch (const boost::system::system_error& e) {
            throw std::runtime_error("tls: cannot load the client CA: " + e.code().message());
        }
        ctx->set_verify_mode(ssl::verify_peer | ssl::verify_fail_if_no_peer_cert);
    }
    impl_->tls = std::move(ctx);
    ++impl_->generation;
}

bool HttpsServer::has_certificate() const noexcept { return impl_->tls != nullptr; }

void HttpsServer::listen(const std::string& host, const std::string& port) {
    bind_and_listen(impl_->acceptor, host, port);
}

unsigned short HttpsServer::port() const { return bound_port(impl_->acceptor); }

asio::awaitable<void> HttpsServer::run() {
    auto self = impl_;
    if (!self->tls) throw std::logic_error("https_server::run without a certificate");
    while (!self->stopping) {
        auto [ec, socket] = co_await self->acceptor.async_accept(kUseTuple);
        if (self->stopping) break;
        if (ec) {
            if (ec == asio::error::operation_aborted || ec == asio::error::bad_descriptor) break;
            continue;  // e.g. the peer reset before we accepted: nothing to serve
        }
        if (self->connections.size() >= self->opts.max_connections) {
            // Refused at once with a reset, before any TLS work, rather
            // than left in the backlog until the caller's timeout: the
            // apiserver sees the call fail and applies the webhook's
            // failurePolicy (Ignore: the object is admitted unchanged).
            self->emit(ServerEvent::AtCapacity);
            boost::system::error_code ignored;
            socket.set_option(asio::socket_base::linger(true, 0), ignored);
            socket.close(ignored);
            continue;
        }
        boost::system::error_code ignored;
        socket.set_option(Tcp::no_delay(true), ignored);
        // A failing connection is that connection's business, never the server's.
        asio::co_spawn(self->executor, self->serve(std::move(socket)), [](std::exception_ptr) {});
    }
}

asio::awaitable<void> HttpsServer::shutdown(std::chrono::milliseconds grace) {
    auto self = impl_;
    self->stopping = true;
    boost::system::error_code ignored;
    self->acceptor.close(ignored);
    for (auto& c : self->connections)
        if (!c.busy) impl::close(*c.stream);
    asio::steady_timer t(self->executor);
    const auto until = std::chrono::steady_clock::now() + grace;
    while (!self->connections.empty() && std::chrono::steady_clock::now() < until) {
        t.expires_after(std::chrono::milliseconds(10));
        co_await t.async_wait(kUseTuple);
    }
    stop();
}

void HttpsServer::stop() noexcept {
    impl_->stopping = true;
    boost::system::error_code ignored;
    impl_->acceptor.close(ignored);
    for (auto& c : impl_->connections) impl::close(*c.stream);
}

ServerStats HttpsServer::stats() const noexcept {
    ServerStats s;
    s.open_connections = impl_->connections.size();
    for (const auto& c : impl_->connections) s.busy_connections += c.busy ? 1 : 0;
    s.certificate_generation = impl_->generation;
    return s;
}

}  // namespace attune::http
