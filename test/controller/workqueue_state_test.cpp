#include <attune/controller/workqueue_state.hpp>

#include <gtest/gtest.h>

#include <functional>
#include <vector>

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

// A settled add (a pod event's workload, after the burst settles) is
// answered by any processing that starts before it falls due; a timer
// (add_after) is not.
TEST(WorkqueueState, ASettledAddIsAnsweredByAnEarlierProcessingATimerIsNot) {
    struct Row {
        const char* what;
        std::function<void(WorkqueueState&)> requests;  // all made at kT0, before the processing
        bool again_at_10s;                              // handed out again once the delay has passed
    };
    const std::vector<Row> rows = {
        {"settled", [](WorkqueueState& q) { q.add_settled("k", kT0 + 10s); }, false},
        {"timer", [](WorkqueueState& q) { q.add_after("k", kT0 + 10s); }, true},
        {"settled, then a timer",
         [](WorkqueueState& q) {
             q.add_settled("k", kT0 + 10s);
             q.add_after("k", kT0 + 10s);
         },
         true},
        {"a timer, then settled",
         [](WorkqueueState& q) {
             q.add_after("k", kT0 + 10s);
             q.add_settled("k", kT0 + 5s);
         },
         true},
        {"settled twice",
         [](WorkqueueState& q) {
             q.add_settled("k", kT0 + 10s);
             q.add_settled("k", kT0 + 8s);
         },
         false},
    };
    for (const auto& r : rows) {
        SCOPED_TRACE(r.what);
        WorkqueueState q;
        r.requests(q);
        q.add("k");  // another cause processes it first
        ASSERT_EQ(q.take(kT0 + 1s), "k");
        q.done("k");
        EXPECT_EQ(q.take(kT0 + 10s) == std::optional<std::string>("k"), r.again_at_10s);
        EXPECT_EQ(q.delayed(), 0u);
    }
}

TEST(WorkqueueState, ASettledAddMadeDuringProcessingStillFallsDue) {
    WorkqueueState q;
    q.add("k");
    ASSERT_EQ(q.take(kT0), "k");
    q.add_settled("k", kT0 + 10s);  // a change the running processing may not have seen
    q.done("k");
    EXPECT_EQ(q.take(kT0 + 9s), std::nullopt);
    EXPECT_EQ(q.take(kT0 + 10s), "k");
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
