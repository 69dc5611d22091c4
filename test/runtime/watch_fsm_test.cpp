#include <attune/kube/object_cache.hpp>
#include <attune/kube/watch_fsm.hpp>

#include <boost/json.hpp>

#include <gtest/gtest.h>

#include <map>

namespace attune::kube {
namespace {
using namespace std::chrono_literals;
using fsm = watch_fsm;

watch_fsm::options opts() {
    watch_fsm::options o;
    o.page_size = 2;
    o.watch_timeout_base = 300s;
    o.backoff = {800ms, 2.0, 30s, 0.0};
    o.watch_list = false;  // the paged LIST path; WatchList has its own tests
    return o;
}

template <class T>
T expect_step(watch_fsm& m) {
    auto s = m.next();
    EXPECT_TRUE(std::holds_alternative<T>(s)) << "step index " << s.index();
    return std::holds_alternative<T>(s) ? std::get<T>(s) : T{};
}

// Lists in one page at `rv` and opens the watch from there.
void watching_at(watch_fsm& m, std::string_view rv) {
    m.next();
    m.on_list_page(rv, "");
    m.next();
    m.on_watch_started();
}

TEST(WatchFsm, ListsPagesThenWatchesFromListVersion) {
    watch_fsm m(opts(), [] { return 0.5; });
    EXPECT_EQ(m.current_phase(), fsm::phase::empty);
    auto l1 = expect_step<fsm::list_step>(m);
    EXPECT_EQ(l1.continue_token, "");
    EXPECT_EQ(l1.limit, 2);
    EXPECT_FALSE(m.on_list_page("", "c1"));
    auto l2 = expect_step<fsm::list_step>(m);
    EXPECT_EQ(l2.continue_token, "c1");
    EXPECT_TRUE(m.on_list_page("42", ""));
    auto w = expect_step<fsm::watch_step>(m);
    EXPECT_EQ(w.resource_version, "42");
    EXPECT_EQ(w.timeout_seconds, 450);  // jittered within [300, 600)
}

TEST(WatchFsm, TimeoutIsJitteredWithinRange) {
    for (double r : {0.0, 0.25, 0.999, 1.0}) {
        watch_fsm m(opts(), [r] { return r; });
        m.next();
        m.on_list_page("1", "");
        auto w = expect_step<fsm::watch_step>(m);
        EXPECT_GE(w.timeout_seconds, 300);
        EXPECT_LT(w.timeout_seconds, 600);
    }
}

TEST(WatchFsm, BookmarkMovesResourceVersionWithoutApplying) {
    watch_fsm m(opts(), nullptr);
    watching_at(m, "10");
    EXPECT_EQ(m.on_event("BOOKMARK", "17", false), fsm::event_action::skip);
    EXPECT_EQ(m.resource_version(), "17");
    m.on_watch_ended(fsm::end_reason::closed);
    EXPECT_EQ(expect_step<fsm::watch_step>(m).resource_version, "17");
}

TEST(WatchFsm, ExpiredErrorEventRelistsAtTheLastVersionAfterClientGoBackoff) {
    watch_fsm m(opts(), nullptr);
    watching_at(m, "10");
    EXPECT_EQ(m.on_event("MODIFIED", "11", false), fsm::event_action::apply);
    EXPECT_EQ(m.on_event("ERROR", "", true), fsm::event_action::relist);
    EXPECT_EQ(m.current_phase(), fsm::phase::empty);
    EXPECT_EQ(m.relists(), 1u);
    EXPECT_EQ(expect_step<fsm::wait_step>(m).delay, 800ms);
    // Any state at least as new as what we saw: the watch cache can serve it.
    auto l = expect_step<fsm::list_step>(m);
    EXPECT_EQ(l.continue_token, "");
    EXPECT_EQ(l.resource_version, "11");
    EXPECT_EQ(l.resource_version_match, "NotOlderThan");
    EXPECT_FALSE(m.on_list_page("", "c1"));
    auto l2 = expect_step<fsm::list_step>(m);  // continue pages carry no resourceVersion
    EXPECT_EQ(l2.continue_token, "c1");
    EXPECT_EQ(l2.resource_version, "");
    EXPECT_EQ(l2.resource_version_match, "");
    EXPECT_TRUE(m.on_list_page("99", ""));
    EXPECT_EQ(expect_step<fsm::watch_step>(m).resource_version, "99");
}

TEST(WatchFsm, RelistWaitIsZeroPointEightToOnePointSixSecondsLikeClientGo) {
    for (double r : {0.0, 0.5, 0.999}) {
        watch_fsm m(watch_fsm::options{}, [r] { return r; });
        ASSERT_EQ(watch_fsm::options{}.backoff.jitter, 1.0);
        m.on_watch_list_refused();
        watching_at(m, "10");
        m.on_watch_ended(fsm::end_reason::gone);
        const auto d = expect_step<fsm::wait_step>(m).delay;
        EXPECT_GE(d, 800ms) << r;
        EXPECT_LT(d, 1600ms) << r;
    }
}

TEST(WatchFsm, RefusedResumeVersionFallsBackToAQuorumList) {
    watch_fsm m(opts(), nullptr);
    watching_at(m, "10");
    m.on_watch_ended(fsm::end_reason::gone);
    m.next();  // wait
    EXPECT_EQ(expect_step<fsm::list_step>(m).resource_version, "10");
    m.on_list_failed(true);  // 410 on the list too
    m.next();                // wait
    auto l = expect_step<fsm::list_step>(m);
    EXPECT_EQ(l.resource_version, "");
    EXPECT_EQ(l.resource_version_match, "");
    EXPECT_EQ(m.relists(), 2u);
}

TEST(WatchFsm, OtherListFailuresKeepTheResumeVersion) {
    watch_fsm m(opts(), nullptr);
    watching_at(m, "10");
    m.on_watch_ended(fsm::end_reason::gone);
    m.next();
    m.next();
    m.on_list_failed(false);  // e.g. a timeout
    m.next();
    EXPECT_EQ(expect_step<fsm::list_step>(m).resource_version, "10");
}

TEST(WatchFsm, HttpGoneOnWatchRelists) {
    watch_fsm m(opts(), nullptr);
    watching_at(m, "10");
    m.on_watch_ended(fsm::end_reason::gone);
    EXPECT_EQ(m.current_phase(), fsm::phase::empty);
    m.next();  // wait
    EXPECT_TRUE(std::holds_alternative<fsm::list_step>(m.next()));
}

TEST(WatchFsm, RepeatedGoneWithoutProgressBacksOff) {
    watch_fsm m(opts(), nullptr);
    watching_at(m, "10");
    m.on_watch_ended(fsm::end_reason::gone);
    EXPECT_EQ(expect_step<fsm::wait_step>(m).delay, 800ms);
    m.next();
    m.on_list_page("11", "");  // success resets the backoff
    m.next();
    m.on_watch_started();
    m.on_watch_ended(fsm::end_reason::gone);
    EXPECT_EQ(expect_step<fsm::wait_step>(m).delay, 800ms);  // the list in between counted as progress
    m.next();
    m.on_list_failed(true);
    EXPECT_EQ(expect_step<fsm::wait_step>(m).delay, 1600ms);
}

TEST(WatchFsm, EventThatKeepsFailingToDecodeForcesARelistOnTheThirdTime) {
    watch_fsm m(opts(), nullptr);
    m.next();
    m.on_list_page("10", "");
    for (int attempt = 1; attempt <= 2; ++attempt) {
        EXPECT_EQ(expect_step<fsm::watch_step>(m).resource_version, "10") << attempt;
        m.on_watch_started();
        EXPECT_FALSE(m.on_decode_failed()) << attempt;
        EXPECT_TRUE(std::holds_alternative<fsm::wait_step>(m.next())) << attempt;
    }
    m.next();
    m.on_watch_started();
    EXPECT_TRUE(m.on_decode_failed());
    EXPECT_EQ(m.relists(), 1u);
    m.next();  // wait
    EXPECT_EQ(expect_step<fsm::list_step>(m).resource_version, "10");
}

TEST(WatchFsm, DecodeFailuresAtDifferentVersionsDoNotAddUp) {
    watch_fsm m(opts(), nullptr);
    m.next();
    m.on_list_page("10", "");
    for (int i = 0; i < 5; ++i) {
        auto s = m.next();
        if (std::holds_alternative<fsm::wait_step>(s)) s = m.next();
        ASSERT_TRUE(std::holds_alternative<fsm::watch_step>(s));
        m.on_watch_started();
        m.on_event("MODIFIED", std::to_string(11 + i), false);  // progress moves the resume point
        EXPECT_FALSE(m.on_decode_failed()) << i;
        EXPECT_FALSE(m.on_decode_failed()) << i;
    }
    EXPECT_EQ(m.relists(), 0u);
}

TEST(WatchFsm, ExpiredContinueTokenRestartsListAfterBackoff) {
    watch_fsm m(opts(), nullptr);
    m.next();
    m.on_list_page("", "c1");
    m.next();
    m.on_list_failed(true);
    EXPECT_EQ(expect_step<fsm::wait_step>(m).delay, 800ms);
    EXPECT_EQ(expect_step<fsm::list_step>(m).continue_token, "");
}

TEST(WatchFsm, FailuresBackOffExponentiallyAndResumeFromLastVersion) {
    watch_fsm m(opts(), nullptr);
    watching_at(m, "10");
    m.on_event("ADDED", "12", false);
    m.on_watch_ended(fsm::end_reason::failed);
    EXPECT_EQ(expect_step<fsm::wait_step>(m).delay, 800ms);
    EXPECT_EQ(expect_step<fsm::watch_step>(m).resource_version, "12");
    m.on_watch_started();
    m.on_watch_ended(fsm::end_reason::failed);
    EXPECT_EQ(expect_step<fsm::wait_step>(m).delay, 1600ms);
    EXPECT_EQ(expect_step<fsm::watch_step>(m).resource_version, "12");
    m.on_watch_started();
    m.on_event("MODIFIED", "13", false);  // progress resets the backoff
    m.on_watch_ended(fsm::end_reason::failed);
    EXPECT_EQ(expect_step<fsm::wait_step>(m).delay, 800ms);
}

TEST(WatchFsm, ServerRetryAfterIsHonouredOverShorterBackoff) {
    watch_fsm m(opts(), nullptr);
    m.next();
    m.on_list_failed(false, 5000ms);  // e.g. 429 with Retry-After: 5
    EXPECT_EQ(expect_step<fsm::wait_step>(m).delay, 5000ms);
    m.next();
    m.on_list_page("1", "");
    m.next();
    m.on_watch_started();
    m.on_watch_ended(fsm::end_reason::failed, 100ms);  // shorter than the backoff: backoff wins
    EXPECT_EQ(expect_step<fsm::wait_step>(m).delay, 800ms);
}

TEST(WatchFsm, CleanCloseWithoutEventsBacksOff) {
    watch_fsm m(opts(), nullptr);
    watching_at(m, "10");
    m.on_watch_ended(fsm::end_reason::closed);
    EXPECT_TRUE(std::holds_alternative<fsm::wait_step>(m.next()));
}

TEST(WatchFsm, ResourceVersionIsOpaque) {
    watch_fsm m(opts(), nullptr);
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
    watch_fsm m(o, [] { return 0.0; });
    auto w = expect_step<fsm::watch_step>(m);
    EXPECT_TRUE(w.send_initial_events);
    EXPECT_EQ(w.resource_version, "");
    EXPECT_EQ(w.resource_version_match, "NotOlderThan");
    EXPECT_EQ(m.current_phase(), fsm::phase::streaming);
    m.on_watch_started();
    EXPECT_EQ(m.on_event("ADDED", "5", false), fsm::event_action::apply);
    EXPECT_EQ(m.on_event("BOOKMARK", "6", false), fsm::event_action::skip);  // a plain bookmark
    EXPECT_EQ(m.on_event("BOOKMARK", "7", false, true), fsm::event_action::synced);
    EXPECT_EQ(m.current_phase(), fsm::phase::watching);
    EXPECT_EQ(m.on_event("MODIFIED", "8", false), fsm::event_action::apply);
    m.on_watch_ended(fsm::end_reason::closed);
    auto again = expect_step<fsm::watch_step>(m);  // an ordinary watch resumes
    EXPECT_FALSE(again.send_initial_events);
    EXPECT_EQ(again.resource_version, "8");
}

TEST(WatchFsm, WatchListCutShortStartsOverAndAfterGoneResumesAtLastVersion) {
    auto o = opts();
    o.watch_list = true;
    watch_fsm m(o, [] { return 0.0; });
    m.next();
    m.on_watch_started();
    m.on_event("ADDED", "5", false);
    m.on_watch_ended(fsm::end_reason::closed);  // before the end bookmark
    EXPECT_EQ(expect_step<fsm::wait_step>(m).delay, 800ms);
    auto w = expect_step<fsm::watch_step>(m);
    EXPECT_TRUE(w.send_initial_events);
    EXPECT_EQ(w.resource_version, "");
    m.on_watch_started();
    m.on_event("BOOKMARK", "9", false, true);
    m.next();
    m.on_watch_started();
    m.on_event("MODIFIED", "12", false);
    EXPECT_EQ(m.on_event("ERROR", "", true), fsm::event_action::relist);
    m.next();  // wait
    auto re = expect_step<fsm::watch_step>(m);
    EXPECT_TRUE(re.send_initial_events);
    EXPECT_EQ(re.resource_version, "12");
    EXPECT_EQ(re.resource_version_match, "NotOlderThan");
    m.on_watch_started();
    m.on_watch_ended(fsm::end_reason::gone);  // refused that version too: quorum
    m.next();
    EXPECT_EQ(expect_step<fsm::watch_step>(m).resource_version, "");
}

TEST(WatchFsm, RefusedWatchListFallsBackToPagedLists) {
    auto o = opts();
    o.watch_list = true;
    watch_fsm m(o, nullptr);
    EXPECT_TRUE(expect_step<fsm::watch_step>(m).send_initial_events);
    m.on_watch_list_refused();
    EXPECT_FALSE(m.watch_list_enabled());
    auto l = expect_step<fsm::list_step>(m);
    EXPECT_EQ(l.limit, 2);
    EXPECT_TRUE(m.on_list_page("3", ""));
    EXPECT_FALSE(expect_step<fsm::watch_step>(m).send_initial_events);
}

TEST(WatchFsm, DisconnectResumesWithoutLosingOrDuplicatingEvents) {
    namespace json = boost::json;
    struct logged {
        std::string type, name, rv;
    };
    std::vector<logged> log;
    for (int i = 1; i <= 40; ++i) {
        const std::string name = "p" + std::to_string(i % 7);
        log.push_back({i % 11 == 0 ? "DELETED" : (i <= 7 ? "ADDED" : "MODIFIED"), name, "rv" + std::to_string(i)});
    }
    auto index_of = [&](const std::string& rv) -> std::size_t {
        for (std::size_t i = 0; i < log.size(); ++i)
            if (log[i].rv == rv) return i + 1;
        return 0;  // list version "rv0": before everything
    };

    watch_fsm m(opts(), [] { return 0.0; });
    object_cache cache;
    std::map<std::string, int> applied_per_rv;
    std::size_t cut_every = 3;  // the "network" drops the stream every few events
    int steps = 0;
    while (steps++ < 500) {
        auto s = m.next();
        if (auto* l = std::get_if<fsm::list_step>(&s)) {
            (void)l;
            ASSERT_TRUE(m.on_list_page("rv0", ""));
            cache.replace({});
            continue;
        }
        if (std::holds_alternative<fsm::wait_step>(s)) continue;
        auto w = std::get<fsm::watch_step>(s);
        m.on_watch_started();
        std::size_t from = index_of(w.resource_version);
        if (from >= log.size()) break;
        std::size_t delivered = 0;
        for (std::size_t i = from; i < log.size() && delivered < cut_every; ++i, ++delivered) {
            const auto& e = log[i];
            json::value obj = {{"metadata", {{"name", e.name}, {"namespace", "ns"}, {"resourceVersion", e.rv}}}};
            ASSERT_EQ(m.on_event(e.type, e.rv, false), fsm::event_action::apply);
            const auto t = e.type == "ADDED" ? watch_event_type::added
                           : e.type == "DELETED" ? watch_event_type::deleted
                                                 : watch_event_type::modified;
            cache.apply(t, std::move(obj));
            ++applied_per_rv[e.rv];
        }
        m.on_watch_ended(fsm::end_reason::failed);
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
