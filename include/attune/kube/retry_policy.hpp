#pragma once
// Whether and when to retry one apiserver exchange. Pure.
//
// Policy:
//  * 429: retry any verb (the server rejected it before doing anything);
//    wait max(Retry-After capped, backoff) when Retry-After is an integer,
//    else jittered backoff.
//  * 5xx: idempotent verbs always; other verbs only when the server sent
//    Retry-After (it asks for a replay; our bodies are always replayable).
//  * transport failure before the request went out (resolve, connect, pool):
//    any verb. After it went out (reset, timeout): idempotent verbs only.
//  * a replay-safe request (a create whose body names its object) counts as
//    idempotent: if the lost attempt landed, the replay meets AlreadyExists
//    and never makes a second copy.
//  * everything else, including 409 and 410, goes back to the caller.
#include <attune/http/message.hpp>
#include <attune/kube/backoff.hpp>

#include <chrono>
#include <optional>
#include <string_view>

namespace attune::kube {

struct RetryOptions {
    unsigned max_retries = 10;
    std::chrono::seconds retry_after_cap{32};
    BackoffPolicy backoff{std::chrono::milliseconds(250), 2.0, std::chrono::milliseconds(16'000), 0.5};
};

struct AttemptOutcome {
    http::Verb method = http::Verb::Get;
    http::Failure transport = http::Failure::None;
    bool request_sent = true;
    bool replay_safe = false;  // http::Request::replay_safe
    unsigned status = 0;       // valid when transport == none
    std::optional<std::string_view> retry_after;
};

struct RetryDecision {
    bool retry = false;
    std::chrono::milliseconds delay{0};
    std::string_view reason;  // low-cardinality label: "429", "5xx", "transport"
};

// Only a non-negative integer number of seconds is honoured (HTTP dates are
// not sent by the apiserver and are ignored, as client-go does).
std::optional<std::chrono::seconds> parse_retry_after(std::string_view v) noexcept;

// `retries_done` counts retries already made for this request.
RetryDecision decide_retry(const RetryOptions& opts, const AttemptOutcome& outcome, unsigned retries_done,
                           const RandomSource& rnd);

}  // namespace attune::kube
