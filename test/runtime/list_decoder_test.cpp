// The streaming List decoder: items come out one at a time whatever the
// chunking, metadata is found before or after the items, and malformed
// bodies are errors, never asserts.
#include <attune/kube/list_decoder.hpp>

#include <boost/json.hpp>

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace attune::kube {
namespace {
namespace json = boost::json;

struct Decoded {
    bool ok = false;
    std::vector<std::string> items;  // serialised back
    std::string rv, cont, error;
};

Decoded decode_in_chunks(std::string_view body, std::size_t chunk) {
    Decoded d;
    ListDecoder dec([&](json::value&& v) { d.items.push_back(json::serialize(v)); });
    bool ok = true;
    for (std::size_t i = 0; i < body.size() && ok; i += chunk) ok = dec.feed(body.substr(i, chunk));
    d.ok = ok && dec.finish();
    d.rv = dec.resource_version();
    d.cont = dec.continue_token();
    d.error = dec.error();
    EXPECT_EQ(dec.items(), d.items.size());
    return d;
}

const std::string kPodList =
    R"({"kind":"PodList","apiVersion":"v1","metadata":{"resourceVersion":"123","continue":"abc\"def","remainingItemCount":7},)"
    R"("items":[{"metadata":{"name":"a","labels":{"items":"x","metadata":"y"}},"spec":{"items":[1,2.5,-3,true,null,"s\u00e9"]}},)"
    R"({"metadata":{"name":"b"},"status":{}}]})";

TEST(ListDecoder, EveryChunkingYieldsTheSameItemsAndMetadata) {
    const auto whole = decode_in_chunks(kPodList, kPodList.size());
    ASSERT_TRUE(whole.ok) << whole.error;
    ASSERT_EQ(whole.items.size(), 2u);
    EXPECT_EQ(json::parse(whole.items[0]), json::parse(R"({"metadata":{"name":"a","labels":{"items":"x","metadata":"y"}},"spec":{"items":[1,2.5,-3,true,null,"sé"]}})"));
    EXPECT_EQ(json::parse(whole.items[1]), json::parse(R"({"metadata":{"name":"b"},"status":{}})"));
    EXPECT_EQ(whole.rv, "123");
    EXPECT_EQ(whole.cont, "abc\"def");
    for (std::size_t chunk : {1u, 2u, 3u, 7u, 64u}) {
        const auto d = decode_in_chunks(kPodList, chunk);
        EXPECT_TRUE(d.ok) << chunk;
        EXPECT_EQ(d.items, whole.items) << chunk;
        EXPECT_EQ(d.rv, "123") << chunk;
        EXPECT_EQ(d.cont, "abc\"def") << chunk;
    }
}

TEST(ListDecoder, MetadataAfterItemsAndAnEmptyList) {
    const auto late = decode_in_chunks(R"({"items":[{"a":1}],"metadata":{"resourceVersion":"9"}})", 5);
    EXPECT_TRUE(late.ok);
    EXPECT_EQ(late.items.size(), 1u);
    EXPECT_EQ(late.rv, "9");
    EXPECT_EQ(late.cont, "");
    const auto empty = decode_in_chunks(R"({"kind":"List","metadata":{"resourceVersion":"5"},"items":[]})", 4);
    EXPECT_TRUE(empty.ok);
    EXPECT_TRUE(empty.items.empty());
    EXPECT_EQ(empty.rv, "5");
    const auto null_items = decode_in_chunks(R"({"metadata":{"resourceVersion":"5"},"items":null})", 4);
    EXPECT_TRUE(null_items.ok);
    EXPECT_TRUE(null_items.items.empty());
}

TEST(ListDecoder, MalformedBodiesAreErrors) {
    for (std::string_view bad : {R"({"items":[{"a":1},)", R"({"items":[{"a":}]})", R"([{"a":1}])", R"({"items":[]} x)",
                                 R"(not json)", R"()"}) {
        const auto d = decode_in_chunks(bad, 3);
        EXPECT_FALSE(d.ok) << bad;
        EXPECT_FALSE(d.error.empty()) << bad;
    }
    // Items complete before the error are delivered: the caller decides.
    EXPECT_EQ(decode_in_chunks(R"({"items":[{"a":1},{"b":)", 100).items.size(), 1u);
}

}  // namespace
}  // namespace attune::kube
