#include <attune/kube/backoff.hpp>

#include <gtest/gtest.h>

namespace attune::kube {
namespace {
using namespace std::chrono_literals;

TEST(Backoff, GrowsAndCapsWithoutJitter) {
    BackoffPolicy p{800ms, 2.0, 30s, 0.0};
    RandomSource zero = [] { return 0.0; };
    EXPECT_EQ(backoff_delay(p, 0, zero), 800ms);
    EXPECT_EQ(backoff_delay(p, 1, zero), 1600ms);
    EXPECT_EQ(backoff_delay(p, 5, zero), 25600ms);
    EXPECT_EQ(backoff_delay(p, 6, zero), 30s);
    EXPECT_EQ(backoff_delay(p, 1000, zero), 30s);
}

TEST(Backoff, JitterStretchesWithinBound) {
    BackoffPolicy p{1000ms, 2.0, 30s, 0.5};
    EXPECT_EQ(backoff_delay(p, 0, [] { return 0.0; }), 1000ms);
    EXPECT_EQ(backoff_delay(p, 0, [] { return 0.5; }), 1250ms);
    EXPECT_EQ(backoff_delay(p, 0, [] { return 1.0; }), 1500ms);
    // A misbehaving source is clamped.
    EXPECT_EQ(backoff_delay(p, 0, [] { return 7.0; }), 1500ms);
}

TEST(Backoff, StateResetsAfterSuccess) {
    BackoffState s({100ms, 2.0, 1s, 0.0});
    RandomSource zero = [] { return 0.0; };
    EXPECT_EQ(s.next(zero), 100ms);
    EXPECT_EQ(s.next(zero), 200ms);
    s.reset();
    EXPECT_EQ(s.next(zero), 100ms);
}

TEST(Backoff, SeededSourceIsDeterministicAndInRange) {
    auto a = make_random_source(7);
    auto b = make_random_source(7);
    for (int i = 0; i < 100; ++i) {
        const double x = a();
        EXPECT_EQ(x, b());
        EXPECT_GE(x, 0.0);
        EXPECT_LT(x, 1.0);
    }
}

}  // namespace
}  // namespace attune::kube
