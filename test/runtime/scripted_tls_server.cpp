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
using Tcp = asio::ip::tcp;
constexpr auto kAsTuple = asio::as_tuple(asio::use_awaitable);

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
    co_await t.async_wait(kAsTuple);
}

}  // namespace

ScriptedReply ScriptedReply::http(unsigned status, std::string body, std::vector<std::string> extra, Then after) {
    std::string head = "HTTP/1.1 " + std::to_string(status) + " " + reason_phrase(status) + "\r\n";
    head += "Content-Type: application/json\r\nContent-Length: " + std::to_string(body.size()) + "\r\n";
    for (auto& h : extra) head += h + "\r\n";
    head += "\r\n";
    ScriptedReply r;
    r.pieces.push_back({{}, head + body});
    r.after = after;
    return r;
}

ScriptedReply ScriptedReply::status(unsigned code, std::string reason, std::string message,
                                    std::vector<std::string> extra) {
    std::string body = R"({"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":")" + message +
                       R"(","reason":")" + reason + R"(","code":)" + std::to_string(code) + "}";
    return http(code, std::move(body), std::move(extra));
}

ScriptedReply ScriptedReply::watch_stream(std::vector<std::string> lines, std::chrono::milliseconds gap) {
    ScriptedReply r;
    r.pieces.push_back({{}, "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nConnection: close\r\n\r\n"});
    for (auto& l : lines) r.pieces.push_back({gap, l + "\n"});
    r.after = Then::Close;
    return r;
}

struct ScriptedTlsServer::State {};

namespace {

using Replies = std::shared_ptr<std::deque<ScriptedReply>>;
using Requests = std::shared_ptr<std::vector<RecordedRequest>>;

// One connection's request/reply loop, over TLS or plain TCP.
template <class Stream>
asio::awaitable<void> serve(std::shared_ptr<Stream> stream, Replies replies, Requests reqs, int conn_id) {
    constexpr bool kTls = !std::is_same_v<Stream, Tcp::socket>;
    std::string client_cn;
    if constexpr (kTls) {
        auto [hec] = co_await stream->async_handshake(asio::ssl::stream_base::server, kAsTuple);
        if (hec) co_return;
        if (X509* peer = SSL_get1_peer_certificate(stream->native_handle())) {
            char cn[256] = {};
            if (X509_NAME_get_text_by_NID(X509_get_subject_name(peer), NID_commonName, cn, sizeof cn) > 0) client_cn = cn;
            X509_free(peer);
        }
    }
    asio::streambuf buf;
    for (;;) {
        auto [rec, n] = co_await asio::async_read_until(*stream, buf, "\r\n\r\n", kAsTuple);
        if (rec) co_return;
        RecordedRequest rr;
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
            auto [bec, bn] =
                co_await asio::async_read(*stream, buf, asio::transfer_exactly(len - buf.size()), kAsTuple);
            if (bec) co_return;
        }
        rr.body.assign(asio::buffers_begin(buf.data()), asio::buffers_begin(buf.data()) + len);
        buf.consume(len);
        reqs->push_back(rr);

        ScriptedReply reply = replies->empty() ? ScriptedReply::status(500, "InternalError", "script exhausted")
                                               : std::move(replies->front());
        if (!replies->empty()) replies->pop_front();
        for (auto& [delay, bytes] : reply.pieces) {
            co_await pause(delay);
            auto [wec, wn] = co_await asio::async_write(*stream, asio::buffer(bytes), kAsTuple);
            if (wec) co_return;
        }
        switch (reply.after) {
            case ScriptedReply::Then::KeepOpen: break;
            case ScriptedReply::Then::Close: {
                boost::system::error_code ig;
                if constexpr (kTls) {
                    co_await stream->async_shutdown(kAsTuple);
                } else {
                    stream->shutdown(Tcp::socket::shutdown_both, ig);
                }
                stream->lowest_layer().close(ig);
                co_return;
            }
            case ScriptedReply::Then::Reset: {
                boost::system::error_code ig;
                stream->lowest_layer().set_option(Tcp::socket::linger(true, 0), ig);
                stream->lowest_layer().close(ig);
                co_return;
            }
            case ScriptedReply::Then::Hang: co_await pause(std::chrono::milliseconds(30'000)); co_return;
        }
    }
}

}  // namespace

ScriptedTlsServer::ScriptedTlsServer(asio::io_context& io, const std::string& cert_pem, const std::string& key_pem,
                                     Mode m)
    : io_(io),
      ctx_(m == Mode::Plain ? nullptr
                            : std::make_shared<asio::ssl::context>(http::make_server_tls_context(cert_pem, key_pem))),
      acceptor_(std::make_shared<Tcp::acceptor>(io, Tcp::endpoint(asio::ip::make_address("127.0.0.1"), 0))),
      replies_(std::make_shared<std::deque<ScriptedReply>>()),
      requests_(std::make_shared<std::vector<RecordedRequest>>()), connections_(std::make_shared<int>(0)), mode_(m) {
    port_ = acceptor_->local_endpoint().port();
    auto ctx = ctx_;
    auto acc = acceptor_;
    auto replies = replies_;
    auto reqs = requests_;
    auto conns = connections_;
    const Mode md = mode_;
    asio::co_spawn(
        io,
        [ctx, acc, replies, reqs, conns, md]() -> asio::awaitable<void> {
            for (;;) {
                auto [ec, sock] = co_await acc->async_accept(kAsTuple);
                if (ec) co_return;
                const int conn_id = (*conns)++;
                if (md == Mode::NoHandshake) {
                    // Accept TCP, then say nothing until the client gives up.
                    asio::co_spawn(
                        acc->get_executor(),
                        [s = std::make_shared<Tcp::socket>(std::move(sock))]() -> asio::awaitable<void> {
                            co_await pause(std::chrono::milliseconds(30'000));
                        },
                        asio::detached);
                } else if (md == Mode::Plain) {
                    asio::co_spawn(acc->get_executor(),
                                   serve(std::make_shared<Tcp::socket>(std::move(sock)), replies, reqs, conn_id),
                                   asio::detached);
                } else {
                    asio::co_spawn(acc->get_executor(),
                                   serve(std::make_shared<asio::ssl::stream<Tcp::socket>>(std::move(sock), *ctx),
                                         replies, reqs, conn_id),
                                   asio::detached);
                }
            }
        },
        asio::detached);
}

ScriptedTlsServer::~ScriptedTlsServer() { stop(); }

void ScriptedTlsServer::request_client_certificate(const std::string& ca_pem) {
    ctx_->add_certificate_authority(asio::buffer(ca_pem));
    ctx_->set_verify_mode(asio::ssl::verify_peer);
}

void ScriptedTlsServer::stop() {
    boost::system::error_code ec;
    acceptor_->close(ec);
}

}  // namespace attune::test
