#pragma once
// Plain HTTP request/response values. Deliberately free of Beast so that the
// kube layer's pure parts (retry policy, tests) can use them cheaply.
#include <chrono>
#include <cstddef>
#include <optional>
#include <utility>
#include <string>
#include <string_view>
#include <vector>

namespace attune::http {

enum class Verb { Get, Head, Post, Put, Patch, Del };

std::string_view to_string(Verb v) noexcept;

// GET/HEAD/PUT/DELETE may be repeated without changing the outcome.
constexpr bool is_idempotent(Verb v) noexcept {
    return v == Verb::Get || v == Verb::Head || v == Verb::Put || v == Verb::Del;
}

// Not aggregates on purpose: GCC 12 double-destroys braced aggregate
// temporaries that live across a co_await.
struct Header {
    Header() = default;
    Header(std::string n, std::string v) : name(std::move(n)), value(std::move(v)) {}
    std::string name;
    std::string value;
};

// Case-insensitive header lookup; returns the first match.
std::optional<std::string_view> find_header(const std::vector<Header>& headers, std::string_view name) noexcept;

struct Request {
    Request() = default;
    Verb method = Verb::Get;
    std::string target;  // path + query, already encoded
    std::vector<Header> headers;
    std::string body;  // always held in memory, hence always replayable
    // Safe to send again after a lost response although the verb is not
    // idempotent: a create that names its object (the server refuses a
    // second copy with AlreadyExists).
    bool replay_safe = false;
    // Budget for the whole exchange (pool wait, resolve, connect, handshake,
    // write and read), on top of the per-phase limits; 0: those alone.
    std::chrono::milliseconds timeout{0};
};

struct Response {
    Response() = default;
    unsigned status = 0;
    std::vector<Header> headers;
    std::string body;

    std::optional<std::string_view> header_value(std::string_view name) const noexcept {
        return find_header(headers, name);
    }
};

struct Timeouts {
    std::chrono::milliseconds connect{10'000};
    std::chrono::milliseconds handshake{10'000};
    std::chrono::milliseconds write{30'000};
    // Whole-response budget for ordinary requests; per-read idle budget for streams.
    std::chrono::milliseconds read{60'000};
    // Upper bound for waiting on a free pooled connection.
    std::chrono::milliseconds pool_wait{30'000};
};

// Why an exchange failed below the HTTP layer. `request_may_have_been_processed`
// on the result tells the retry policy whether a replay is safe for a
// non-idempotent verb.
enum class Failure {
    None,
    Resolve,
    Connect,
    TlsHandshake,
    Timeout,
    ConnectionReset,  // reset/EOF/truncation after the request went out
    BodyTooLarge,
    Protocol,       // malformed HTTP
    PoolExhausted,  // no connection became free within pool_wait
    Cancelled,
};

std::string_view to_string(Failure f) noexcept;

}  // namespace attune::http
