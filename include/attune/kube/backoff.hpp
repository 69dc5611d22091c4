#pragma once
// Jittered exponential backoff. Pure: randomness is injected so that tests
// (and the reflector state machine) are deterministic.
#include <chrono>
#include <functional>

namespace attune::kube {

// Returns a uniform value in [0, 1).
using RandomSource = std::function<double()>;

// A seeded std::mt19937_64 source for production wiring.
RandomSource make_random_source(unsigned long long seed);

struct BackoffPolicy {
    std::chrono::milliseconds initial{800};
    double factor = 2.0;
    std::chrono::milliseconds cap{30'000};
    // The delay is stretched by up to this fraction: d * (1 + jitter * r).
    double jitter = 0.2;
};

// Delay before retry number `attempt` (0-based).
std::chrono::milliseconds backoff_delay(const BackoffPolicy& p, unsigned attempt, const RandomSource& rnd);

// Tracks consecutive failures; reset() after a success.
class BackoffState {
public:
    explicit BackoffState(BackoffPolicy p) : policy_(p) {}
    std::chrono::milliseconds next(const RandomSource& rnd) { return backoff_delay(policy_, attempt_++, rnd); }
    void reset() noexcept { attempt_ = 0; }
    unsigned attempts() const noexcept { return attempt_; }

private:
    BackoffPolicy policy_;
    unsigned attempt_ = 0;
};

}  // namespace attune::kube
