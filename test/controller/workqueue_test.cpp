#include <attune/controller/workqueue.hpp>

#include <boost/asio/as_tuple.hpp>
#include <boost/asio/co_spawn.hpp>
#include <boost/asio/detached.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/use_awaitable.hpp>

#include <gtest/gtest.h>

#include <map>
#include <set>

namespace attune::controller {
namespace {
namespace asio = boost::asio;
using namespace std::chrono_literals;

// Workers that sleep while "processing": a key re-added meanwhile must wait
// for done(), never run on a second worker at the same time.
TEST(Workqueue, WorkersNeverProcessOneKeyConcurrently) {
    asio::io_context io;
    Workqueue q(io.get_executor(), {});
    std::set<std::string> in_flight;
    std::map<std::string, int> runs;
    bool overlap = false;
    auto worker = [&]() -> asio::awaitable<void> {
        asio::steady_timer t(io);
        for (;;) {
            auto key = co_await q.get();
            if (!key) co_return;
            if (!in_flight.insert(*key).second) overlap = true;
            ++runs[*key];
            t.expires_after(5ms);
            co_await t.async_wait(asio::as_tuple(asio::use_awaitable));
            in_flight.erase(*key);
            q.done(*key);
        }
    };
    for (int i = 0; i < 4; ++i) asio::co_spawn(io, worker(), asio::detached);
    asio::co_spawn(io, [&]() -> asio::awaitable<void> {
        asio::steady_timer t(io);
        for (int round = 0; round < 5; ++round) {
            q.add("a");
            q.add("a");
            q.add("b");
            t.expires_after(2ms);
            co_await t.async_wait(asio::as_tuple(asio::use_awaitable));
        }
        t.expires_after(50ms);
        co_await t.async_wait(asio::as_tuple(asio::use_awaitable));
        q.shut_down();
    }, asio::detached);
    io.run_for(5s);
    EXPECT_FALSE(overlap);
    EXPECT_GE(runs["a"], 2);
    EXPECT_LE(runs["a"], 5);  // deduped: never more runs than rounds
    EXPECT_GE(runs["b"], 2);
    EXPECT_TRUE(in_flight.empty());
}

TEST(Workqueue, DelayedAddWakesAWaitingWorker) {
    asio::io_context io;
    Workqueue q(io.get_executor(), {});
    std::optional<std::string> got;
    auto started = std::chrono::steady_clock::now();
    std::chrono::steady_clock::duration waited{};
    asio::co_spawn(io, [&]() -> asio::awaitable<void> {
        got = co_await q.get();
        waited = std::chrono::steady_clock::now() - started;
    }, asio::detached);
    q.add_after("k", 30ms);
    io.run_for(2s);
    EXPECT_EQ(got, "k");
    EXPECT_GE(waited, 30ms);
}

TEST(Workqueue, ShutDownReleasesWaitingWorkers) {
    asio::io_context io;
    Workqueue q(io.get_executor(), {});
    int finished = 0;
    for (int i = 0; i < 3; ++i)
        asio::co_spawn(io, [&]() -> asio::awaitable<void> {
            auto k = co_await q.get();
            if (!k) ++finished;
        }, asio::detached);
    asio::post(io, [&] { q.shut_down(); });
    io.run_for(2s);
    EXPECT_EQ(finished, 3);
}

// A worker draining a full queue without I/O yields once per key, so
// completions queued meanwhile (a probe, a watch read, an admission review)
// run between keys instead of after the whole backlog.
TEST(Workqueue, AWorkerDrainingABacklogLetsOtherHandlersRunBetweenKeys) {
    asio::io_context io;
    Workqueue q(io.get_executor(), {});
    for (int i = 0; i < 100; ++i) q.add("k" + std::to_string(i));
    int processed = 0;
    int processed_when_other_ran = -1;
    asio::co_spawn(io, [&]() -> asio::awaitable<void> {
        for (;;) {
            auto key = co_await q.get();
            if (!key) co_return;
            ++processed;  // no I/O: the work itself never suspends
            q.done(*key);
            if (processed == 100) q.shut_down();
        }
    }, asio::detached);
    asio::post(io, [&] { processed_when_other_ran = processed; });
    io.run_for(2s);
    EXPECT_EQ(processed, 100);
    EXPECT_GE(processed_when_other_ran, 0);
    EXPECT_LE(processed_when_other_ran, 1);
}

}  // namespace
}  // namespace attune::controller
