#pragma once
// HTTPS/1.1 server as coroutines on the caller's io_context (the admission
// webhook): TLS 1.2+, optional client certificates, keep-alive, a bounded
// number of connections, of concurrent large requests and of body bytes, deadlines
// on the handshake, every request and every write, a
// certificate that can be replaced while serving (new connections get the
// new one; open ones keep theirs), and a graceful shutdown that lets
// requests already received finish. Beast stays in the .cpp.
#include <boost/asio/any_io_executor.hpp>
#include <boost/asio/awaitable.hpp>

#include <chrono>
#include <cstddef>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace attune::http {

struct ServerRequest {
    std::string_view method;  // "POST", "GET", ...
    std::string_view target;  // path and query
    std::string_view content_type;
    std::string_view authorization;  // the Authorization header, "" when absent
    std::string_view body;
};

struct ServerReply {
    ServerReply() = default;
    ServerReply(unsigned s, std::string ct, std::string b)
        : status(s), content_type(std::move(ct)), body(std::move(b)) {}
    unsigned status = 200;
    std::string content_type = "application/json";
    std::string body;
    std::vector<std::pair<std::string, std::string>> headers;  // more response headers (WWW-Authenticate)
};

// Why the server answered or dropped a connection without the handler.
enum class ServerEvent {
    ConnectionOpened,
    ConnectionClosed,
    HandshakeFailed,       // TLS handshake error or timeout (a missing or untrusted client certificate too)
    BodyTooLarge,          // answered 413
    BadRequest,            // malformed HTTP: answered 400 where possible
    ReadTimeout,           // a request did not arrive in time: connection closed
    AtCapacity,            // max_connections reached: the new connection was reset at once
    TooManyRequests,       // max_large_requests reached: a large body answered 503 before it was read
    UnsupportedMediaType,  // a body that is not required_content_type: answered 415 before reading it
};

// The request body cap. An AdmissionReview carries the object and, for an
// UPDATE, the oldObject. The apiserver decodes no write body over 3 MiB
// (kubernetes staging/src/k8s.io/apiserver/pkg/server/config.go, NewConfig:
// MaxRequestBodyBytes = 3 * 1024 * 1024, twice etcd's default 1.5 MiB
// request limit, etcd embed/config.go DefaultMaxRequestBytes, because JSON
// is larger than the protobuf stored), and what etcd holds re-encodes to no
// more, so neither object exceeds 3 MiB of JSON; 64 KiB more holds the
// review's own fields (uid, kind, userInfo, options).
inline constexpr std::size_t kMaxObjectJsonBytes = 3u << 20;
inline constexpr std::size_t kAdmissionReviewBodyBytes = 2 * kMaxObjectJsonBytes + (64u << 10);

// The defaults bound the server's memory by construction: every connection
// (64) may hold a small body (64 KiB, more than an ordinary pod's review),
// at most max_large_requests hold a large one (6 MiB), so bodies take
// 4 + 48 MiB at most; each connection also holds a TLS session and a read
// buffer of a header's size; nothing waits in a queue of ours: over a cap
// the answer is at once. Large bodies have slots of their own, so clients
// that hold them (slowly sent, or huge) never crowd out ordinary reviews.
struct ServerOptions {
    ServerOptions() = default;
    std::size_t max_connections = 64;          // open TLS connections; more are reset on accept
    // A body is small when its declared Content-Length is at most
    // small_body_bytes; a larger or chunked one is large. Requests with a
    // large body being read or answered at once; more get 503.
    std::size_t small_body_bytes = 64u << 10;
    std::size_t max_large_requests = 8;
    std::size_t max_body_bytes = kAdmissionReviewBodyBytes;
    std::size_t max_header_bytes = 16u << 10;
    // POST, PUT and PATCH bodies must be of this media type (parameters such
    // as charset aside), or get 415 unread; empty: any.
    std::string required_content_type = "application/json";
    // PEM CA bundle: when set, every client must present a certificate it
    // signed (the TLS handshake fails otherwise).
    std::string client_ca_pem;
    std::chrono::milliseconds handshake_timeout{5'000};
    std::chrono::milliseconds read_timeout{10'000};   // one request (header and body), once its first byte arrived
    std::chrono::milliseconds write_timeout{10'000};  // one response
    std::chrono::milliseconds idle_timeout{90'000};   // between requests on a kept-alive connection
    std::function<void(ServerEvent)> on_event;        // metrics; may be empty
};

struct ServerStats {
    std::size_t open_connections = 0;
    std::size_t busy_connections = 0;  // a request received and not yet answered
    std::uint64_t certificate_generation = 0;
};

class HttpsServer {
public:
    // The handler runs on the server's coroutine and must not block: the
    // admission webhook answers from caches only.
    using Handler = std::function<ServerReply(const ServerRequest&)>;
    // A handler that awaits (the secure /metrics asks the apiserver who the
    // caller is). The request's views stay valid until it returns.
    using AsyncHandler = std::function<boost::asio::awaitable<ServerReply>(ServerRequest)>;

    HttpsServer(boost::asio::any_io_executor ex, Handler h, ServerOptions opts);
    HttpsServer(boost::asio::any_io_executor ex, AsyncHandler h, ServerOptions opts);
    ~HttpsServer();
    HttpsServer(const HttpsServer&) = delete;
    HttpsServer& operator=(const HttpsServer&) = delete;

    // Throws std::runtime_error (OpenSSL's reason) when the PEMs (or
    // ServerOptions::client_ca_pem) are unusable; the certificate served so
    // far stays in place then.
    void set_certificate(const std::string& cert_chain_pem, const std::string& key_pem);
    bool has_certificate() const noexcept;

    // Binds and listens; throws std::system_error when the address is unusable.
    void listen(const std::string& host, const std::string& port);
    unsigned short port() const;

    // Accepts until shutdown() or stop(). Needs a certificate.
    boost::asio::awaitable<void> run();

    // Graceful: no new connections; idle kept-alive connections close now;
    // a request already being read or answered completes (with
    // Connection: close). Returns when every connection has closed or after
    // `grace`, whichever comes first; then the rest are closed.
    boost::asio::awaitable<void> shutdown(std::chrono::milliseconds grace);

    // Immediate: closes the listener and every connection.
    void stop() noexcept;

    ServerStats stats() const noexcept;

private:
    struct impl;
    std::shared_ptr<impl> impl_;
};

}  // namespace attune::http
