#include <attune/kube/object_cache.hpp>
#include <attune/kube/watch_fsm.hpp>

#include <boost/json.hpp>

#include <gtest/gtest.h>

#include <map>

namespace attune::kube {
namespace {
using namespace std::chrono_literals;
using Fsm = WatchFsm;

WatchFsm::Options opts() {
    WatchFsm::Options o;
    o.page_size = 2;
    o.watch_timeout_base = 300s;
    o.backoff = {800ms, 2.0, 30s, 0.0};
    o.watch_list = false;  // the paged LIST path; WatchList has its own tests
    return o;
}

template <class T>
T expect_step(WatchFsm& m) {
    auto s = m.next();
    EXPECT_TRUE(std::holds_alternative<T>(s)) << "step index " << s.index();
    return std::holds_alternative<T>(s) ? std::get<T>(s) : T{};
}

// Lists in one page at `rv` and opens the watch from there.
void watching_at(WatchFsm& m, std::string_view rv) {
    m.next();
    m.on_list_page(rv, "");
    m.next();
    m.on_watch_started();
}

TEST(WatchFsm, ListsPagesThenWatchesFromListVersion) {
    WatchFsm m(opts(), [] { return 0.5; });
    EXPECT_EQ(m.current_phase(), Fsm::Phase::Empty);
    auto l1 = expect_step<Fsm::ListStep>(m);
    EXPECT_EQ(l1.continue_token, "");
    EXPECT_EQ(l1.limit, 2);
    EXPECT_FALSE(m.on_list_page("", "c1"));
    auto l2 = expect_step<Fsm::ListStep>(m);
    EXPECT_EQ(l2.continue_token, "c1");
    EXPECT_TRUE(m.on_list_page("42", ""));
    auto w = expect_step<Fsm::WatchStep>(m);
    EXPECT_EQ(w.resource_version, "42");
    EXPECT_EQ(w.timeout_seconds, 450);  // jittered within [300, 600)
}

TEST(WatchFsm, TimeoutIsJitteredWithinRange) {
    for (double r : {0.0, 0.25, 0.999, 1.0}) {
        WatchFsm m(opts(), [r] { return r; });
        m.next();
        m.on_list_page("1", "");
        auto w = expect_step<Fsm::WatchStep>(m);
        EXPECT_GE(w.timeout_seconds, 300);
        EXPECT_LT(w.timeout_seconds, 600);
    }
}

TEST(WatchFsm, BookmarkMovesResourceVersionWithoutApplying) {
    WatchFsm m(opts(), nullptr);
    watching_at(m, "10");
    EXPECT_EQ(m.on_event("BOOKMARK", "17", false), Fsm::EventAction::Skip);
    EXPECT_EQ(m.resource_version(), "17");
    m.on_watch_ended(Fsm::EndReason::Closed);
    EXPECT_EQ(expect_step<Fsm::WatchStep>(m).resource_version, "17");
}

TEST(WatchFsm, ExpiredErrorEventRelistsAtTheLastVersionAfterClientGoBackoff) {
    WatchFsm m(opts(), nullptr);
    watching_at(m, "10");
    EXPECT_EQ(m.on_event("MODIFIED", "11", false), Fsm::EventAction::Apply);
    EXPECT_EQ(m.on_event("ERROR", "", true), Fsm::EventAction::Relist);
    EXPECT_EQ(m.current_phase(), Fsm::Phase::Empty);
    EXPECT_EQ(m.relists(), 1u);
    EXPECT_EQ(expect_step<Fsm::WaitStep>(m).delay, 800ms);
    // Any state at least as new as what we saw: the watch cache can serve it.
    auto l = expect_step<Fsm::ListStep>(m);
    EXPECT_EQ(l.continue_token, "");
    EXPECT_EQ(l.resource_version, "11");
    EXPECT_EQ(l.resource_version_match, "NotOlderThan");
    EXPECT_FALSE(m.on_list_page("", "c1"));
    auto l2 = expect_step<Fsm::ListStep>(m);  // continue pages carry no resourceVersion
    EXPECT_EQ(l2.continue_token, "c1");
    EXPECT_EQ(l2.resource_version, "");
    EXPECT_EQ(l2.resource_version_match, "");
    EXPECT_TRUE(m.on_list_page("99", ""));
    EXPECT_EQ(expect_step<Fsm::WatchStep>(m).resource_version, "99");
}

TEST(WatchFsm, RelistWaitIsZeroPointEightToOnePointSixSecondsLikeClientGo) {
    for (double r : {0.0, 0.5, 0.999}) {
        WatchFsm m(WatchFsm::Options{}, [r] { return r; });
        ASSERT_EQ(WatchFsm::Options{}.backoff.jitter, 1.0);
        m.on_watch_list_refused();
        watching_at(m, "10");
        m.on_watch_ended(Fsm::EndReason::Gone);
        const auto d = expect_step<Fsm::WaitStep>(m).delay;
        EXPECT_GE(d, 800ms) << r;
        EXPECT_LT(d, 1600ms) << r;
    }
}

TEST(WatchFsm, RefusedResumeVersionFallsBackToAQuorumList) {
    WatchFsm m(opts(), nullptr);
    watching_at(m, "10");
    m.on_watch_ended(Fsm::EndReason::Gone);
    m.next();  // wait
    EXPECT_EQ(expect_step<Fsm::ListStep>(m).resource_version, "10");
    m.on_list_failed(true);  // 410 on the list too
    m.next();                // wait
    auto l = expect_step<Fsm::ListStep>(m);
    EXPECT_EQ(l.resource_version, "");
    EXPECT_EQ(l.resource_version_match, "");
    EXPECT_EQ(m.relists(), 2u);
}

TEST(WatchFsm, OtherListFailuresKeepTheResumeVersion) {
    WatchFsm m(opts(), nullptr);
    watching_at(m, "10");
    m.on_watch_ended(Fsm::EndReason::Gone);
    m.next();
    m.next();
    m.on_list_failed(false);  // e.g. a timeout
    m.next();
    EXPECT_EQ(expect_step<Fsm::ListStep>(m).resource_version, "10");
}

TEST(WatchFsm, HttpGoneOnWatchRelists) {
    WatchFsm m(opts(), nullptr);
    watching_at(m, "10");
    m.on_watch_ended(Fsm::EndReason::Gone);
    EXPECT_EQ(m.current_phase(), Fsm::Phase::Empty);
    m.next();  // wait
    EXPECT_TRUE(std::holds_alternative<Fsm::ListStep>(m.next()));
}

TEST(WatchFsm, RepeatedGoneWithoutProgressBacksOff) {
    WatchFsm m(opts(), nullptr);
    watching_at(m, "10");
    m.on_watch_ended(Fsm::EndReason::Gone);
    EXPECT_EQ(expect_step<Fsm::WaitStep>(m).delay, 800ms);
    m.next();
    m.on_list_page("11", "");  // success resets the backoff
    m.next();
    m.on_watch_started();
    m.on_watch_ended(Fsm::EndReason::Gone);
    EXPECT_EQ(expect_step<Fsm::WaitStep>(m).delay, 800ms);  // the list in between counted as progress
    m.next();
    m.on_list_failed(true);
    EXPECT_EQ(expect_step<Fsm::WaitStep>(m).delay, 1600ms);
}

TEST(WatchFsm, EventThatKeepsFailingToDecodeForcesARelistOnTheThirdTime) {
    WatchFsm m(opts(), nullptr);
    m.next();
    m.on_list_page("10", "");
    for (int attempt = 1; attempt <= 2; ++attempt) {
        EXPECT_EQ(expect_step<Fsm::WatchStep>(m).resource_version, "10") << attempt;
        m.on_watch_started();
        EXPECT_FALSE(m.on_decode_failed()) << attempt;
        EXPECT_TRUE(std::holds_alternative<Fsm::WaitStep>(m.next())) << attempt;
    }
    m.next();
    m.on_watch_started();
    EXPECT_TRUE(m.on_decode_failed());
    EXPECT_EQ(m.relists(), 1u);
    m.next();  // wait
    EXPECT_EQ(expect_step<Fsm::ListStep>(m).resource_version, "10");
}

TEST(WatchFsm, DecodeFailuresAtDifferentVersionsDoNotAddUp) {
    WatchFsm m(opts(), nullptr);
    m.next();
    m.on_list_page("10", "");
    for (int i = 0; i < 5; ++i) {
        auto s = m.next();
        if (std::holds_alternative<Fsm::WaitStep>(s)) s = m.next();
        ASSERT_TRUE(std::holds_alternative<Fsm::WatchStep>(s));
        m.on_watch_started();
        m.on_event("MODIFIED", std::to_string(11 + i), false);  // progress moves the resume point
        EXPECT_FALSE(m.on_decode_failed()) << i;
        EXPECT_FALSE(m.on_decode_failed()) << i;
    }
    EXPECT_EQ(m.relists(), 0u);
}

TEST(WatchFsm, ExpiredContinueTokenRestartsListAfterBackoff) {
    WatchFsm m(opts(), nullptr);
    m.next();
    m.on_list_page("", "c1");
    m.next();
    m.on_list_failed(true);
    EXPECT_EQ(expect_step<Fsm::WaitStep>(m).delay, 800ms);
    EXPECT_EQ(expect_step<Fsm::ListStep>(m).continue_token, "");
}

TEST(WatchFsm, FailuresBackOffExponentiallyAndResumeFromLastVersion) {
    WatchFsm m(opts(), nullptr);
    watching_at(m, "10");
    m.on_event("ADDED", "12", false);
    m.on_watch_ended(Fsm::EndReason::Failed);
    EXPECT_EQ(expect_step<Fsm::WaitStep>(m).delay, 800ms);
    EXPECT_EQ(expect_step<Fsm::WatchStep>(m).resource_version, "12");
    m.on_watch_started();
    m.on_watch_ended(Fsm::EndReason::Failed);
    EXPECT_EQ(expect_step<Fsm::WaitStep>(m).delay, 1600ms);
    EXPECT_EQ(expect_step<Fsm::WatchStep>(m).resource_version, "12");
    m.on_watch_started();
    m.on_event("MODIFIED", "13", false);  // progress resets the backoff
    m.on_watch_ended(Fsm::EndReason::Failed);
    EXPECT_EQ(expect_step<Fsm::WaitStep>(m).delay, 800ms);
}

TEST(WatchFsm, ServerRetryAfterIsHonouredOverShorterBackoff) {
    WatchFsm m(opts(), nullptr);
    m.next();
    m.on_list_failed(false, 5000ms);  // e.g. 429 with Retry-After: 5
    EXPECT_EQ(expect_step<Fsm::WaitStep>(m).delay, 5000ms);
    m.next();
    m.on_list_page("1", "");
    m.next();
    m.on_watch_started();
    m.on_watch_ended(Fsm::EndReason::Failed, 100ms);  // shorter than the backoff: backoff wins
    EXPECT_EQ(expect_step<Fsm::WaitStep>(m).delay, 800ms);
}

TEST(WatchFsm, CleanCloseWithoutEventsBacksOff) {
    WatchFsm m(opts(), nullptr);
    watching_at(m, "10");
    m.on_watch_ended(Fsm::EndReason::Closed);
    EXPECT_TRUE(std::holds_alternative<Fsm::WaitStep>(m.next()));
}

TEST(WatchFsm, ResourceVersionIsOpaque) {
    WatchFsm m(opts(), nullptr);
    m.next();
    m.on_list_page("abc-9", "");
    m.next();
    m.on_watch_started();
    m.on_event("MODIFIED", "abc-10", false);
    m.on_event("MODIFIED", "abc-2", false);  // "smaller" as a number: still the latest seen
    EXPECT_EQ(m.resource_version(), "abc-2");
}

// A fake apiserver: an append-only event log; a watch from rv X replays
// every event after X. The watch is cut at arbitrary points; the cache must
// end up applying each event exactly once.
TEST(WatchFsm, WatchListStreamsTheInitialStateAndSyncsOnTheEndBookmark) {
    auto o = opts();
    o.watch_list = true;
    WatchFsm m(o, [] { return 0.0; });
    auto w = expect_step<Fsm::WatchStep>(m);
    EXPECT_TRUE(w.send_initial_events);
    EXPECT_EQ(w.resource_version, "");
    EXPECT_EQ(w.resource_version_match, "NotOlderThan");
    EXPECT_EQ(m.current_phase(), Fsm::Phase::Streaming);
    m.on_watch_started();
    EXPECT_EQ(m.on_event("ADDED", "5", false), Fsm::EventAction::Apply);
    EXPECT_EQ(m.on_event("BOOKMARK", "6", false), Fsm::EventAction::Skip);  // a plain bookmark
    EXPECT_EQ(m.on_event("BOOKMARK", "7", false, true), Fsm::EventAction::Synced);
    EXPECT_EQ(m.current_phase(), Fsm::Phase::Watching);
    EXPECT_EQ(m.on_event("MODIFIED", "8", false), Fsm::EventAction::Apply);
    m.on_watch_ended(Fsm::EndReason::Closed);
    auto again = expect_step<Fsm::WatchStep>(m);  // an ordinary watch resumes
    EXPECT_FALSE(again.send_initial_events);
    EXPECT_EQ(again.resource_version, "8");
}

TEST(WatchFsm, WatchListCutShortStartsOverAndAfterGoneResumesAtLastVersion) {
    auto o = opts();
    o.watch_list = true;
    WatchFsm m(o, [] { return 0.0; });
    m.next();
    m.on_watch_started();
    m.on_event("ADDED", "5", false);
    m.on_watch_ended(Fsm::EndReason::Closed);  // before the end bookmark
    EXPECT_EQ(expect_step<Fsm::WaitStep>(m).delay, 800ms);
    auto w = expect_step<Fsm::WatchStep>(m);
    EXPECT_TRUE(w.send_initial_events);
    EXPECT_EQ(w.resource_version, "");
    m.on_watch_started();
    m.on_event("BOOKMARK", "9", false, true);
    m.next();
    m.on_watch_started();
    m.on_event("MODIFIED", "12", false);
    EXPECT_EQ(m.on_event("ERROR", "", true), Fsm::EventAction::Relist);
    m.next();  // wait
    auto re = expect_step<Fsm::WatchStep>(m);
    EXPECT_TRUE(re.send_initial_events);
    EXPECT_EQ(re.resource_version, "12");
    EXPECT_EQ(re.resource_version_match, "NotOlderThan");
    m.on_watch_started();
    m.on_watch_ended(Fsm::EndReason::Gone);  // refused that version too: quorum
    m.next();
    EXPECT_EQ(expect_step<Fsm::WatchStep>(m).resource_version, "");
}

TEST(WatchFsm, RefusedWatchListFallsBackToPagedLists) {
    auto o = opts();
    o.watch_list = true;
    WatchFsm m(o, nullptr);
    EXPECT_TRUE(expect_step<Fsm::WatchStep>(m).send_initial_events);
    m.on_watch_list_refused();
    EXPECT_FALSE(m.watch_list_enabled());
    auto l = expect_step<Fsm::ListStep>(m);
    EXPECT_EQ(l.limit, 2);
    EXPECT_TRUE(m.on_list_page("3", ""));
    EXPECT_FALSE(expect_step<Fsm::WatchStep>(m).send_initial_events);
}

TEST(WatchFsm, DisconnectResumesWithoutLosingOrDuplicatingEvents) {
    namespace json = boost::json;
    struct Logged {
        std::string type, name, rv;
    };
    std::vector<Logged> log;
    for (int i = 1; i <= 40; ++i) {
        const std::string name = "p" + std::to_string(i % 7);
        log.push_back({i % 11 == 0 ? "DELETED" : (i <= 7 ? "ADDED" : "MODIFIED"), name, "rv" + std::to_string(i)});
    }
    auto index_of = [&](const std::string& rv) -> std::size_t {
        for (std::size_t i = 0; i < log.size(); ++i)
            if (log[i].rv == rv) return i + 1;
        return 0;  // list version "rv0": before everything
    };

    WatchFsm m(opts(), [] { return 0.0; });
    ObjectCache cache;
    std::map<std::string, int> applied_per_rv;
    std::size_t cut_every = 3;  // the "network" drops the stream every few events
    int steps = 0;
    while (steps++ < 500) {
        auto s = m.next();
        if (auto* l = std::get_if<Fsm::ListStep>(&s)) {
            (void)l;
            ASSERT_TRUE(m.on_list_page("rv0", ""));
            cache.replace({});
            continue;
        }
        if (std::holds_alternative<Fsm::WaitStep>(s)) continue;
        auto w = std::get<Fsm::WatchStep>(s);
        m.on_watch_started();
        std::size_t from = index_of(w.resource_version);
        if (from >= log.size()) break;
        std::size_t delivered = 0;
        for (std::size_t i = from; i < log.size() && delivered < cut_every; ++i, ++delivered) {
            const auto& e = log[i];
            json::value obj = {{"metadata", {{"name", e.name}, {"namespace", "ns"}, {"resourceVersion", e.rv}}}};
            ASSERT_EQ(m.on_event(e.type, e.rv, false), Fsm::EventAction::Apply);
            const auto t = e.type == "ADDED"     ? WatchEventType::Added
                           : e.type == "DELETED" ? WatchEventType::Deleted
                                                 : WatchEventType::Modified;
            cache.apply(t, std::move(obj));
            ++applied_per_rv[e.rv];
        }
        m.on_watch_ended(Fsm::EndReason::Failed);
        cut_every = cut_every % 5 + 1;
    }
    ASSERT_EQ(applied_per_rv.size(), log.size());
    for (const auto& [rv, n] : applied_per_rv) EXPECT_EQ(n, 1) << rv;
    EXPECT_EQ(m.resource_version(), "rv40");
    // Final cache equals replaying the log once.
    std::map<std::string, std::string> expect;
    for (const auto& e : log) {
        if (e.type == "DELETED") expect.erase(e.name); else expect[e.name] = e.rv;
    }
    EXPECT_EQ(cache.size(), expect.size());
    for (const auto& [name, rv] : expect) {
        auto o = cache.get("ns/" + name);
        ASSERT_TRUE(o) << name;
        EXPECT_EQ(meta_string(*o, "resourceVersion"), rv);
    }
    EXPECT_EQ(m.relists(), 0u);
}

}  // namespace
}  // namespace attune::kube
