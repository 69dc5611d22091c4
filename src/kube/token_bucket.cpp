#include <attune/kube/token_bucket.hpp>

#include <algorithm>
#include <cmath>

namespace attune::kube {

TokenBucket::TokenBucket(double qps, int burst, Clock::time_point now) noexcept
    : qps_(qps), burst_(std::max(burst, 1)), tokens_(static_cast<double>(std::max(burst, 1))), last_(now) {}

double TokenBucket::available(Clock::time_point now) const noexcept {
    if (qps_ <= 0) return static_cast<double>(burst_);
    // A clock that goes backwards (or an out-of-order caller) refills nothing.
    const double elapsed = std::max(0.0, std::chrono::duration<double>(now - last_).count());
    return std::min(static_cast<double>(burst_), tokens_ + elapsed * qps_);
}

std::chrono::nanoseconds TokenBucket::reserve(Clock::time_point now) noexcept {
    ++reservations_;
    if (qps_ <= 0) return std::chrono::nanoseconds::zero();
    tokens_ = available(now);
    last_ = std::max(now, last_);
    tokens_ -= 1.0;
    if (tokens_ >= 0) return std::chrono::nanoseconds::zero();
    const double wait_s = -tokens_ / qps_;
    return std::chrono::nanoseconds(static_cast<std::int64_t>(std::ceil(wait_s * 1e9)));
}

}  // namespace attune::kube
