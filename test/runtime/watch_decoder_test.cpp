#include <attune/kube/watch_decoder.hpp>

#include <gtest/gtest.h>

#include <random>
#include <string>
#include <vector>

namespace attune::kube {
namespace {

std::string event_line(std::string_view type, std::string_view name, std::string_view rv) {
    return std::string(R"({"type":")") + std::string(type) + R"(","object":{"kind":"Pod","metadata":{"name":")" +
           std::string(name) + R"(","resourceVersion":")" + std::string(rv) + R"("},"spec":{"note":"a\nb {}"}}})";
}

std::string stream_of(int n) {
    std::string s;
    for (int i = 0; i < n; ++i) s += event_line(i % 3 ? "MODIFIED" : "ADDED", "p" + std::to_string(i), std::to_string(100 + i)) + "\n";
    return s;
}

std::vector<std::string> split_all(const std::string& data, const std::vector<std::size_t>& cuts, std::size_t max = 1 << 20) {
    WatchLineSplitter sp(max);
    std::vector<std::string> lines;
    auto on = [&](std::string_view l) { lines.emplace_back(l); };
    std::size_t pos = 0;
    for (auto c : cuts) {
        EXPECT_TRUE(sp.feed(std::string_view(data).substr(pos, c - pos), on));
        pos = c;
    }
    EXPECT_TRUE(sp.feed(std::string_view(data).substr(pos), on));
    sp.finish(on);
    return lines;
}

TEST(WatchLineSplitter, EveryTwoWaySplitYieldsTheSameLines) {
    const std::string data = stream_of(3);
    const auto whole = split_all(data, {});
    ASSERT_EQ(whole.size(), 3u);
    for (std::size_t cut = 0; cut <= data.size(); ++cut) {
        EXPECT_EQ(split_all(data, {cut}), whole) << "cut at " << cut;
    }
}

TEST(WatchLineSplitter, RandomChunkingYieldsTheSameEvents) {
    const std::string data = stream_of(50);
    const auto whole = split_all(data, {});
    std::mt19937 gen(1234);
    for (int round = 0; round < 200; ++round) {
        std::vector<std::size_t> cuts;
        std::size_t pos = 0;
        while (true) {
            pos += std::uniform_int_distribution<std::size_t>(1, 97)(gen);
            if (pos >= data.size()) break;
            cuts.push_back(pos);
        }
        const auto lines = split_all(data, cuts);
        ASSERT_EQ(lines, whole);
    }
    for (std::size_t i = 0; i < whole.size(); ++i) {
        auto ev = decode_watch_line(whole[i]);
        ASSERT_TRUE(std::holds_alternative<WatchEvent>(ev));
        EXPECT_EQ(std::get<WatchEvent>(ev).resource_version(), std::to_string(100 + i));
    }
}

TEST(WatchLineSplitter, ByteAtATime) {
    const std::string data = stream_of(5);
    std::vector<std::size_t> cuts;
    for (std::size_t i = 1; i < data.size(); ++i) cuts.push_back(i);
    EXPECT_EQ(split_all(data, cuts).size(), 5u);
}

TEST(WatchLineSplitter, CrLfAndBlankLinesAndFinalLineWithoutNewline) {
    const std::string data = event_line("ADDED", "a", "1") + "\r\n\n" + event_line("ADDED", "b", "2");
    const auto lines = split_all(data, {5});
    ASSERT_EQ(lines.size(), 2u);
    EXPECT_EQ(lines[0].back(), '}');
}

TEST(WatchLineSplitter, OverlongLinePoisonsAndBoundsMemory) {
    WatchLineSplitter sp(64);
    int n = 0;
    auto on = [&](std::string_view) { ++n; };
    EXPECT_TRUE(sp.feed(std::string(40, 'x'), on));
    EXPECT_FALSE(sp.feed(std::string(40, 'x'), on));
    EXPECT_EQ(sp.buffered(), 0u);
    EXPECT_TRUE(sp.overflowed());
    EXPECT_FALSE(sp.feed("\n{}\n", on));
    EXPECT_EQ(n, 0);
    sp.reset();
    EXPECT_TRUE(sp.feed("abc\n", on));
    EXPECT_EQ(n, 1);
}

// An event's object, and every string and container in it, lives in the
// one block decode_watch_line sized to the line: not in the default heap,
// where each would be its own malloc (the watch path's main CPU cost).
TEST(DecodeWatchLine, TheObjectLivesInTheEventsOwnBlockNotTheDefaultHeap) {
    auto r = decode_watch_line(event_line("MODIFIED", "a-pod-name-longer-than-sso", "7"));
    auto* ev = std::get_if<WatchEvent>(&r);
    ASSERT_NE(ev, nullptr);
    const auto* heap = boost::json::storage_ptr().get();
    EXPECT_NE(ev->object.storage().get(), heap);
    const auto& name = ev->object.at("metadata").at("name");
    EXPECT_NE(name.storage().get(), heap);
    EXPECT_EQ(name.storage().get(), ev->object.storage().get());
}

TEST(DecodeWatchLine, BookmarkCarriesOnlyResourceVersion) {
    auto r = decode_watch_line(R"({"type":"BOOKMARK","object":{"kind":"Pod","metadata":{"resourceVersion":"12345","annotations":{"k8s.io/initial-events-end":"true"}}}})");
    ASSERT_TRUE(std::holds_alternative<WatchEvent>(r));
    const auto& ev = std::get<WatchEvent>(r);
    EXPECT_EQ(ev.type, WatchEventType::Bookmark);
    EXPECT_EQ(ev.resource_version(), "12345");
}

TEST(DecodeWatchLine, ExpiredErrorEventIsGone) {
    auto r = decode_watch_line(
        R"J({"type":"ERROR","object":{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"too old resource version: 1 (5)","reason":"Expired","code":410}})J");
    ASSERT_TRUE(std::holds_alternative<WatchEvent>(r));
    const auto& ev = std::get<WatchEvent>(r);
    EXPECT_TRUE(ev.is_gone());
    EXPECT_EQ(ev.status_code(), 410);
    EXPECT_EQ(ev.status_message(), "too old resource version: 1 (5)");
    auto legacy = decode_watch_line(R"({"type":"ERROR","object":{"kind":"Status","reason":"Gone","code":500}})");
    EXPECT_TRUE(std::get<WatchEvent>(legacy).is_gone());
    auto other = decode_watch_line(R"({"type":"ERROR","object":{"kind":"Status","reason":"InternalError","code":500}})");
    EXPECT_FALSE(std::get<WatchEvent>(other).is_gone());
}

TEST(DecodeWatchLine, MalformedInputsAreErrorsNotCrashes) {
    for (const char* bad : {"", "{", "[]", "null", R"({"type":1,"object":{}})", R"({"type":"ADDED"})",
                            R"({"type":"ADDED","object":[]})", R"({"type":"SPLAT","object":{}})",
                            R"({"type":"ADDED","object":{"metadata":{}}})", R"({"type":"ADDED","object":{}} trailing)"}) {
        EXPECT_TRUE(std::holds_alternative<DecodeError>(decode_watch_line(bad))) << bad;
    }
}

TEST(DecodeWatchLine, DeepNestingIsRejected) {
    std::string deep = R"({"type":"ADDED","object":{"metadata":{"resourceVersion":"1"},"x":)";
    for (int i = 0; i < 200; ++i) deep += "[";
    for (int i = 0; i < 200; ++i) deep += "]";
    deep += "}}";
    EXPECT_TRUE(std::holds_alternative<DecodeError>(decode_watch_line(deep)));
}

}  // namespace
}  // namespace attune::kube
