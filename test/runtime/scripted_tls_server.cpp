#include "scripted_tls_server.hpp"

#include <attune/http/tls_context.hpp>

#include <boost/asio/as_tuple.hpp>
#include <boost/asio/co_spawn.hpp>
#include <boost/asio/detached.hpp>
#include <boost/asio/read.hpp>
#include <boost/asio/read_until.hpp>
#include <boost/asio/ssl/stream.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/streambuf.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <boost/asio/write.hpp>

#include <openssl/ssl.h>
#include <openssl/x509.h>

#include <algorithm>
#include <istream>
#include <type_traits>

namespace attune::test {
namespace asio = boost::asio;
using tcp = asio::ip::tcp;
constexpr auto tuple_aw = asio::as_tuple(asio::use_awaitable);

namespace {

std::string reason_phrase(unsigned s) {
    switch (s) {
        case 200: return "OK";
        case 201: return "Created";
        case 401: return "Unauthorized";
        case 404: return "Not Found";
        case 409: return "Conflict";
        case 410: return "Gone";
        case 429: return "Too Many Requests";
        case 500: return "Internal Server Error";
        case 503: return "Service Unavailable";
        default: return "Status";
    }
}

asio::awaitable<void> pause(std::chrono::milliseconds d) {
    if (d.count() <= 0) co_return;
    asio::steady_timer t(co_await asio::this_coro::executor);
    t.expires_after(d);
    co_await t.async_wait(tuple_aw);
}

}  // namespace

scripted_reply scripted_reply::http(unsigned status, std::string body, std::vector<std::string> extra, then after) {
    std::string head = "HTTP/1.1 " + std::to_string(status) + " " + reason_phrase(status) + "\r\n";
    head += "Content-Type: application/json\r\nContent-Length: " + std::to_string(body.size()) + "\r\n";
    for (auto& h : extra) head += h + "\r\n";
    head += "\r\n";
    scripted_reply r;
    r.pieces.push_back({{}, head + body});
    r.after = after;
    return r;
}

scripted_reply scripted_reply::status(unsigned code, std::string reason, std::string message,
                                      std::vector<std::string> extra) {
    std::string body = R"({"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":")" + message +
                       R"(","reason":")" + reason + R"(","code":)" + std::to_string(code) + "}";
    return http(code, std::move(body), std::move(extra));
}

scripted_reply scripted_reply::watch_stream(std::vector<std::string> lines, std::chrono::milliseconds gap) {
    scripted_reply r;
    r.pieces.push_back({{}, "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nConnection: close\r\n\r\n"});
    for (auto& l : lines) r.pieces.push_back({gap, l + "\n"});
    r.after = then::close;
    return r;
}

struct scripted_tls_server::state {};

namespace {

using replies_t = std::shared_ptr<std::deque<scripted_reply>>;
using requests_t = std::shared_ptr<std::vector<recorded_request>>;

// One connection's request/reply loop, over TLS or plain TCP.
template <class Stream>
asio::awaitable<void> serve(std::shared_ptr<Stream> stream, replies_t replies, requests_t reqs, int conn_id) {
    constexpr bool tls = !std::is_same_v<Stream, tcp::socket>;
    std::string client_cn;
    if constexpr (tls) {
        auto [hec] = co_await stream->async_handshake(asio::ssl::stream_base::server, tuple_aw);
        if (hec) co_return;
        if (X509* peer = SSL_get1_peer_certificate(stream->native_handle())) {
            char cn[256] = {};
            if (X509_NAME_get_text_by_NID(X509_get_subject_name(peer), NID_commonName, cn, sizeof cn) > 0) client_cn = cn;
            X509_free(peer);
        }
    }
    asio::streambuf buf;
    for (;;) {
        auto [rec, n] = co_await asio::async_read_until(*stream, buf, "\r\n\r\n", tuple_aw);
        if (rec) co_return;
        recorded_request rr;
        rr.at = std::chrono::steady_clock::now();
        rr.connection = conn_id;
        rr.client_cn = client_cn;
        rr.head.assign(asio::buffers_begin(buf.data()), asio::buffers_begin(buf.data()) + n);
        buf.consume(n);
        std::istringstream line(rr.head);
        line >> rr.method >> rr.target;
        std::size_t len = 0;
        std::string lower = rr.head;
        std::transform(lower.begin(), lower.end(), lower.begin(), ::tolower);
        if (auto p = lower.find("content-length:"); p != std::string::npos) len = std::stoul(lower.substr(p + 15));
        if (buf.size() < len) {
            auto [bec, bn] = co_await asio::async_read(*stream, buf, asio::transfer_exactly(len - buf.size()), tuple_aw);
            if (bec) co_return;
        }
        rr.body.assign(asio::buffers_begin(buf.data()), asio::buffers_begin(buf.data()) + len);
        buf.consume(len);
        reqs->push_back(rr);

        scripted_reply reply = replies->empty() ? scripted_reply::status(500, "InternalError", "script exhausted")
                                                : std::move(replies->front());
        if (!replies->empty()) replies->pop_front();
        for (auto& [delay, bytes] : reply.pieces) {
            co_await pause(delay);
            auto [wec, wn] = co_await asio::async_write(*stream, asio::buffer(bytes), tuple_aw);
            if (wec) co_return;
        }
        switch (reply.after) {
            case scripted_reply::then::keep_open: break;
            case scripted_reply::then::close: {
                boost::system::error_code ig;
                if constexpr (tls) {
                    co_await stream->async_shutdown(tuple_aw);
                } else {
                    stream->shutdown(tcp::socket::shutdown_both, ig);
                }
                stream->lowest_layer().close(ig);
                co_return;
            }
            case scripted_reply::then::reset: {
                boost::system::error_code ig;
                stream->lowest_layer().set_option(tcp::socket::linger(true, 0), ig);
                stream->lowest_layer().close(ig);
                co_return;
            }
            case scripted_reply::then::hang:
                co_await pause(std::chrono::milliseconds(30'000));
                co_return;
        }
    }
}

}  // namespace

scripted_tls_server::scripted_tls_server(asio::io_context& io, const std::string& cert_pem, const std::string& key_pem,
                                         mode m)
    : io_(io),
      ctx_(m == mode::plain ? nullptr
                            : std::make_shared<asio::ssl::context>(http::make_server_tls_context(cert_pem, key_pem))),
      acceptor_(std::make_shared<tcp::acceptor>(io, tcp::endpoint(asio::ip::make_address("127.0.0.1"), 0))),
      replies_(std::make_shared<std::deque<scripted_reply>>()),
      requests_(std::make_shared<std::vector<recorded_request>>()), connections_(std::make_shared<int>(0)),
      mode_(m) {
    port_ = acceptor_->local_endpoint().port();
    auto ctx = ctx_;
    auto acc = acceptor_;
    auto replies = replies_;
    auto reqs = requests_;
    auto conns = connections_;
    const mode md = mode_;
    asio::co_spawn(
        io,
        [ctx, acc, replies, reqs, conns, md]() -> asio::awaitable<void> {
            for (;;) {
                auto [ec, sock] = co_await acc->async_accept(tuple_aw);
                if (ec) co_return;
                const int conn_id = (*conns)++;
                if (md == mode::no_handshake) {
                    // Accept TCP, then say nothing until the client gives up.
                    asio::co_spawn(
                        acc->get_executor(),
                        [s = std::make_shared<tcp::socket>(std::move(sock))]() -> asio::awaitable<void> {
                            co_await pause(std::chrono::milliseconds(30'000));
                        },
                        asio::detached);
                } else if (md == mode::plain) {
                    asio::co_spawn(acc->get_executor(),
                                   serve(std::make_shared<tcp::socket>(std::move(sock)), replies, reqs, conn_id),
                                   asio::detached);
                } else {
                    asio::co_spawn(
                        acc->get_executor(),
                        serve(std::make_shared<asio::ssl::stream<tcp::socket>>(std::move(sock), *ctx), replies, reqs,
                              conn_id),
                        asio::detached);
                }
            }
        },
        asio::detached);
}

scripted_tls_server::~scripted_tls_server() { stop(); }

void scripted_tls_server::request_client_certificate(const std::string& ca_pem) {
    ctx_->add_certificate_authority(asio::buffer(ca_pem));
    ctx_->set_verify_mode(asio::ssl::verify_peer);
}

void scripted_tls_server::stop() {
    boost::system::error_code ec;
    acceptor_->close(ec);
}

}  // namespace attune::test
