// The event queue: the D rule and attune.io/suppress-warnings on push, a
// bounded queue that drops (and counts) rather than grows.
#include <attune/controller/event_queue.hpp>

#include <boost/asio/io_context.hpp>

#include <prometheus/registry.h>
#include <prometheus/text_serializer.h>

#include <gtest/gtest.h>

namespace attune::controller {
namespace {

using Verdict = EventQueue::Verdict;

QueuedEvent conflict(const char* uid, const char* note, std::string suppress = "") {
    core::EventIntent intent{"Warning", "PolicyConflict", "recommend", note, true};
    return policy_event({"attune.io/v1alpha1", "AttunePolicy", "ns", "loser", uid}, intent, std::move(suppress));
}

struct Fixture {
    boost::asio::io_context io;
    prometheus::Registry registry;
    ControllerMetrics metrics{registry};
    core::Timestamp now{std::chrono::seconds(1'767'225'600)};
    EventQueue q{io.get_executor(), nullptr, 3, &metrics, [this] { return now; }};
    std::string text() { return prometheus::TextSerializer().Serialize(registry.Collect()); }
};

TEST(EventQueue, DEventsPassOncePerHourPerPolicyReasonAndMessage) {
    Fixture f;
    EXPECT_EQ(f.q.push(conflict("u1", "w yielded")), Verdict::Queued);
    EXPECT_EQ(f.q.push(conflict("u1", "w yielded")), Verdict::Deduplicated);
    EXPECT_EQ(f.q.push(conflict("u2", "w yielded")), Verdict::Queued);
    f.now += std::chrono::hours(1);
    EXPECT_EQ(f.q.push(conflict("u1", "w yielded")), Verdict::Queued);
    ASSERT_EQ(f.q.size(), 3u);
    EXPECT_EQ(f.q.pending()[0].regarding.kind, "AttunePolicy");
    EXPECT_EQ(f.q.pending()[0].reason, "PolicyConflict");
    EXPECT_EQ(f.q.pending()[0].type, "Warning");
}

TEST(EventQueue, SuppressWarningsSilencesOnlyDEvents) {
    Fixture f;
    EXPECT_EQ(f.q.push(conflict("u1", "w yielded", "HPAConflict,PolicyConflict")), Verdict::Suppressed);
    core::EventIntent ready{"Normal", "RecommendationsReady", "recommend", "First recommendations", false};
    EXPECT_EQ(f.q.push(
                  policy_event({"attune.io/v1alpha1", "AttunePolicy", "ns", "p", "u"}, ready, "RecommendationsReady")),
              Verdict::Queued);
    // Not D: no deduplication either.
    EXPECT_EQ(f.q.push(policy_event({"attune.io/v1alpha1", "AttunePolicy", "ns", "p", "u"}, ready, "")),
              Verdict::Queued);
}

TEST(EventQueue, AFullQueueDropsAndCounts) {
    Fixture f;
    for (const char* uid : {"a", "b", "c"}) ASSERT_EQ(f.q.push(conflict(uid, "m")), Verdict::Queued);
    EXPECT_EQ(f.q.push(conflict("d", "m")), Verdict::Dropped);
    EXPECT_EQ(f.q.size(), 3u);
    const auto t = f.text();
    EXPECT_NE(t.find(R"(attune_policy_events_total{result="dropped"} 1)"), std::string::npos) << t;
    EXPECT_NE(t.find(R"(attune_policy_events_total{result="queued"} 3)"), std::string::npos) << t;
    EXPECT_NE(t.find("attune_event_queue_depth 3"), std::string::npos) << t;
    f.q.stop();
    EXPECT_EQ(f.q.push(conflict("e", "m")), Verdict::Dropped);
}

}  // namespace
}  // namespace attune::controller
