#pragma once
// HTTP(S) client for one host: TLS 1.2+, certificate + hostname/IP SAN
// verification, a bounded keep-alive pool and per-phase timeouts. Plain
// HTTP is a choice of stream inside the same pool (a Prometheus inside the
// cluster often speaks only that); the apiserver client always uses TLS.
// Beast lives only in the .cpp (pimpl), so includers pay for Asio only.
#include <attune/http/message.hpp>
#include <attune/http/tls_options.hpp>

#include <boost/asio/any_io_executor.hpp>
#include <boost/asio/awaitable.hpp>
#include <boost/system/error_code.hpp>

#include <cstdint>
#include <functional>
#include <memory>
#include <span>
#include <string>
#include <string_view>

namespace attune::http {

struct ClientOptions {
    std::size_t max_connections = 8;          // per host, in use + idle
    std::size_t max_body_bytes = 64u << 20;   // non-streaming responses
    std::chrono::seconds idle_keepalive{90};  // drop idle pooled connections older than this
    Timeouts limits;
    bool tls = true;  // false: plain HTTP; the TlsOptions are then unused
    // Optional: judges every address the host resolved to ("" allowed, else
    // why not) before connecting; only allowed ones are tried, so a name
    // cannot resolve to one address for a check and another for the
    // connect. None allowed: failure::connect with access_denied and the
    // reasons in ExchangeResult::detail.
    std::function<std::string(std::string_view ip)> endpoint_filter;
};

struct ExchangeResult {
    boost::system::error_code ec;
    Failure kind = Failure::None;
    // False only when we know the server never saw the request (connect/TLS/pool).
    bool request_sent = false;
    Response resp;  // valid when kind == none
    // With a body sink: the 2xx body went to the sink (resp.body is empty),
    // and whether any of it did. A failure after that must not be retried
    // blindly: the caller has consumed part of the body.
    bool body_started = false;
    bool sink_aborted = false;  // the sink returned false; the connection was dropped
    std::string detail;         // the endpoint_filter's reasons when it refused every address

    bool ok() const noexcept { return kind == Failure::None; }
};

// Receives a 2xx response body piece by piece as it is read; returning
// false aborts the exchange (the connection is closed, not pooled).
using BodySink = std::function<bool(std::string_view)>;

// A streaming response body (watch). The connection is owned by the stream
// and never returned to the pool.
class BodyStream {
public:
    virtual ~BodyStream() = default;
    // Reads whatever is available; 0 bytes with no error means the body ended.
    // Each call is bounded by the read (idle) timeout.
    virtual boost::asio::awaitable<std::pair<boost::system::error_code, std::size_t>>
    read_some(std::span<char> out) = 0;
    // Closes the socket, aborting a pending read_some.
    virtual void close() noexcept = 0;
};

struct StreamResult {
    boost::system::error_code ec;
    Failure kind = Failure::None;
    bool request_sent = false;
    unsigned status = 0;
    std::vector<Header> headers;
    std::string error_body;               // bounded body when status != 200
    std::unique_ptr<BodyStream> stream;   // set when status == 200
};

struct PoolStats {
    std::size_t open = 0;     // connections in use or idle
    std::size_t idle = 0;
    std::size_t waiting = 0;  // requests waiting for a connection
};

class HttpsClient {
public:
    // Throws std::runtime_error (with the OpenSSL reason) when TLS material is invalid.
    HttpsClient(boost::asio::any_io_executor ex, std::string host, std::string port, TlsOptions tls,
                ClientOptions opts);
    ~HttpsClient();
    HttpsClient(const HttpsClient&) = delete;
    HttpsClient& operator=(const HttpsClient&) = delete;

    // One request/response on a pooled connection. Never throws for I/O
    // failures: they come back classified in the result.
    boost::asio::awaitable<ExchangeResult> send(Request req);
    // The same, but a 2xx body is streamed into `sink` instead of being held
    // (large lists). Error bodies are still collected, bounded, in resp.body.
    boost::asio::awaitable<ExchangeResult> send(Request req, BodySink sink);

    // Sends a request whose response body is streamed (watch). The body is
    // not size-limited; `idle_timeout` bounds each read (0: limits.read).
    boost::asio::awaitable<StreamResult> open_stream(
        Request req, std::chrono::milliseconds idle_timeout = std::chrono::milliseconds(0));

    // Connections opened from now on present this client certificate chain
    // and key (an exec credential plugin rotated them); idle ones are dropped
    // and those in use are not pooled again. Throws std::runtime_error (the
    // OpenSSL reason) and keeps the old identity when the pair is unusable.
    void set_client_identity(std::string cert_pem, std::string key_pem);

    // Drops idle connections and fails waiters; no new requests start.
    void close_idle() noexcept;
    // close_idle() plus closing every connection in use, streams included:
    // pending operations end at once with failure::cancelled (shutdown).
    void abort_all() noexcept;

    PoolStats stats() const noexcept;
    const std::string& host() const noexcept;

private:
    struct impl;
    std::shared_ptr<impl> impl_;
};

}  // namespace attune::http
