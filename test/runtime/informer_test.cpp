// The informer driving list+watch against the scripted loopback server:
// paging, bookmarks, 410 as an ERROR event and as HTTP status, handlers.
#include "run_coro.hpp"
#include "scripted_tls_server.hpp"
#include "test_certs.hpp"

#include <attune/kube/informer.hpp>
#include <attune/kube/pod_protobuf.hpp>

#include <boost/asio/co_spawn.hpp>
#include <boost/asio/detached.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/use_awaitable.hpp>

#include <gtest/gtest.h>

#include <algorithm>

namespace attune::kube {
namespace {
using namespace std::chrono_literals;
using test::pki;
using test::ScriptedReply;
using test::ScriptedTlsServer;
namespace asio = boost::asio;

std::string pod(std::string_view name, std::string_view rv) {
    return std::string(R"({"kind":"Pod","metadata":{"name":")") + std::string(name) +
           R"(","namespace":"ns","resourceVersion":")" + std::string(rv) +
           R"(","managedFields":[{"manager":"m"}]},"spec":{"volumes":[],"containers":[{"name":"c","image":"i"}]}})";
}
std::string list(std::string_view rv, std::string_view cont, std::vector<std::string> items) {
    std::string s = R"({"kind":"PodList","metadata":{"resourceVersion":")" + std::string(rv) + R"(","continue":")" +
                    std::string(cont) + R"("},"items":[)";
    for (std::size_t i = 0; i < items.size(); ++i) s += (i ? "," : "") + items[i];
    return s + "]}";
}
std::string event(std::string_view type, const std::string& obj) {
    return R"({"type":")" + std::string(type) + R"(","object":)" + obj + "}";
}

// Drives one informer against a scripted server until `requests` arrived
// (then 50 ms more), and records every change as "kind key@rv".
struct InformerRun {
    asio::io_context io;
    ScriptedTlsServer server{io, pki().server_cert_pem, pki().server_key_pem};
    std::vector<std::string> changes;
    int listed = 0;

    void hang_after() {
        ScriptedReply quiet;
        quiet.pieces.push_back({0ms, "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n"});
        quiet.after = ScriptedReply::Then::Hang;
        server.script(quiet);
    }

    std::unique_ptr<Informer> run(InformerOptions opts, std::size_t requests, Informer::Handler extra = nullptr) {
        RestConfig cfg;
        cfg.host = "127.0.0.1";
        cfg.port = std::to_string(server.port());
        cfg.tls.ca_pem = pki().ca_pem;
        ClientSettings cs;
        cs.qps = 0;
        Client c(io.get_executor(), cfg, cs);
        opts.type = resources::pods();
        opts.fsm.backoff = {10ms, 2.0, 100ms, 0.0};  // jitter 0: deterministic
        opts.on_listed = [this] { ++listed; };
        auto inf = std::make_unique<Informer>(c, opts, [] { return 0.0; });
        inf->add_handler([this](const ObjectCache::Delta& d) {
            static const char* kinds[] = {"added", "updated", "deleted"};
            changes.push_back(std::string(kinds[static_cast<int>(d.what)]) + " " + d.key + "@" +
                              std::string(meta_string(d.new_object ? *d.new_object : *d.old_object, "resourceVersion")));
        });
        if (extra) inf->add_handler(std::move(extra));
        asio::co_spawn(io, inf->run(), asio::detached);
        test::run_coro(io, [&]() -> asio::awaitable<void> {
            asio::steady_timer t(co_await asio::this_coro::executor);
            for (int i = 0; i < 500 && server.requests().size() < requests; ++i) {
                t.expires_after(10ms);
                co_await t.async_wait(asio::use_awaitable);
            }
            t.expires_after(50ms);
            co_await t.async_wait(asio::use_awaitable);
            inf->stop();
        }());
        // Leave the informer readable; its client is gone, so it must not run again.
        return inf;
    }
};

std::string end_bookmark(std::string_view rv) {
    return R"({"type":"BOOKMARK","object":{"kind":"Pod","metadata":{"resourceVersion":")" + std::string(rv) +
           R"(","annotations":{"k8s.io/initial-events-end":"true"}}}})";
}

TEST(Informer, ListsWatchesAndRelistsOnBothKindsOfGone) {
    InformerRun t;
    t.server.script(ScriptedReply::http(200, list("", "c1", {pod("a", "1")})));
    t.server.script(ScriptedReply::http(200, list("10", "", {pod("b", "2")})));
    t.server.script(ScriptedReply::watch_stream({
        event("MODIFIED", pod("a", "11")),
        R"({"type":"BOOKMARK","object":{"kind":"Pod","metadata":{"resourceVersion":"15"}}})",
        R"({"type":"ERROR","object":{"kind":"Status","status":"Failure","reason":"Expired","code":410,"message":"too old"}})",
        event("MODIFIED", pod("a", "999")),  // after the ERROR: must not be applied
    }));
    t.server.script(ScriptedReply::http(200, list("20", "", {pod("a", "11"), pod("c", "20")})));
    t.server.script(ScriptedReply::status(410, "Expired", "too old resource version"));
    t.server.script(ScriptedReply::http(200, list("30", "", {pod("a", "11"), pod("c", "20")})));
    t.hang_after();
    InformerOptions o;
    o.transform = strip_pod;
    o.fsm.page_size = 2;
    o.fsm.watch_list = false;
    std::vector<std::string> keys;
    auto inf = t.run(o, 7, enqueue_keys([&](const std::string& k) { keys.push_back(k); }));

    ASSERT_EQ(t.server.requests().size(), 7u);
    const auto& r = t.server.requests();
    EXPECT_EQ(r[0].target, "/api/v1/pods?limit=2");
    EXPECT_EQ(r[1].target, "/api/v1/pods?continue=c1&limit=2");
    EXPECT_EQ(r[2].target.substr(0, r[2].target.find("&timeoutSeconds")),
              "/api/v1/pods?watch=1&resourceVersion=10&allowWatchBookmarks=true");
    // ERROR 410: relist at the last version seen (the bookmark's), from the watch cache.
    EXPECT_EQ(r[3].target, "/api/v1/pods?resourceVersion=15&resourceVersionMatch=NotOlderThan&limit=2");
    EXPECT_NE(r[4].target.find("resourceVersion=20"), std::string::npos);
    EXPECT_EQ(r[5].target, "/api/v1/pods?resourceVersion=20&resourceVersionMatch=NotOlderThan&limit=2");  // HTTP 410
    EXPECT_NE(r[6].target.find("resourceVersion=30"), std::string::npos);

    EXPECT_EQ(t.changes, (std::vector<std::string>{"added ns/a@1", "added ns/b@2", "updated ns/a@11", "added ns/c@20",
                                                   "deleted ns/b@2"}));
    EXPECT_EQ(keys.size(), t.changes.size());
    EXPECT_TRUE(inf->has_synced());
    EXPECT_EQ(inf->cache().size(), 2u);
    auto a = inf->cache().get("ns/a");
    ASSERT_TRUE(a);
    EXPECT_EQ(meta_string(*a, "resourceVersion"), "11");
    EXPECT_FALSE(a->at("metadata").as_object().contains("managedFields"));
    EXPECT_FALSE(a->at("spec").as_object().contains("volumes"));
    EXPECT_EQ(inf->state().relists(), 2u);
    EXPECT_EQ(inf->state().resource_version(), "30");
}

TEST(Informer, BrokenStreamResumesFromLastSeenVersionWithoutDuplicates) {
    InformerRun t;
    t.server.script(ScriptedReply::http(200, list("10", "", {pod("a", "1")})));
    // Two events, then the connection is reset in the middle of the third line.
    auto broken = ScriptedReply::watch_stream({event("MODIFIED", pod("a", "11")), event("ADDED", pod("b", "12"))});
    // (Pauses so the client has read everything before the RST discards it.)
    broken.pieces.push_back({50ms, event("MODIFIED", pod("a", "13")).substr(0, 30)});
    broken.pieces.push_back({100ms, ""});
    broken.after = ScriptedReply::Then::Reset;
    t.server.script(broken);
    t.server.script(ScriptedReply::watch_stream({event("MODIFIED", pod("a", "13")), event("DELETED", pod("b", "14"))}));
    t.hang_after();
    InformerOptions o;
    o.fsm.watch_list = false;
    auto inf = t.run(o, 4);
    const auto& r = t.server.requests();
    ASSERT_EQ(r.size(), 4u);
    EXPECT_NE(r[1].target.find("resourceVersion=10&"), std::string::npos);
    EXPECT_NE(r[2].target.find("resourceVersion=12&"), std::string::npos);  // resume point
    EXPECT_NE(r[3].target.find("resourceVersion=14&"), std::string::npos);
    EXPECT_EQ(t.changes, (std::vector<std::string>{"added ns/a@1", "updated ns/a@11", "added ns/b@12", "updated ns/a@13",
                                                   "deleted ns/b@12"}));
    EXPECT_EQ(inf->state().relists(), 0u);
    EXPECT_EQ(inf->cache().size(), 1u);
}

TEST(Informer, WatchListStreamsInitialStateSyncsOnEndBookmarkAndDiffsARelist) {
    InformerRun t;
    // The initial state, then a live change, then 410.
    t.server.script(
        ScriptedReply::watch_stream({event("ADDED", pod("a", "1")), event("ADDED", pod("b", "2")), end_bookmark("5"),
                                     event("MODIFIED", pod("a", "6")),
                                     R"({"type":"ERROR","object":{"kind":"Status","code":410,"reason":"Expired"}})"}));
    // Relist by WatchList at the last version: b is gone, c is new, a unchanged.
    t.server.script(
        ScriptedReply::watch_stream({event("ADDED", pod("a", "6")), event("ADDED", pod("c", "7")), end_bookmark("8")}));
    t.hang_after();
    InformerOptions o;
    auto inf = t.run(o, 3);
    const auto& r = t.server.requests();
    ASSERT_EQ(r.size(), 3u);
    EXPECT_EQ(r[0].target.substr(0, r[0].target.find("&timeoutSeconds")),
              "/api/v1/pods?watch=1&sendInitialEvents=true&resourceVersionMatch=NotOlderThan&allowWatchBookmarks=true");
    EXPECT_EQ(r[1].target.substr(0, r[1].target.find("&timeoutSeconds")),
              "/api/v1/pods?watch=1&sendInitialEvents=true&resourceVersion=6&resourceVersionMatch=NotOlderThan&"
              "allowWatchBookmarks=true");
    EXPECT_EQ(r[2].target.substr(0, r[2].target.find("&timeoutSeconds")),
              "/api/v1/pods?watch=1&resourceVersion=8&allowWatchBookmarks=true");
    EXPECT_EQ(t.changes, (std::vector<std::string>{"added ns/a@1", "added ns/b@2", "updated ns/a@6", "added ns/c@7",
                                                   "deleted ns/b@2"}));
    EXPECT_TRUE(inf->has_synced());
    EXPECT_EQ(t.listed, 2);
    EXPECT_EQ(inf->cache().size(), 2u);
}

TEST(Informer, NotSyncedUntilTheWatchListEndBookmark) {
    InformerRun t;
    t.server.script(ScriptedReply::watch_stream({event("ADDED", pod("a", "1"))}));  // cut short
    t.hang_after();
    InformerOptions o;
    auto inf = t.run(o, 2);
    EXPECT_FALSE(inf->has_synced());
    EXPECT_EQ(t.listed, 0);
    EXPECT_NE(t.server.requests()[1].target.find("sendInitialEvents=true"), std::string::npos);  // starts over
}

TEST(Informer, RefusedWatchListFallsBackToPagedListsForGood) {
    InformerRun t;
    t.server.script(
        ScriptedReply::status(422, "Invalid",
                              "sendInitialEvents is forbidden for watch unless the WatchList feature gate is enabled"));
    t.server.script(ScriptedReply::http(200, list("10", "", {pod("a", "1")})));
    t.server.script(
        ScriptedReply::watch_stream({R"({"type":"ERROR","object":{"kind":"Status","code":410,"reason":"Expired"}})"}));
    t.server.script(ScriptedReply::http(200, list("20", "", {pod("a", "1")})));
    t.hang_after();
    InformerOptions o;
    auto inf = t.run(o, 5);
    const auto& r = t.server.requests();
    ASSERT_EQ(r.size(), 5u);
    EXPECT_EQ(r[1].target, "/api/v1/pods?limit=500");
    EXPECT_EQ(r[3].target, "/api/v1/pods?resourceVersion=10&resourceVersionMatch=NotOlderThan&limit=500");
    EXPECT_TRUE(inf->has_synced());
    EXPECT_FALSE(inf->state().watch_list_enabled());
}

// A protobuf page that does not decode: the informer relists, in JSON from
// then on (whatever the server sent, JSON is what every reader shares).
TEST(Informer, AnUndecodableProtobufListFallsBackToJsonListsForGood) {
    InformerRun t;
    t.server.script(ScriptedReply::http(200, std::string("k8s\0\x12\x05\x12\x03\xff\xff\xff", 11)));
    t.server.script(ScriptedReply::http(200, list("10", "", {pod("a", "1")})));
    t.hang_after();
    InformerOptions o;
    o.fsm.watch_list = false;
    o.protobuf_items = pod_from_protobuf;
    auto inf = t.run(o, 3);
    const auto& r = t.server.requests();
    ASSERT_GE(r.size(), 3u);
    EXPECT_NE(r[0].head.find("application/vnd.kubernetes.protobuf"), std::string::npos);
    EXPECT_EQ(r[1].head.find("protobuf"), std::string::npos);
    EXPECT_TRUE(inf->has_synced());
    EXPECT_EQ(t.changes, (std::vector<std::string>{"added ns/a@1"}));
}

TEST(Informer, MissingResourceIsNotAWatchListRefusal) {
    InformerRun t;
    t.server.script(ScriptedReply::status(404, "NotFound", "the server could not find the requested resource"));
    t.hang_after();
    InformerOptions o;
    auto inf = t.run(o, 2);
    ASSERT_EQ(t.server.requests().size(), 2u);
    EXPECT_NE(t.server.requests()[1].target.find("sendInitialEvents=true"), std::string::npos);
    EXPECT_TRUE(inf->state().watch_list_enabled());
}

TEST(Informer, RelistRefusedAtTheLastVersionFallsBackToAQuorumList) {
    InformerRun t;
    t.server.script(ScriptedReply::http(200, list("10", "", {pod("a", "1")})));
    t.server.script(ScriptedReply::status(410, "Expired", "too old resource version"));
    t.server.script(ScriptedReply::status(410, "Expired", "too old resource version: 10 (40)"));
    t.server.script(ScriptedReply::http(200, list("50", "", {pod("a", "1")})));
    t.hang_after();
    InformerOptions o;
    o.fsm.watch_list = false;
    auto inf = t.run(o, 5);
    const auto& r = t.server.requests();
    ASSERT_EQ(r.size(), 5u);
    EXPECT_EQ(r[2].target, "/api/v1/pods?resourceVersion=10&resourceVersionMatch=NotOlderThan&limit=500");
    EXPECT_EQ(r[3].target, "/api/v1/pods?limit=500");  // quorum
    EXPECT_NE(r[4].target.find("resourceVersion=50"), std::string::npos);
    // The client waited 0.8-1.6 s-style backoff (here 10 ms) before each relist, never zero.
    EXPECT_GE(r[2].at - r[1].at, 10ms);
    EXPECT_GE(r[3].at - r[2].at, 10ms);
}

TEST(Informer, EventThatKeepsFailingToDecodeForcesARelistSoTheCacheCannotStayStale) {
    InformerRun t;
    t.server.script(ScriptedReply::http(200, list("10", "", {pod("a", "1")})));
    const std::string bad = R"({"type":"MODIFIED","object":{"kind":"Pod","metadata":{"name":"a",)";  // truncated JSON
    for (int i = 0; i < 3; ++i) t.server.script(ScriptedReply::watch_stream({bad}));
    // The relist brings the state past the bad event.
    t.server.script(ScriptedReply::http(200, list("30", "", {pod("a", "25")})));
    t.hang_after();
    InformerOptions o;
    o.fsm.watch_list = false;
    auto inf = t.run(o, 6);
    const auto& r = t.server.requests();
    ASSERT_EQ(r.size(), 6u);
    for (int i = 1; i <= 3; ++i) EXPECT_NE(r[i].target.find("watch=1&resourceVersion=10&"), std::string::npos) << i;
    EXPECT_EQ(r[4].target, "/api/v1/pods?resourceVersion=10&resourceVersionMatch=NotOlderThan&limit=500");
    EXPECT_NE(r[5].target.find("resourceVersion=30"), std::string::npos);
    EXPECT_EQ(t.changes, (std::vector<std::string>{"added ns/a@1", "updated ns/a@25"}));
    EXPECT_EQ(inf->state().relists(), 1u);
}

TEST(Informer, ListPagesAreAppliedItemByItemAndARelistDropsOnlyWhatVanished) {
    InformerRun t;
    t.server.script(ScriptedReply::http(200, list("", "c1", {pod("a", "1"), pod("b", "2")})));
    t.server.script(ScriptedReply::http(200, list("10", "", {pod("c", "3")})));
    t.server.script(ScriptedReply::status(410, "Expired", "too old"));
    t.server.script(ScriptedReply::http(200, list("", "c2", {pod("a", "1")})));
    t.server.script(ScriptedReply::http(200, list("20", "", {pod("c", "12")})));
    t.hang_after();
    InformerOptions o;
    o.fsm.watch_list = false;
    o.fsm.page_size = 2;
    auto inf = t.run(o, 6);
    EXPECT_EQ(t.changes, (std::vector<std::string>{"added ns/a@1", "added ns/b@2", "added ns/c@3", "updated ns/c@12",
                                                   "deleted ns/b@2"}));
    EXPECT_EQ(t.listed, 2);
    EXPECT_EQ(inf->cache().size(), 2u);
}

}  // namespace
}  // namespace attune::kube

namespace attune::kube {
namespace {

std::string pod_in(std::string_view ns, std::string_view name, std::string_view rv) {
    return std::string(R"({"kind":"Pod","metadata":{"name":")") + std::string(name) + R"(","namespace":")" +
           std::string(ns) + R"(","resourceVersion":")" + std::string(rv) + R"("},"spec":{"containers":[]}})";
}

std::vector<std::string> targets_without_query(const InformerRun& t) {
    std::vector<std::string> out;
    for (const auto& r : t.server.requests()) out.push_back(r.target.substr(0, r.target.find('?')));
    std::sort(out.begin(), out.end());
    out.erase(std::unique(out.begin(), out.end()), out.end());
    return out;
}

// --watch-namespaces: one informer, one list/watch per namespace under
// /namespaces/<ns>/, one cache; synced only once every namespace listed.
TEST(Informer, OneStreamPerNamespaceFeedsOneCacheAndSyncsWhenEveryNamespaceListed) {
    InformerRun t;
    t.server.script(ScriptedReply::http(200, list("5", "", {})));
    t.server.script(ScriptedReply::http(200, list("7", "", {})));
    // Whichever watch opens first gets a's pod, the other b's: one cache either way.
    t.server.script(ScriptedReply::watch_stream({event("ADDED", pod_in("a", "x", "8"))}));
    t.server.script(ScriptedReply::watch_stream({event("ADDED", pod_in("b", "y", "9"))}));
    t.hang_after();
    t.hang_after();
    InformerOptions o;
    o.fsm.page_size = 2;
    o.fsm.watch_list = false;
    o.targets = list_watch_targets(resources::pods(), WatchScope({"a", "b"}));
    auto inf = t.run(o, 6);
    EXPECT_EQ(targets_without_query(t), (std::vector<std::string>{"/api/v1/namespaces/a/pods", "/api/v1/namespaces/b/pods"}));
    EXPECT_TRUE(inf->has_synced());
    EXPECT_TRUE(inf->not_synced().empty());
    EXPECT_EQ(t.listed, 2);  // one initial state per namespace
    EXPECT_EQ(inf->cache().size(), 2u);
    EXPECT_TRUE(inf->cache().get("a/x"));
    EXPECT_TRUE(inf->cache().get("b/y"));
}

TEST(Informer, NotSyncedWhileOneNamespaceHasNotListed) {
    InformerRun t;
    t.server.script(ScriptedReply::http(200, list("5", "", {})));
    t.hang_after();  // the other namespace's list never answers
    t.hang_after();  // the listed one's watch
    InformerOptions o;
    o.fsm.page_size = 2;
    o.fsm.watch_list = false;
    o.targets = list_watch_targets(resources::pods(), WatchScope({"a", "b"}));
    auto inf = t.run(o, 3);
    EXPECT_EQ(targets_without_query(t), (std::vector<std::string>{"/api/v1/namespaces/a/pods", "/api/v1/namespaces/b/pods"}));
    EXPECT_FALSE(inf->has_synced());
    const auto waiting = inf->not_synced();
    ASSERT_EQ(waiting.size(), 1u);
    EXPECT_TRUE(waiting[0] == "a" || waiting[0] == "b") << waiting[0];
    EXPECT_EQ(t.listed, 1);
}

}  // namespace
}  // namespace attune::kube
