#include <attune/http/https_client.hpp>
#include <attune/http/tls_context.hpp>

#include <boost/asio/as_tuple.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/ssl.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>
#include <boost/beast/ssl.hpp>

#include <algorithm>
#include <deque>
#include <optional>
#include <unordered_set>
#include <variant>

namespace attune::http {
namespace asio = boost::asio;
namespace beast = boost::beast;
namespace bhttp = boost::beast::http;
using Tcp = asio::ip::tcp;
using boost::system::error_code;
using TlsStream = beast::ssl_stream<beast::tcp_stream>;
using Steady = std::chrono::steady_clock;

namespace {

constexpr auto kAsTuple = asio::as_tuple(asio::use_awaitable);
constexpr std::size_t kHeaderLimit = 64 * 1024;
constexpr std::size_t kErrorBodyLimit = 1 << 20;

// One pooled connection: TLS, or plain TCP when the client has no TLS
// context. Every read and write goes through with_stream, so the pool,
// timeouts and parsing are the same code for both.
struct Connection {
    Connection(const asio::any_io_executor& ex, std::shared_ptr<asio::ssl::context> c, std::uint64_t id)
        : ctx(std::move(c)), identity(id) {
        if (ctx) stream.emplace<TlsStream>(ex, *ctx);
        else
            stream.emplace<beast::tcp_stream>(ex);
    }
    // The context it was made with (its client identity); kept alive with it.
    std::shared_ptr<asio::ssl::context> ctx;
    std::uint64_t identity = 0;
    std::variant<std::monostate, beast::tcp_stream, TlsStream> stream;
    beast::flat_buffer buffer;
    Steady::time_point idle_since{};
    bool reused = false;
    std::string refused;  // why ClientOptions::endpoint_filter refused addresses at connect

    TlsStream* tls() noexcept { return std::get_if<TlsStream>(&stream); }
    beast::tcp_stream& tcp() noexcept {
        if (auto* t = tls()) return beast::get_lowest_layer(*t);
        return std::get<beast::tcp_stream>(stream);
    }
    // f(stream) for whichever stream this is; both branches yield the same awaitable type.
    template <class F>
    auto with_stream(F&& f) {
        if (auto* t = tls()) return f(*t);
        return f(std::get<beast::tcp_stream>(stream));
    }

    void close() noexcept {
        error_code ec;
        tcp().socket().shutdown(Tcp::socket::shutdown_both, ec);
        tcp().close();
    }
};

// The earlier of a phase's own limit and what is left of the request's budget.
std::chrono::milliseconds phase_limit(std::chrono::milliseconds phase, Steady::time_point deadline) {
    if (deadline == Steady::time_point::max()) return phase;
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Steady::now());
    return std::max(std::chrono::milliseconds(1), std::min(phase, left));
}

bhttp::verb to_beast(Verb v) {
    switch (v) {
        case Verb::Get: return bhttp::verb::get;
        case Verb::Head: return bhttp::verb::head;
        case Verb::Post: return bhttp::verb::post;
        case Verb::Put: return bhttp::verb::put;
        case Verb::Patch: return bhttp::verb::patch;
        case Verb::Del: return bhttp::verb::delete_;
    }
    return bhttp::verb::get;
}

Failure classify(const error_code& ec) {
    if (ec == beast::error::timeout) return Failure::Timeout;
    if (ec == asio::error::operation_aborted) return Failure::Cancelled;
    if (ec == bhttp::error::body_limit || ec == bhttp::error::header_limit || ec == bhttp::error::buffer_overflow)
        return Failure::BodyTooLarge;
    if (ec == bhttp::error::end_of_stream || ec == bhttp::error::partial_message || ec == asio::error::eof ||
        ec == asio::error::connection_reset || ec == asio::error::broken_pipe ||
        ec == asio::ssl::error::stream_truncated || ec == asio::error::connection_aborted)
        return Failure::ConnectionReset;
    if (ec.category() == bhttp::make_error_code(bhttp::error::bad_version).category()) return Failure::Protocol;
    return Failure::ConnectionReset;
}

// Nothing came back on a pooled connection: the server most likely closed it
// while idle, so a fresh connection may be tried for idempotent requests.
bool stale_pooled(const error_code& ec) {
    return ec == bhttp::error::end_of_stream || ec == asio::error::eof || ec == asio::error::connection_reset ||
           ec == asio::error::broken_pipe || ec == asio::ssl::error::stream_truncated;
}

}  // namespace

struct HttpsClient::impl : std::enable_shared_from_this<impl> {
    impl(asio::any_io_executor e, std::string h, std::string p, TlsOptions t, ClientOptions o)
        : ex(std::move(e)), host(std::move(h)), port(std::move(p)), tls(std::move(t)), opts(o) {
        if (opts.tls) ctx = std::make_shared<asio::ssl::context>(make_client_tls_context(tls));
        verify_name = tls.server_name.empty() ? host : tls.server_name;
        const bool default_port = port == (opts.tls ? "443" : "80");
        host_header = default_port ? host : host + ":" + port;
        if (host.find(':') != std::string::npos) host_header = "[" + host + "]:" + port;
    }

    asio::any_io_executor ex;
    std::string host, port;
    TlsOptions tls;
    ClientOptions opts;
    std::shared_ptr<asio::ssl::context> ctx;  // none: plain HTTP
    std::uint64_t identity = 0;                // bumped by set_client_identity
    std::string verify_name, host_header;

    std::unique_ptr<Connection> make_connection() { return std::make_unique<Connection>(ex, ctx, identity); }

    void set_client_identity(std::string cert_pem, std::string key_pem) {
        TlsOptions t = tls;
        t.client_cert_pem = std::move(cert_pem);
        t.client_key_pem = std::move(key_pem);
        auto fresh = std::make_shared<asio::ssl::context>(make_client_tls_context(t));  // throws before anything changes
        tls = std::move(t);
        ctx = std::move(fresh);
        ++identity;
        // Pooled connections authenticated as the old identity; those in use
        // finish their exchange and are not pooled again (release()).
        for (auto& c : idle) {
            c->close();
            if (open > 0) --open;
        }
        idle.clear();
    }

    std::vector<std::unique_ptr<Connection>> idle;
    std::unordered_set<Connection*> active;  // checked out or streaming: closed by abort_all()
    std::size_t open = 0;
    std::deque<std::shared_ptr<asio::steady_timer>> waiters;
    bool closing = false;

    struct Acquired {
        std::unique_ptr<Connection> conn;
        Failure kind = Failure::None;
        error_code ec;
        std::string refused;  // endpoint_filter's reasons
    };

    // Returns a connection to the pool or forgets it, then wakes one waiter.
    void release(std::unique_ptr<Connection> c, bool reusable) noexcept {
        if (c) active.erase(c.get());
        if (c && reusable && !closing && c->identity == identity) {
            c->idle_since = Steady::now();
            c->reused = true;
            idle.push_back(std::move(c));
        } else {
            if (c) c->close();
            if (open > 0) --open;
        }
        if (!waiters.empty()) {
            waiters.front()->cancel();
            waiters.pop_front();
        }
    }

    // Owns a checked-out connection; a coroutine torn down mid-request
    // (cancellation, shutdown) still gives its pool slot back.
    struct Lease {
        std::shared_ptr<impl> owner;
        std::unique_ptr<Connection> conn;
        Lease(std::shared_ptr<impl> o, std::unique_ptr<Connection> c) : owner(std::move(o)), conn(std::move(c)) {
            owner->active.insert(conn.get());
        }
        Lease(const Lease&) = delete;
        Lease& operator=(const Lease&) = delete;
        ~Lease() {
            if (conn) owner->release(std::move(conn), false);
        }
        void give_back(bool reusable) { owner->release(std::move(conn), reusable); }
    };

    asio::awaitable<std::pair<Failure, error_code>> connect(Connection& c, Steady::time_point deadline) {
        // The resolver has no timeout of its own: a watchdog cancels it at
        // the connect limit (or the request's deadline), so a DNS server
        // that never answers cannot hold the request.
        auto resolver = std::make_shared<Tcp::resolver>(ex);
        auto watchdog = std::make_shared<asio::steady_timer>(ex);
        watchdog->expires_after(phase_limit(opts.limits.connect, deadline));
        auto fired = std::make_shared<bool>(false);
        watchdog->async_wait([resolver, fired](error_code ec) {
            if (!ec) {
                *fired = true;
                resolver->cancel();
            }
        });
        auto [rec, results] = co_await resolver->async_resolve(host, port, kAsTuple);
        watchdog->cancel();
        if (rec) co_return std::pair{*fired ? Failure::Timeout : Failure::Resolve, rec};
        std::vector<Tcp::endpoint> allowed;
        for (const auto& r : results) {
            const auto why = opts.endpoint_filter ? opts.endpoint_filter(r.endpoint().address().to_string()) : "";
            if (why.empty()) allowed.push_back(r.endpoint());
            else if (c.refused.find(why) == std::string::npos) c.refused += (c.refused.empty() ? "" : "; ") + why;
        }
        if (allowed.empty()) co_return std::pair{Failure::Connect, make_error_code(asio::error::access_denied)};
        auto& low = c.tcp();
        low.expires_after(phase_limit(opts.limits.connect, deadline));
        auto [cec, ep] = co_await low.async_connect(allowed, kAsTuple);
        if (cec) co_return std::pair{cec == beast::error::timeout ? Failure::Timeout : Failure::Connect, cec};
        error_code ignore;
        low.socket().set_option(Tcp::no_delay(true), ignore);
        auto* t = c.tls();
        if (!t) co_return std::pair{Failure::None, error_code{}};
        if (!tls.insecure_skip_verify && !set_peer_name(t->native_handle(), verify_name)) {
            co_return std::pair{Failure::TlsHandshake, make_error_code(asio::error::invalid_argument)};
        }
        low.expires_after(phase_limit(opts.limits.handshake, deadline));
        auto [hec] = co_await t->async_handshake(asio::ssl::stream_base::client, kAsTuple);
        if (hec) co_return std::pair{hec == beast::error::timeout ? Failure::Timeout : Failure::TlsHandshake, hec};
        co_return std::pair{Failure::None, error_code{}};
    }

    asio::awaitable<Acquired> acquire(bool fresh_only, Steady::time_point request_deadline) {
        const auto deadline = std::min(Steady::now() + opts.limits.pool_wait, request_deadline);
        for (;;) {
            if (closing)
                co_return Acquired{nullptr, Failure::Cancelled, make_error_code(asio::error::operation_aborted)};
            while (!fresh_only && !idle.empty()) {
                auto c = std::move(idle.back());
                idle.pop_back();
                if (Steady::now() - c->idle_since > opts.idle_keepalive) {
                    c->close();
                    --open;
                    continue;
                }
                co_return Acquired{std::move(c)};
            }
            if (open < std::max<std::size_t>(opts.max_connections, 1) || (fresh_only && !idle.empty())) {
                if (fresh_only && !idle.empty()) {
                    // Make room by dropping an idle connection rather than waiting.
                    idle.front()->close();
                    idle.erase(idle.begin());
                    --open;
                }
                ++open;
                auto c = make_connection();
                auto [kind, ec] = co_await connect(*c, request_deadline);
                if (kind != Failure::None) {
                    release(nullptr, false);
                    co_return Acquired{nullptr, kind, ec, std::move(c->refused)};
                }
                co_return Acquired{std::move(c)};
            }
            auto timer = std::make_shared<asio::steady_timer>(ex, deadline);
            waiters.push_back(timer);
            auto [ec] = co_await timer->async_wait(kAsTuple);
            std::erase(waiters, timer);
            if (!ec) {
                // The request's own budget ran out first: that is its timeout, not a full pool.
                const bool budget = deadline == request_deadline;
                co_return Acquired{nullptr, budget ? Failure::Timeout : Failure::PoolExhausted,
                                   make_error_code(beast::error::timeout)};
            }
        }
    }

    bhttp::request<bhttp::string_body> build(const Request& req) const {
        bhttp::request<bhttp::string_body> r{to_beast(req.method), req.target, 11};
        r.set(bhttp::field::host, host_header);
        r.set(bhttp::field::user_agent, "attune/0.1");
        for (const auto& h : req.headers) r.insert(h.name, h.value);
        r.body() = req.body;
        r.keep_alive(true);
        r.prepare_payload();
        return r;
    }

    asio::awaitable<ExchangeResult> send(Request req, BodySink sink) {
        auto self = shared_from_this();
        ExchangeResult out;
        auto beast_req = build(req);
        const auto deadline = req.timeout.count() > 0 ? Steady::now() + req.timeout : Steady::time_point::max();
        for (int attempt = 0;; ++attempt) {
            auto got = co_await acquire(attempt > 0, deadline);
            if (!got.conn) {
                out.kind = got.kind;
                out.ec = got.ec;
                out.detail = std::move(got.refused);
                out.request_sent = false;
                co_return out;
            }
            Lease l(self, std::move(got.conn));
            const bool retry_stale = l.conn->reused && attempt == 0 && is_idempotent(req.method);
            auto& low = l.conn->tcp();

            low.expires_after(phase_limit(opts.limits.write, deadline));
            auto [wec, written] =
                co_await l.conn->with_stream([&](auto& st) { return bhttp::async_write(st, beast_req, kAsTuple); });
            if (wec) {
                if (retry_stale && stale_pooled(wec)) continue;
                out.ec = wec;
                out.kind = classify(wec);
                out.request_sent = true;
                co_return out;
            }

            if (sink) {
                const auto rs = co_await read_streamed(*l.conn, req, sink, out, deadline);
                if (rs.stale && retry_stale) continue;
                if (rs.ec) co_return out;
                low.expires_never();
                l.give_back(!out.sink_aborted && rs.keep_alive);
                co_return out;
            }
            bhttp::response_parser<bhttp::string_body> parser;
            parser.header_limit(kHeaderLimit);
            parser.body_limit(opts.max_body_bytes);
            if (req.method == Verb::Head) parser.skip(true);
            // One budget for the whole response: a server dripping bytes
            // cannot keep the request alive forever.
            low.expires_after(phase_limit(opts.limits.read, deadline));
            auto [rec, nread] = co_await l.conn->with_stream(
                [&](auto& st) { return bhttp::async_read(st, l.conn->buffer, parser, kAsTuple); });
            if (rec) {
                if (retry_stale && nread == 0 && !parser.got_some() && stale_pooled(rec)) continue;
                out.ec = rec;
                out.kind = classify(rec);
                out.request_sent = true;
                co_return out;
            }
            auto msg = parser.release();
            out.resp.status = msg.result_int();
            for (const auto& f : msg) out.resp.headers.push_back({std::string(f.name_string()), std::string(f.value())});
            out.resp.body = std::move(msg.body());
            out.request_sent = true;
            low.expires_never();
            l.give_back(msg.keep_alive());
            co_return out;
        }
    }

    struct StreamedRead {
        error_code ec;       // also put in `out`
        bool stale = false;  // a pooled connection that answered nothing
        bool keep_alive = false;
    };

    // Reads a response whose 2xx body goes to `sink` in pieces, under the
    // same whole-response budget as send().
    asio::awaitable<StreamedRead> read_streamed(Connection& c, const Request& req, const BodySink& sink,
                                                ExchangeResult& out, Steady::time_point deadline) {
        auto& low = c.tcp();
        bhttp::response_parser<bhttp::buffer_body> parser;
        parser.header_limit(kHeaderLimit);
        parser.body_limit(boost::none);  // 2xx bodies are not held; error bodies are bounded below
        if (req.method == Verb::Head) parser.skip(true);
        out.request_sent = true;
        low.expires_after(phase_limit(opts.limits.read, deadline));
        auto [hec, hn] =
            co_await c.with_stream([&](auto& st) { return bhttp::async_read_header(st, c.buffer, parser, kAsTuple); });
        if (hec) {
            out.ec = hec;
            out.kind = classify(hec);
            co_return StreamedRead{hec, hn == 0 && !parser.got_some() && stale_pooled(hec), false};
        }
        out.resp.status = parser.get().result_int();
        for (const auto& f : parser.get())
            out.resp.headers.push_back({std::string(f.name_string()), std::string(f.value())});
        const bool to_sink = out.resp.status >= 200 && out.resp.status < 300;
        std::vector<char> buf(64 * 1024);
        while (!parser.is_done()) {
            parser.get().body().data = buf.data();
            parser.get().body().size = buf.size();
            auto [ec, n] = co_await c.with_stream(
                [&](auto& st) { return bhttp::async_read_some(st, c.buffer, parser, kAsTuple); });
            if (ec == bhttp::error::need_buffer) ec = {};
            const std::size_t got = buf.size() - parser.get().body().size;
            if (!ec && got > 0) {
                const std::string_view piece(buf.data(), got);
                if (to_sink) {
                    out.body_started = true;
                    if (!sink(piece)) {
                        out.sink_aborted = true;
                        c.close();
                        co_return StreamedRead{};
                    }
                } else if (out.resp.body.size() + got > opts.max_body_bytes) {
                    ec = make_error_code(bhttp::error::body_limit);
                } else {
                    out.resp.body.append(piece);
                }
            }
            if (ec) {
                out.ec = ec;
                out.kind = classify(ec);
                co_return StreamedRead{ec, false, false};
            }
        }
        co_return StreamedRead{error_code{}, false, parser.get().keep_alive()};
    }

    class StreamImpl final : public BodyStream {
    public:
        StreamImpl(std::shared_ptr<impl> o, std::unique_ptr<Connection> c,
                   std::unique_ptr<bhttp::response_parser<bhttp::buffer_body>> p, std::chrono::milliseconds idle)
            : owner_(std::move(o)), conn_(std::move(c)), parser_(std::move(p)), idle_(idle) {
            owner_->active.insert(conn_.get());
        }
        ~StreamImpl() override {
            owner_->active.erase(conn_.get());
            if (conn_) conn_->close();
        }

        asio::awaitable<std::pair<error_code, std::size_t>> read_some(std::span<char> out) override {
            if (!conn_ || out.empty()) co_return std::pair{error_code{}, std::size_t{0}};
            for (;;) {
                if (parser_->is_done()) co_return std::pair{error_code{}, std::size_t{0}};
                parser_->get().body().data = out.data();
                parser_->get().body().size = out.size();
                conn_->tcp().expires_after(idle_);
                auto [ec, n] = co_await conn_->with_stream(
                    [&](auto& st) { return bhttp::async_read_some(st, conn_->buffer, *parser_, kAsTuple); });
                const std::size_t got = out.size() - parser_->get().body().size;
                if (ec == bhttp::error::need_buffer) ec = {};
                if (ec) co_return std::pair{ec, got};
                if (got > 0) co_return std::pair{error_code{}, got};
            }
        }

        void close() noexcept override {
            if (conn_) conn_->close();
        }

    private:
        std::shared_ptr<impl> owner_;
        std::unique_ptr<Connection> conn_;
        std::unique_ptr<bhttp::response_parser<bhttp::buffer_body>> parser_;
        std::chrono::milliseconds idle_;
    };

    asio::awaitable<StreamResult> open_stream(Request req, std::chrono::milliseconds idle_timeout) {
        if (idle_timeout.count() <= 0) idle_timeout = opts.limits.read;
        auto self = shared_from_this();
        StreamResult out;
        // Streams hold their connection for minutes, so they get a dedicated
        // one outside the pool's bound: N watches must not starve requests.
        if (closing) {
            out.kind = Failure::Cancelled;
            co_return out;
        }
        auto conn = make_connection();
        if (auto [kind, ec] = co_await connect(*conn, Steady::time_point::max()); kind != Failure::None) {
            out.kind = kind;
            out.ec = ec;
            co_return out;
        }
        auto& low = conn->tcp();
        auto beast_req = build(req);
        low.expires_after(opts.limits.write);
        auto [wec, written] =
            co_await conn->with_stream([&](auto& st) { return bhttp::async_write(st, beast_req, kAsTuple); });
        out.request_sent = true;
        if (wec) {
            out.ec = wec;
            out.kind = classify(wec);
            co_return out;
        }
        auto parser = std::make_unique<bhttp::response_parser<bhttp::buffer_body>>();
        parser->header_limit(kHeaderLimit);
        parser->body_limit(boost::none);  // watch streams are unbounded by design
        low.expires_after(opts.limits.read);
        auto [hec, hn] = co_await conn->with_stream(
            [&](auto& st) { return bhttp::async_read_header(st, conn->buffer, *parser, kAsTuple); });
        if (hec) {
            out.ec = hec;
            out.kind = classify(hec);
            co_return out;
        }
        out.status = parser->get().result_int();
        for (const auto& f : parser->get()) out.headers.push_back({std::string(f.name_string()), std::string(f.value())});
        auto s = std::make_unique<StreamImpl>(self, std::move(conn), std::move(parser), idle_timeout);
        if (out.status == 200) {
            out.stream = std::move(s);
            co_return out;
        }
        // An error status carries a Status object: read it, bounded.
        std::array<char, 8192> buf{};
        while (out.error_body.size() < kErrorBodyLimit) {
            auto [ec, n] = co_await s->read_some(buf);
            out.error_body.append(buf.data(), n);
            if (ec || n == 0) break;
        }
        co_return out;
    }

    void close_idle() noexcept {
        closing = true;
        for (auto& c : idle) {
            c->close();
            if (open > 0) --open;
        }
        idle.clear();
        for (auto& w : waiters) w->cancel();
        waiters.clear();
    }

    void abort_all() noexcept {
        close_idle();
        // Pending reads/writes on these complete with operation_aborted.
        for (auto* c : active) c->close();
    }
};

HttpsClient::HttpsClient(asio::any_io_executor ex, std::string host, std::string port, TlsOptions tls,
                         ClientOptions opts)
    : impl_(std::make_shared<impl>(std::move(ex), std::move(host), std::move(port), std::move(tls), opts)) {}

HttpsClient::~HttpsClient() {
    if (impl_) impl_->close_idle();
}

asio::awaitable<ExchangeResult> HttpsClient::send(Request req) {
    auto keep = impl_;
    co_return co_await keep->send(std::move(req), BodySink());
}

asio::awaitable<ExchangeResult> HttpsClient::send(Request req, BodySink sink) {
    auto keep = impl_;
    co_return co_await keep->send(std::move(req), std::move(sink));
}

asio::awaitable<StreamResult> HttpsClient::open_stream(Request req, std::chrono::milliseconds idle_timeout) {
    auto keep = impl_;
    co_return co_await keep->open_stream(std::move(req), idle_timeout);
}

void HttpsClient::set_client_identity(std::string cert_pem, std::string key_pem) {
    if (!impl_->opts.tls) throw std::runtime_error("tls: a client identity needs a TLS connection");
    impl_->set_client_identity(std::move(cert_pem), std::move(key_pem));
}

void HttpsClient::close_idle() noexcept { impl_->close_idle(); }

void HttpsClient::abort_all() noexcept { impl_->abort_all(); }

PoolStats HttpsClient::stats() const noexcept {
    return PoolStats{impl_->open, impl_->idle.size(), impl_->waiters.size()};
}

const std::string& HttpsClient::host() const noexcept { return impl_->host; }

}  // namespace attune::http
