#include <attune/controller/workqueue_state.hpp>

#include <gtest/gtest.h>

namespace attune::controller {
namespace {
using namespace std::chrono_literals;
using Tp = WorkqueueState::time_point;

const Tp kT0{};  // the fake clock

TEST(WorkqueueState, DedupesKeysWaitingToBeProcessed) {
    WorkqueueState q;
    EXPECT_TRUE(q.add("ns/Deployment/a"));
    EXPECT_FALSE(q.add("ns/Deployment/a"));
    EXPECT_TRUE(q.add("ns/Deployment/b"));
    EXPECT_EQ(q.ready(), 2u);
    EXPECT_EQ(q.take(kT0), "ns/Deployment/a");
    EXPECT_EQ(q.take(kT0), "ns/Deployment/b");
    EXPECT_EQ(q.take(kT0), std::nullopt);
}

TEST(WorkqueueState, KeyBeingProcessedIsNeverHandedOutTwice) {
    WorkqueueState q;
    q.add("k");
    ASSERT_EQ(q.take(kT0), "k");
    EXPECT_FALSE(q.add("k"));  // dirty, not ready
    EXPECT_FALSE(q.add("k"));  // still one pending re-run
    EXPECT_EQ(q.take(kT0), std::nullopt);
    EXPECT_TRUE(q.is_processing("k"));
    q.done("k");
    EXPECT_EQ(q.take(kT0), "k");  // re-queued once by done()
    q.done("k");
    EXPECT_EQ(q.take(kT0), std::nullopt);
}

TEST(WorkqueueState, DoneWithoutNewAddDoesNotRequeue) {
    WorkqueueState q;
    q.add("k");
    ASSERT_EQ(q.take(kT0), "k");
    q.done("k");
    EXPECT_EQ(q.ready(), 0u);
    EXPECT_EQ(q.in_progress(), 0u);
}

TEST(WorkqueueState, DelayedKeysBecomeReadyAtTheirTime) {
    WorkqueueState q;
    q.add_after("late", kT0 + 2s);
    q.add_after("early", kT0 + 1s);
    q.add_after("late", kT0 + 5s);  // the earliest request wins
    EXPECT_EQ(q.next_due(), kT0 + 1s);
    EXPECT_EQ(q.take(kT0 + 999ms), std::nullopt);
    EXPECT_EQ(q.take(kT0 + 1s), "early");
    EXPECT_EQ(q.take(kT0 + 1500ms), std::nullopt);
    EXPECT_EQ(q.take(kT0 + 2s), "late");
    EXPECT_EQ(q.delayed(), 0u);
}

TEST(WorkqueueState, DelayedKeyAlreadyQueuedIsNotDuplicated) {
    WorkqueueState q;
    q.add("k");
    q.add_after("k", kT0 + 1s);
    EXPECT_EQ(q.take(kT0 + 2s), "k");
    EXPECT_EQ(q.take(kT0 + 2s), std::nullopt);
}

TEST(WorkqueueState, RateLimitedRequeueBacksOffPerKeyExponentially) {
    WorkqueueState q({10ms, 50ms});
    EXPECT_EQ(q.add_rate_limited("a", kT0), 10ms);
    EXPECT_EQ(q.add_rate_limited("a", kT0), 20ms);
    EXPECT_EQ(q.add_rate_limited("a", kT0), 40ms);
    EXPECT_EQ(q.add_rate_limited("a", kT0), 50ms);  // capped
    EXPECT_EQ(q.add_rate_limited("b", kT0), 10ms);  // per key
    EXPECT_EQ(q.failures("a"), 4u);
    q.forget("a");
    EXPECT_EQ(q.failures("a"), 0u);
    EXPECT_EQ(q.add_rate_limited("a", kT0), 10ms);
}

TEST(WorkqueueState, RateLimitedKeyWaitsForItsBackoff) {
    WorkqueueState q({100ms, 1s});
    q.add_rate_limited("a", kT0);
    EXPECT_EQ(q.take(kT0 + 99ms), std::nullopt);
    EXPECT_EQ(q.take(kT0 + 100ms), "a");
}

TEST(WorkqueueState, ShutDownStopsHandingOutWork) {
    WorkqueueState q;
    q.add("a");
    q.shut_down();
    EXPECT_FALSE(q.add("b"));
    EXPECT_EQ(q.take(kT0), std::nullopt);
}

TEST(WorkqueueState, BackoffForDoublesAndCaps) {
    RateLimitOptions o{5ms, 300s};
    EXPECT_EQ(backoff_for(o, 0), 5ms);
    EXPECT_EQ(backoff_for(o, 3), 40ms);
    EXPECT_EQ(backoff_for(o, 200), 300s);  // no overflow
}

}  // namespace
}  // namespace attune::controller
