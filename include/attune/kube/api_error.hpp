#pragma once
// The error every client call can return: either the apiserver's Status
// (code, reason, message) or a classified failure below HTTP.
#include <attune/http/message.hpp>

#include <chrono>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <variant>

namespace attune::kube {

enum class ErrorKind {
    ApiStatus,  // the server answered with a non-2xx Status
    Transport,  // no usable HTTP response (see `transport`)
    QueueFull,  // backpressure: the bounded request queue was full
    Decode,     // a 2xx body that is not the JSON we expected
    Cancelled,
    Fenced,       // a write refused before sending: this manager is not (or no longer) the leader
    Credentials,  // nothing to authenticate with: the exec credential plugin failed (message says why)
    OutOfScope,   // refused before sending: the path names a namespace outside --watch-namespaces
};

struct ApiError {
    // Not an aggregate on purpose (GCC 12 coroutine bug, see client.hpp).
    ApiError() = default;
    ApiError(ErrorKind k, int c, std::string r, std::string m)
        : kind(k), code(c), reason(std::move(r)), message(std::move(m)) {}

    ErrorKind kind = ErrorKind::ApiStatus;
    int code = 0;           // HTTP status (Status.code when present)
    std::string reason;     // Status.reason, e.g. NotFound, Conflict, Expired
    std::string message;    // Status.message or a description of the failure
    http::Failure transport = http::Failure::None;
    unsigned attempts = 1;  // requests sent, retries included
    // The server's integer Retry-After on the last response (429/5xx), so a
    // caller that retries later (the reflector) can honour it too.
    std::optional<std::chrono::seconds> retry_after;

    bool is_not_found() const noexcept { return kind == ErrorKind::ApiStatus && code == 404; }
    // Optimistic-concurrency loss or AlreadyExists: the caller re-reads.
    bool is_conflict() const noexcept { return kind == ErrorKind::ApiStatus && code == 409; }
    bool is_forbidden() const noexcept { return kind == ErrorKind::ApiStatus && code == 403; }
    bool is_already_exists() const noexcept { return is_conflict() && reason == "AlreadyExists"; }
    // The resourceVersion is too old: relist.
    bool is_gone() const noexcept {
        return kind == ErrorKind::ApiStatus && (code == 410 || reason == "Expired" || reason == "Gone");
    }
    bool is_too_many_requests() const noexcept { return kind == ErrorKind::ApiStatus && code == 429; }
    bool is_timeout() const noexcept { return kind == ErrorKind::Transport && transport == http::Failure::Timeout; }
    bool is_fenced() const noexcept { return kind == ErrorKind::Fenced; }

    std::string describe() const;

    // Builds the error from a non-2xx response. `body` should be a Status;
    // anything else is kept (truncated) as the message.
    static ApiError from_response(unsigned http_status, std::string_view body);
    static ApiError from_transport(http::Failure f, std::string_view detail);
};

// Either a value or an ApiError. Kept small on purpose; callers branch on ok().
template <class T>
class ApiResult {
public:
    // Asio's co_spawn needs a default; it reads as "no result (cancelled)".
    ApiResult() : v_(std::in_place_index<1>, ApiError{ErrorKind::Cancelled, 0, "", "no result"}) {}
    ApiResult(T v) : v_(std::in_place_index<0>, std::move(v)) {}         // NOLINT(implicit)
    ApiResult(ApiError e) : v_(std::in_place_index<1>, std::move(e)) {}  // NOLINT(implicit)

    bool ok() const noexcept { return v_.index() == 0; }
    explicit operator bool() const noexcept { return ok(); }
    T& value() & { return std::get<0>(v_); }
    const T& value() const& { return std::get<0>(v_); }
    T&& value() && { return std::get<0>(std::move(v_)); }
    const ApiError& error() const& { return std::get<1>(v_); }
    ApiError& error() & { return std::get<1>(v_); }
    T* operator->() { return &value(); }
    const T* operator->() const { return &value(); }

private:
    std::variant<T, ApiError> v_;
};

}  // namespace attune::kube
