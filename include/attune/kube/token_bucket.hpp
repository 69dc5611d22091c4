#pragma once
// Client-side rate limiter (--kube-qps / --kube-burst). Pure: the caller
// passes "now" and sleeps for the returned delay, so tests use a fake clock.
#include <chrono>
#include <cstdint>

namespace attune::kube {

class TokenBucket {
public:
    using Clock = std::chrono::steady_clock;

    // qps <= 0 disables limiting. burst < 1 is treated as 1.
    TokenBucket(double qps, int burst, Clock::time_point now) noexcept;

    // Reserves one token and returns how long the caller must wait before
    // using it. Reservations queue up: tokens may go negative, so callers
    // that arrive together are spaced 1/qps apart.
    std::chrono::nanoseconds reserve(Clock::time_point now) noexcept;

    // Tokens available at `now` (negative while reservations are pending).
    double available(Clock::time_point now) const noexcept;

    std::uint64_t reservations() const noexcept { return reservations_; }
    double qps() const noexcept { return qps_; }
    int burst() const noexcept { return burst_; }

private:
    double qps_;
    int burst_;
    double tokens_;
    Clock::time_point last_;
    std::uint64_t reservations_ = 0;
};

}  // namespace attune::kube
