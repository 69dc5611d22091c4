#include <attune/kube/backoff.hpp>

#include <algorithm>
#include <cmath>
#include <memory>
#include <random>

namespace attune::kube {

RandomSource make_random_source(unsigned long long seed) {
    auto gen = std::make_shared<std::mt19937_64>(seed);
    return [gen] { return std::uniform_real_distribution<double>(0.0, 1.0)(*gen); };
}

std::chrono::milliseconds backoff_delay(const BackoffPolicy& p, unsigned attempt, const RandomSource& rnd) {
    const double initial = static_cast<double>(std::max<long long>(p.initial.count(), 0));
    const double cap = static_cast<double>(std::max<long long>(p.cap.count(), 0));
    // Exponent clamped so huge attempt counts cannot overflow to inf/NaN.
    const double grown = initial * std::pow(std::max(p.factor, 1.0), std::min(attempt, 64u));
    double d = std::min(grown, cap);
    double r = rnd ? rnd() : 0.0;
    r = std::clamp(r, 0.0, 1.0);
    d *= 1.0 + std::max(p.jitter, 0.0) * r;
    return std::chrono::milliseconds(static_cast<long long>(d));
}

}  // namespace attune::kube
