// Behaviour of http::HttpsServer on loopback, driven by real TLS clients.
#include "run_coro.hpp"
#include "test_certs.hpp"

#include <attune/http/https_client.hpp>
#include <attune/http/https_server.hpp>

#include <boost/asio/as_tuple.hpp>
#include <boost/asio/co_spawn.hpp>
#include <boost/asio/detached.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/ssl.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <boost/asio/write.hpp>
#include <boost/beast/core/flat_buffer.hpp>
#include <boost/beast/http/read.hpp>
#include <boost/beast/http/string_body.hpp>

#include <openssl/ssl.h>
#include <openssl/x509.h>

#include <gtest/gtest.h>

#include <map>

namespace attune::http {
namespace {
using namespace std::chrono_literals;
using test::pki;
using test::run_coro;
namespace asio = boost::asio;
namespace beast = boost::beast;
namespace bhttp = boost::beast::http;
using Tcp = asio::ip::tcp;
constexpr auto kUseTuple = asio::as_tuple(asio::use_awaitable);

asio::awaitable<void> sleep_for(std::chrono::milliseconds d) {
    asio::steady_timer t(co_await asio::this_coro::executor);
    t.expires_after(d);
    co_await t.async_wait(kUseTuple);
}

// A raw TLS client: what the peer certificate is, and exactly the bytes we send.
struct RawClient {
    asio::ssl::context ctx{asio::ssl::context::tls_client};
    std::unique_ptr<asio::ssl::stream<Tcp::socket>> s;

    explicit RawClient(int max_version = 0) {
        ctx.set_verify_mode(asio::ssl::verify_none);
        if (max_version) {
            SSL_CTX_set_security_level(ctx.native_handle(), 0);  // let the client offer old versions
            SSL_CTX_set_min_proto_version(ctx.native_handle(), TLS1_VERSION);
            SSL_CTX_set_max_proto_version(ctx.native_handle(), max_version);
        }
    }

    asio::awaitable<boost::system::error_code> connect(unsigned short port, bool handshake = true) {
        s = std::make_unique<asio::ssl::stream<Tcp::socket>>(co_await asio::this_coro::executor, ctx);
        auto [ec] =
            co_await s->next_layer().async_connect(Tcp::endpoint(asio::ip::make_address("127.0.0.1"), port), kUseTuple);
        if (ec || !handshake) co_return ec;
        auto [hec] = co_await s->async_handshake(asio::ssl::stream_base::client, kUseTuple);
        co_return hec;
    }

    std::string peer_cn() const {
        X509* cert = SSL_get1_peer_certificate(s->native_handle());
        if (!cert) return "";
        char cn[256] = {};
        X509_NAME_get_text_by_NID(X509_get_subject_name(cert), NID_commonName, cn, sizeof cn);
        X509_free(cert);
        return cn;
    }

    asio::awaitable<boost::system::error_code> send(std::string bytes) {
        auto [ec, n] = co_await asio::async_write(*s, asio::buffer(bytes), kUseTuple);
        co_return ec;
    }

    // One response; status 0 when the connection ended first.
    asio::awaitable<bhttp::response<bhttp::string_body>> read() {
        beast::flat_buffer buf;
        bhttp::response<bhttp::string_body> res;
        auto [ec, n] = co_await bhttp::async_read(*s, buf, res, kUseTuple);
        if (ec) res.result(0);
        co_return res;
    }
};

std::string post(std::string_view body, bool keep_alive = true) {
    return "POST /echo HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: " +
           std::to_string(body.size()) + (keep_alive ? "" : "\r\nConnection: close") + "\r\n\r\n" + std::string(body);
}

struct ServerTest : ::testing::Test {
    asio::io_context io;
    std::map<ServerEvent, int> events;
    ServerOptions opts;
    std::unique_ptr<HttpsServer> server;

    void start() {
        opts.on_event = [this](ServerEvent e) { ++events[e]; };
        server = std::make_unique<HttpsServer>(
            io.get_executor(),
            [](const ServerRequest& r) {
                return ServerReply(200, "text/plain",
                                   std::string(r.method) + " " + std::string(r.target) + " " + std::string(r.body));
            },
            opts);
        server->set_certificate(pki().server_cert_pem, pki().server_key_pem);
        server->listen("127.0.0.1", "0");
        asio::co_spawn(io, server->run(), asio::detached);
    }

    ClientOptions client_opts() const {
        ClientOptions o;
        o.limits.connect = 2s;
        o.limits.read = 2s;
        return o;
    }
    TlsOptions verified() const {
        TlsOptions t;
        t.ca_pem = pki().ca_pem;
        return t;
    }
};

TEST_F(ServerTest, ServesRequestsOverVerifiedTlsOnOneKeptAliveConnection) {
    start();
    HttpsClient c(io.get_executor(), "127.0.0.1", std::to_string(server->port()), verified(), client_opts());
    run_coro(io, [&]() -> asio::awaitable<void> {
        for (int i = 0; i < 3; ++i) {
            Request req;
            req.method = Verb::Post;
            req.target = "/echo";
            req.headers.push_back({"Content-Type", "application/json"});
            req.body = "n" + std::to_string(i);
            auto r = co_await c.send(req);
            EXPECT_TRUE(r.ok()) << to_string(r.kind);
            EXPECT_EQ(r.resp.status, 200u);
            EXPECT_EQ(r.resp.body, "POST /echo n" + std::to_string(i));
        }
    }());
    EXPECT_EQ(events[ServerEvent::ConnectionOpened], 1);
}

TEST_F(ServerTest, RefusesTls11) {
    start();
    RawClient old(TLS1_1_VERSION);
    auto ec = run_coro(io, old.connect(server->port()));
    EXPECT_TRUE(ec) << "a TLS 1.1 handshake succeeded";
    RawClient modern;
    EXPECT_FALSE(run_coro(io, modern.connect(server->port())));
}

TEST_F(ServerTest, ABodyOverTheLimitGets413AndTheConnectionCloses) {
    opts.max_body_bytes = 1024;
    start();
    RawClient c;
    ASSERT_FALSE(run_coro(io, c.connect(server->port())));
    run_coro(io, [&]() -> asio::awaitable<void> {
        co_await c.send(post(std::string(4096, 'x')));
        auto res = co_await c.read();
        EXPECT_EQ(res.result_int(), 413u);
        EXPECT_FALSE(res.keep_alive());
    }());
    EXPECT_EQ(events[ServerEvent::BodyTooLarge], 1);
}

TEST_F(ServerTest, MalformedHttpGets400) {
    start();
    RawClient c;
    ASSERT_FALSE(run_coro(io, c.connect(server->port())));
    run_coro(io, [&]() -> asio::awaitable<void> {
        co_await c.send("HELLO\r\n\r\n");
        auto res = co_await c.read();
        EXPECT_EQ(res.result_int(), 400u);
    }());
    EXPECT_EQ(events[ServerEvent::BadRequest], 1);
}

TEST_F(ServerTest, AClientThatNeverHandshakesIsDroppedAfterTheTimeout) {
    opts.handshake_timeout = 200ms;
    start();
    RawClient c;
    run_coro(io, [&]() -> asio::awaitable<void> {
        EXPECT_FALSE(co_await c.connect(server->port(), /*handshake=*/false));
        co_await sleep_for(600ms);
    }());
    EXPECT_EQ(events[ServerEvent::HandshakeFailed], 1);
    EXPECT_EQ(server->stats().open_connections, 0u);
}

TEST_F(ServerTest, AnIdleKeptAliveConnectionIsClosedAfterTheIdleTimeout) {
    opts.idle_timeout = 200ms;
    start();
    RawClient c;
    ASSERT_FALSE(run_coro(io, c.connect(server->port())));
    run_coro(io, [&]() -> asio::awaitable<void> {
        co_await c.send(post("a"));
        EXPECT_EQ((co_await c.read()).result_int(), 200u);
        co_await sleep_for(600ms);
    }());
    EXPECT_EQ(server->stats().open_connections, 0u);
    EXPECT_EQ(events[ServerEvent::ReadTimeout], 0);  // idle, not a stalled request
}

TEST_F(ServerTest, AStalledRequestBodyTimesOut) {
    opts.read_timeout = 200ms;
    start();
    RawClient c;
    ASSERT_FALSE(run_coro(io, c.connect(server->port())));
    run_coro(io, [&]() -> asio::awaitable<void> {
        auto full = post("0123456789");
        co_await c.send(full.substr(0, full.size() - 5));
        EXPECT_EQ((co_await c.read()).result_int(), 0u);  // closed, no answer
    }());
    EXPECT_EQ(events[ServerEvent::ReadTimeout], 1);
}

TEST_F(ServerTest, ConnectionsOverTheCapAreResetAtOnceNotQueued) {
    opts.max_connections = 2;
    opts.handshake_timeout = 5s;
    start();
    RawClient a, b, c, d;
    run_coro(io, [&]() -> asio::awaitable<void> {
        EXPECT_FALSE(co_await a.connect(server->port()));
        EXPECT_FALSE(co_await b.connect(server->port()));
        // The third is accepted and reset before any TLS: its handshake
        // fails at once instead of waiting in the backlog.
        EXPECT_TRUE(co_await c.connect(server->port()));
        EXPECT_EQ(server->stats().open_connections, 2u);
        // The two served ones still answer.
        co_await a.send(post("a"));
        EXPECT_EQ((co_await a.read()).result_int(), 200u);
        boost::system::error_code ignored;
        b.s->next_layer().close(ignored);
        co_await sleep_for(200ms);
        EXPECT_FALSE(co_await d.connect(server->port()));  // room again
        co_await d.send(post("d"));
        EXPECT_EQ((co_await d.read()).result_int(), 200u);
    }());
    EXPECT_EQ(events[ServerEvent::AtCapacity], 1);
    EXPECT_EQ(events[ServerEvent::ConnectionOpened], 3);
}

// A large body whose header is read while max_large_requests others are
// still being read or answered gets 503 with Retry-After, its body unread; a
// small body is served meanwhile: large bodies cannot crowd out ordinary ones.
TEST_F(ServerTest, LargeBodiesOverTheirCapGet503AndSmallOnesAreStillServed) {
    opts.max_large_requests = 1;
    opts.small_body_bytes = 16;
    start();
    RawClient slow, large, small, chunked;
    for (auto* c : {&slow, &large, &small, &chunked}) ASSERT_FALSE(run_coro(io, c->connect(server->port())));
    run_coro(io, [&]() -> asio::awaitable<void> {
        const auto full = post("a large body of 32 bytes, slowly");
        co_await slow.send(full.substr(0, full.size() - 4));  // holds the one large slot: its body is arriving
        co_await sleep_for(100ms);
        co_await large.send(post("another body over sixteen bytes"));
        auto res = co_await large.read();
        EXPECT_EQ(res.result_int(), 503u);
        EXPECT_EQ(res[bhttp::field::retry_after], "1");
        EXPECT_FALSE(res.keep_alive());
        co_await chunked.send("POST /echo HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
                              "Transfer-Encoding: chunked\r\n\r\n2\r\n{}\r\n0\r\n\r\n");
        EXPECT_EQ((co_await chunked.read()).result_int(), 503u);  // chunked: of unknown size, large
        co_await small.send(post("{}"));
        auto ok = co_await small.read();
        EXPECT_EQ(ok.result_int(), 200u);
        EXPECT_EQ(ok.body(), "POST /echo {}");
        co_await slow.send(full.substr(full.size() - 4));
        EXPECT_EQ((co_await slow.read()).result_int(), 200u);
    }());
    EXPECT_EQ(events[ServerEvent::TooManyRequests], 2);
}

TEST_F(ServerTest, ABodyThatIsNotJsonGets415Unread) {
    start();
    struct Row {
        const char* content_type;  // nullptr: no header
        unsigned status;
    };
    const Row rows[] = {{"application/json", 200},
                        {"application/json; charset=utf-8", 200},
                        {"Application/JSON", 200},
                        {"text/plain", 415},
                        {"application/json-seq", 415},
                        {"application/x-www-form-urlencoded", 415},
                        {nullptr, 415}};
    for (const auto& r : rows) {
        SCOPED_TRACE(r.content_type ? r.content_type : "(none)");
        RawClient c;
        ASSERT_FALSE(run_coro(io, c.connect(server->port())));
        run_coro(io, [&]() -> asio::awaitable<void> {
            // A declared body larger than what is sent: a 415 proves it was not waited for.
            std::string head = "POST /echo HTTP/1.1\r\nHost: x\r\nContent-Length: 100\r\n";
            if (r.content_type) head += std::string("Content-Type: ") + r.content_type + "\r\n";
            // Built before the co_await: GCC 12 destroys a conditional's
            // temporaries twice inside a co_await operand.
            std::string bytes = head + "\r\n";
            bytes += r.status == 200 ? std::string(100, 'x') : std::string("{");
            co_await c.send(std::move(bytes));
            auto res = co_await c.read();
            EXPECT_EQ(res.result_int(), r.status);
        }());
    }
    EXPECT_EQ(events[ServerEvent::UnsupportedMediaType], 4);
    // A GET carries no body and needs no Content-Type.
    RawClient g;
    ASSERT_FALSE(run_coro(io, g.connect(server->port())));
    run_coro(io, [&]() -> asio::awaitable<void> {
        co_await g.send("GET /x HTTP/1.1\r\nHost: x\r\n\r\n");
        EXPECT_EQ((co_await g.read()).result_int(), 200u);
    }());
}

// A declared Content-Length over the cap is refused from the header alone:
// the 413 comes back although not one body byte was sent, so the body is
// never buffered. A chunked body is stopped at the first chunk past the cap.
TEST_F(ServerTest, AnOversizedBodyIsRefusedWithoutBeingBuffered) {
    opts.max_body_bytes = 64u << 10;
    start();
    RawClient c, chunked;
    ASSERT_FALSE(run_coro(io, c.connect(server->port())));
    ASSERT_FALSE(run_coro(io, chunked.connect(server->port())));
    run_coro(io, [&]() -> asio::awaitable<void> {
        co_await c.send("POST /echo HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
                        "Content-Length: 1073741824\r\n\r\n");
        auto res = co_await c.read();
        EXPECT_EQ(res.result_int(), 413u);
        EXPECT_FALSE(res.keep_alive());
        co_await chunked.send("POST /echo HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
                              "Transfer-Encoding: chunked\r\n\r\n");
        const std::string chunk = "8000\r\n" + std::string(0x8000, 'x') + "\r\n";  // 32 KiB
        for (int i = 0; i < 2; ++i) co_await chunked.send(chunk);  // 64 KiB: at the cap, not over
        co_await chunked.send("8000\r\n");  // the third chunk's size alone passes it
        EXPECT_EQ((co_await chunked.read()).result_int(), 413u);
    }());
    EXPECT_EQ(events[ServerEvent::BodyTooLarge], 2);
}

TEST(ServerDefaults, TheBodyCapHoldsTwoLargestObjectsTheApiserverDecodes) {
    const ServerOptions o;
    EXPECT_EQ(o.max_body_bytes, 2 * (3u << 20) + (64u << 10));
    // The bodies held at once, all connections with a small one and the
    // large slots full: well inside the manager's 256 Mi.
    EXPECT_LE(o.max_connections * o.small_body_bytes + o.max_large_requests * o.max_body_bytes, 64u << 20);
    EXPECT_EQ(o.required_content_type, "application/json");
}

// Slow-loris: a client that sends its header one byte at a time, each byte
// well inside any per-read timeout, is cut off when the request as a whole
// exceeds ReadTimeout, on the first request and on a kept-alive one.
TEST_F(ServerTest, AHeaderTrickledByteByByteTimesOut) {
    opts.read_timeout = 300ms;
    opts.idle_timeout = 5s;
    start();
    for (const bool kept_alive : {false, true}) {
        SCOPED_TRACE(kept_alive ? "second request on a kept-alive connection" : "first request");
        RawClient c;
        ASSERT_FALSE(run_coro(io, c.connect(server->port())));
        const int before = events[ServerEvent::ReadTimeout];
        bool cut_off = false;
        std::size_t sent = 0;
        run_coro(io, [&]() -> asio::awaitable<void> {
            if (kept_alive) {
                co_await c.send(post("first"));
                EXPECT_EQ((co_await c.read()).result_int(), 200u);
            }
            const std::string head = "POST /echo HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
                                     "X-Padding: " + std::string(64, 'p') + "\r\nContent-Length: 2\r\n\r\n{}";
            for (; sent < head.size(); ++sent) {  // ~130 bytes at 25 ms: over 3 s if never cut off
                if (co_await c.send(head.substr(sent, 1))) {
                    cut_off = true;
                    break;
                }
                co_await sleep_for(25ms);
                if (events[ServerEvent::ReadTimeout] > before) {
                    cut_off = true;
                    break;
                }
            }
        }());
        EXPECT_TRUE(cut_off);
        EXPECT_LT(sent, 100u);
        EXPECT_EQ(events[ServerEvent::ReadTimeout], before + 1);
    }
}

// --webhook-client-ca: the handshake needs a client certificate the CA signed.
TEST_F(ServerTest, AClientCaRequiresAClientCertificateItSigned) {
    opts.client_ca_pem = pki().ca_pem;
    start();
    ClientOptions co = client_opts();
    auto post_over = [&](TlsOptions t) {
        HttpsClient c(io.get_executor(), "127.0.0.1", std::to_string(server->port()), t, co);
        return run_coro(io, [&]() -> asio::awaitable<ExchangeResult> {
            Request req;
            req.method = Verb::Post;
            req.target = "/echo";
            req.headers.push_back({"Content-Type", "application/json"});
            req.body = "{}";
            co_return co_await c.send(req);
        }());
    };
    auto with_cert = verified();
    with_cert.client_cert_pem = pki().client_cert_pem;
    with_cert.client_key_pem = pki().client_key_pem;
    const auto ok = post_over(with_cert);
    ASSERT_TRUE(ok.ok()) << to_string(ok.kind);
    EXPECT_EQ(ok.resp.status, 200u);
    EXPECT_FALSE(post_over(verified()).ok());  // no client certificate
    auto stranger = verified();  // a client certificate another CA signed
    stranger.client_cert_pem = pki().stranger_cert_pem;
    stranger.client_key_pem = pki().stranger_key_pem;
    EXPECT_FALSE(post_over(stranger).ok());
    EXPECT_GE(events[ServerEvent::HandshakeFailed], 2);  // the client may try twice
}

TEST_F(ServerTest, AnUnusableClientCaIsRefused) {
    opts.client_ca_pem = "not a pem";
    server = std::make_unique<HttpsServer>(
        io.get_executor(), [](const ServerRequest&) { return ServerReply{}; }, opts);
    EXPECT_THROW(server->set_certificate(pki().server_cert_pem, pki().server_key_pem), std::runtime_error);
    EXPECT_FALSE(server->has_certificate());
}

TEST_F(ServerTest, ANewCertificateServesNewConnectionsWhileOpenOnesKeepTheirs) {
    start();
    RawClient before;
    ASSERT_FALSE(run_coro(io, before.connect(server->port())));
    EXPECT_EQ(before.peer_cn(), "server");
    server->set_certificate(pki().wrong_ip_cert_pem, pki().wrong_ip_key_pem);
    RawClient after;
    ASSERT_FALSE(run_coro(io, after.connect(server->port())));
    EXPECT_EQ(after.peer_cn(), "wrongip");
    run_coro(io, [&]() -> asio::awaitable<void> {
        co_await before.send(post("still here"));
        auto res = co_await before.read();
        EXPECT_EQ(res.result_int(), 200u);
        EXPECT_EQ(res.body(), "POST /echo still here");
    }());
    EXPECT_EQ(server->stats().certificate_generation, 2u);
}

TEST_F(ServerTest, UnusableCertificateMaterialIsRefusedAndTheOldOneStays) {
    start();
    EXPECT_THROW(server->set_certificate("not a pem", pki().server_key_pem), std::runtime_error);
    EXPECT_THROW(server->set_certificate(pki().server_cert_pem, pki().wrong_ip_key_pem), std::runtime_error);
    RawClient c;
    ASSERT_FALSE(run_coro(io, c.connect(server->port())));
    EXPECT_EQ(c.peer_cn(), "server");
}

TEST_F(ServerTest, GracefulShutdownFinishesARequestInFlightAndClosesIdleOnes) {
    start();
    const auto port = server->port();
    RawClient idle, busy;
    ASSERT_FALSE(run_coro(io, idle.connect(port)));
    ASSERT_FALSE(run_coro(io, busy.connect(port)));
    bool shut_down = false;
    run_coro(io, [&]() -> asio::awaitable<void> {
        const auto full = post("the whole review");
        co_await busy.send(full.substr(0, full.size() - 6));  // the body is still arriving
        co_await sleep_for(100ms);
        asio::co_spawn(co_await asio::this_coro::executor,
                       [&]() -> asio::awaitable<void> {
                           co_await server->shutdown(3s);
                           shut_down = true;
                       },
                       asio::detached);
        co_await sleep_for(100ms);
        EXPECT_EQ((co_await idle.read()).result_int(), 0u);  // closed without an answer
        co_await busy.send(full.substr(full.size() - 6));
        auto res = co_await busy.read();
        EXPECT_EQ(res.result_int(), 200u);
        EXPECT_EQ(res.body(), "POST /echo the whole review");
        EXPECT_FALSE(res.keep_alive());
        co_await sleep_for(100ms);
    }());
    EXPECT_TRUE(shut_down);
    EXPECT_EQ(server->stats().open_connections, 0u);
    RawClient late;
    EXPECT_TRUE(run_coro(io, late.connect(port)));  // nobody listens any more
}

}  // namespace
}  // namespace attune::http
