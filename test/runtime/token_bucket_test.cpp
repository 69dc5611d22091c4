#include <attune/kube/token_bucket.hpp>

#include <gtest/gtest.h>

namespace attune::kube {
namespace {
using namespace std::chrono_literals;
using Tp = TokenBucket::Clock::time_point;

TEST(TokenBucket, BurstIsFreeThenSpacedByQps) {
    const Tp t0{};
    TokenBucket b(5, 3, t0);
    EXPECT_EQ(b.reserve(t0), 0ns);
    EXPECT_EQ(b.reserve(t0), 0ns);
    EXPECT_EQ(b.reserve(t0), 0ns);
    // Burst spent: the next ones queue 200 ms apart.
    EXPECT_EQ(b.reserve(t0), 200ms);
    EXPECT_EQ(b.reserve(t0), 400ms);
    EXPECT_EQ(b.reservations(), 5u);
}

TEST(TokenBucket, RefillsWithTimeUpToBurst) {
    const Tp t0{};
    TokenBucket b(10, 2, t0);
    b.reserve(t0);
    b.reserve(t0);
    EXPECT_EQ(b.reserve(t0 + 100ms), 0ns);   // one token came back
    EXPECT_EQ(b.reserve(t0 + 100ms), 100ms);
    EXPECT_DOUBLE_EQ(b.available(t0 + 10s), 2.0);  // capped at burst
}

TEST(TokenBucket, ClockGoingBackwardsRefillsNothing) {
    const Tp t0 = Tp{} + 10s;
    TokenBucket b(1, 1, t0);
    EXPECT_EQ(b.reserve(t0), 0ns);
    EXPECT_EQ(b.reserve(t0 - 5s), 1s);
}

TEST(TokenBucket, ZeroQpsIsUnlimited) {
    TokenBucket b(0, 1, Tp{});
    for (int i = 0; i < 100; ++i) EXPECT_EQ(b.reserve(Tp{}), 0ns);
}

}  // namespace
}  // namespace attune::kube
