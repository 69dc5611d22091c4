// The informer driving list+watch against the scripted loopback server:
// paging, bookmarks, 410 as an ERROR event and as HTTP status, handlers.
#include "run_coro.hpp"
#include "scripted_tls_server.hpp"
#include "test_certs.hpp"

#include <attune/kube/informer.hpp>

#include <boost/asio/co_spawn.hpp>
#include <boost/asio/detached.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/use_awaitable.hpp>

#include <gtest/gtest.h>

namespace attune::kube {
namespace {
using namespace std::chrono_literals;
using test::pki;
using test::scripted_reply;
using test::scripted_tls_server;
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

TEST(Informer, ListsWatchesAndRelistsOnBothKindsOfGone) {
    asio::io_context io;
    scripted_tls_server server{io, pki().server_cert_pem, pki().server_key_pem};
    server.script(scripted_reply::http(200, list("", "c1", {pod("a", "1")})));
    server.script(scripted_reply::http(200, list("10", "", {pod("b", "2")})));
    server.script(scripted_reply::watch_stream({
        event("MODIFIED", pod("a", "11")),
        R"({"type":"BOOKMARK","object":{"kind":"Pod","metadata":{"resourceVersion":"15"}}})",
        R"({"type":"ERROR","object":{"kind":"Status","status":"Failure","reason":"Expired","code":410,"message":"too old"}})",
        event("MODIFIED", pod("a", "999")),  // after the ERROR: must not be applied
    }));
    server.script(scripted_reply::http(200, list("20", "", {pod("a", "11"), pod("c", "20")})));
    server.script(scripted_reply::status(410, "Expired", "too old resource version"));
    server.script(scripted_reply::http(200, list("30", "", {pod("a", "11"), pod("c", "20")})));
    scripted_reply quiet;
    quiet.pieces.push_back({0ms, "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n"});
    quiet.after = scripted_reply::then::hang;
    server.script(quiet);

    rest_config cfg;
    cfg.host = "127.0.0.1";
    cfg.port = std::to_string(server.port());
    cfg.tls.ca_pem = pki().ca_pem;
    client_settings cs;
    cs.qps = 0;
    client c(io.get_executor(), cfg, cs);

    informer_options io_opts;
    io_opts.type = resources::pods();
    io_opts.transform = strip_pod;
    io_opts.fsm.page_size = 2;
    io_opts.fsm.backoff = {10ms, 2.0, 100ms, 0.0};
    informer inf(c, io_opts, [] { return 0.0; });
    std::vector<std::string> changes;
    inf.add_handler([&](const object_cache::delta& d) {
        static const char* kinds[] = {"added", "updated", "deleted"};
        changes.push_back(std::string(kinds[static_cast<int>(d.what)]) + " " + d.key);
    });
    std::vector<std::string> keys;
    inf.add_handler(enqueue_keys([&](const std::string& k) { keys.push_back(k); }));

    asio::co_spawn(io, inf.run(), asio::detached);
    test::run_coro(io, [&]() -> asio::awaitable<void> {
        asio::steady_timer t(co_await asio::this_coro::executor);
        for (int i = 0; i < 500 && server.requests().size() < 7; ++i) {
            t.expires_after(10ms);
            co_await t.async_wait(asio::use_awaitable);
        }
        t.expires_after(50ms);
        co_await t.async_wait(asio::use_awaitable);
        inf.stop();
    }());

    ASSERT_EQ(server.requests().size(), 7u);
    const auto& r = server.requests();
    EXPECT_EQ(r[0].target, "/api/v1/pods?limit=2");
    EXPECT_EQ(r[1].target, "/api/v1/pods?continue=c1&limit=2");
    EXPECT_EQ(r[2].target.substr(0, r[2].target.find("&timeoutSeconds")),
              "/api/v1/pods?watch=1&resourceVersion=10&allowWatchBookmarks=true");
    EXPECT_EQ(r[3].target, "/api/v1/pods?limit=2");  // ERROR 410: fresh list
    EXPECT_NE(r[4].target.find("resourceVersion=20"), std::string::npos);
    EXPECT_EQ(r[5].target, "/api/v1/pods?limit=2");  // HTTP 410: fresh list
    EXPECT_NE(r[6].target.find("resourceVersion=30"), std::string::npos);

    EXPECT_EQ(changes, (std::vector<std::string>{"added ns/a", "added ns/b", "updated ns/a", "added ns/c", "deleted ns/b"}));
    EXPECT_EQ(keys.size(), changes.size());
    EXPECT_TRUE(inf.has_synced());
    EXPECT_EQ(inf.cache().size(), 2u);
    auto a = inf.cache().get("ns/a");
    ASSERT_TRUE(a);
    EXPECT_EQ(meta_string(*a, "resourceVersion"), "11");
    EXPECT_FALSE(a->at("metadata").as_object().contains("managedFields"));
    EXPECT_FALSE(a->at("spec").as_object().contains("volumes"));
    EXPECT_EQ(inf.state().relists(), 2u);
    EXPECT_EQ(inf.state().resource_version(), "30");
}

TEST(Informer, BrokenStreamResumesFromLastSeenVersionWithoutDuplicates) {
    asio::io_context io;
    scripted_tls_server server{io, pki().server_cert_pem, pki().server_key_pem};
    server.script(scripted_reply::http(200, list("10", "", {pod("a", "1")})));
    // Two events, then the connection is reset in the middle of the third line.
    auto broken = scripted_reply::watch_stream({event("MODIFIED", pod("a", "11")), event("ADDED", pod("b", "12"))});
    // (Pauses so the client has read everything before the RST discards it.)
    broken.pieces.push_back({50ms, event("MODIFIED", pod("a", "13")).substr(0, 30)});
    broken.pieces.push_back({100ms, ""});
    broken.after = scripted_reply::then::reset;
    server.script(broken);
    server.script(scripted_reply::watch_stream({event("MODIFIED", pod("a", "13")), event("DELETED", pod("b", "14"))}));
    scripted_reply quiet;
    quiet.pieces.push_back({0ms, "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n"});
    quiet.after = scripted_reply::then::hang;
    server.script(quiet);

    rest_config cfg;
    cfg.host = "127.0.0.1";
    cfg.port = std::to_string(server.port());
    cfg.tls.ca_pem = pki().ca_pem;
    client_settings cs;
    cs.qps = 0;
    client c(io.get_executor(), cfg, cs);
    informer_options opts;
    opts.type = resources::pods();
    opts.storage = cache_storage::compact_text;
    opts.fsm.backoff = {10ms, 2.0, 100ms, 0.0};
    informer inf(c, opts, [] { return 0.0; });
    std::vector<std::string> changes;
    inf.add_handler([&](const object_cache::delta& d) {
        static const char* kinds[] = {"added", "updated", "deleted"};
        changes.push_back(std::string(kinds[static_cast<int>(d.what)]) + " " + d.key + "@" +
                          std::string(meta_string(d.new_object ? *d.new_object : *d.old_object, "resourceVersion")));
    });
    asio::co_spawn(io, inf.run(), asio::detached);
    test::run_coro(io, [&]() -> asio::awaitable<void> {
        asio::steady_timer t(co_await asio::this_coro::executor);
        for (int i = 0; i < 500 && server.requests().size() < 4; ++i) {
            t.expires_after(10ms);
            co_await t.async_wait(asio::use_awaitable);
        }
        t.expires_after(50ms);
        co_await t.async_wait(asio::use_awaitable);
        inf.stop();
    }());
    ASSERT_EQ(server.requests().size(), 4u);
    EXPECT_NE(server.requests()[1].target.find("resourceVersion=10&"), std::string::npos);
    EXPECT_NE(server.requests()[2].target.find("resourceVersion=12&"), std::string::npos);  // resume point
    EXPECT_NE(server.requests()[3].target.find("resourceVersion=14&"), std::string::npos);
    EXPECT_EQ(changes, (std::vector<std::string>{"added ns/a@1", "updated ns/a@11", "added ns/b@12", "updated ns/a@13",
                                                 "deleted ns/b@12"}));
    EXPECT_EQ(inf.state().relists(), 0u);
    EXPECT_EQ(inf.cache().size(), 1u);
}

}  // namespace
}  // namespace attune::kube
