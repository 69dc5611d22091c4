#include <attune/kube/retry_policy.hpp>

#include <algorithm>
#include <charconv>

namespace attune::kube {

std::optional<std::chrono::seconds> parse_retry_after(std::string_view v) noexcept {
    while (!v.empty() && (v.front() == ' ' || v.front() == '\t')) v.remove_prefix(1);
    while (!v.empty() && (v.back() == ' ' || v.back() == '\t')) v.remove_suffix(1);
    if (v.empty() || v.size() > 9) return std::nullopt;
    long long n = 0;
    auto [p, ec] = std::from_chars(v.data(), v.data() + v.size(), n);
    if (ec != std::errc{} || p != v.data() + v.size() || n < 0) return std::nullopt;
    return std::chrono::seconds(n);
}

RetryDecision decide_retry(const RetryOptions& opts, const AttemptOutcome& o, unsigned retries_done,
                           const RandomSource& rnd) {
    RetryDecision d;
    if (retries_done >= opts.max_retries) return d;
    const bool idempotent = http::is_idempotent(o.method) || o.replay_safe;

    if (o.transport != http::Failure::None) {
        switch (o.transport) {
            case http::Failure::Resolve:
            case http::Failure::Connect:
            case http::Failure::PoolExhausted: d.retry = true; break;
            case http::Failure::Timeout:
            case http::Failure::ConnectionReset: d.retry = !o.request_sent || idempotent; break;
            default:  // TLS verification, oversized body, bad HTTP, cancellation: retrying won't help
                d.retry = false;
        }
        if (d.retry) {
            d.reason = "transport";
            d.delay = backoff_delay(opts.backoff, retries_done, rnd);
        }
        return d;
    }

    const auto retry_after = o.retry_after ? parse_retry_after(*o.retry_after) : std::nullopt;
    if (o.status == 429) {
        d.retry = true;
        d.reason = "429";
    } else if (o.status >= 500 && o.status <= 599 && o.status != 501) {
        d.retry = idempotent || retry_after.has_value();
        d.reason = "5xx";
    }
    if (!d.retry) return d;
    auto delay = backoff_delay(opts.backoff, retries_done, rnd);
    if (retry_after) {
        auto ra = std::chrono::duration_cast<std::chrono::milliseconds>(std::min(*retry_after, opts.retry_after_cap));
        delay = std::max(delay, ra);
    }
    d.delay = delay;
    return d;
}

}  // namespace attune::kube
