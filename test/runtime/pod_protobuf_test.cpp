// Pods listed in protobuf must reach the cache exactly as their JSON does
// after strip_pod: the fixtures are the same pods listed both ways from a real
// apiserver (test/data/pod_lists/README.md says how they were made).
#include <attune/kube/api_error.hpp>
#include <attune/kube/list_decoder.hpp>
#include <attune/kube/object_cache.hpp>
#include <attune/kube/pod_protobuf.hpp>
#include <attune/kube/protobuf_list_decoder.hpp>
#include <attune/kube/protobuf_reader.hpp>
#include <attune/kube/transforms.hpp>

#include <boost/json.hpp>

#include <gtest/gtest.h>

#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

namespace attune::kube {
namespace {
namespace json = boost::json;

std::string read_fixture(const std::string& name) {
    std::ifstream in(std::string(ATTUNE_TEST_DATA_DIR) + "/pod_lists/" + name, std::ios::binary);
    EXPECT_TRUE(in) << name;
    std::stringstream s;
    s << in.rdbuf();
    return s.str();
}

std::string name_of(const json::value& pod) {
    return std::string(meta_string(pod, "namespace")) + "/" + std::string(meta_string(pod, "name"));
}

struct DecodedList {
    std::map<std::string, json::value> pods;
    std::string resource_version, continue_token;
    bool ok = false;
    std::string error;
};

DecodedList from_protobuf(const std::string& body, std::size_t chunk) {
    DecodedList out;
    ProtobufListDecoder d(pod_from_protobuf, [&](json::value&& v) { out.pods[name_of(v)] = std::move(v); });
    bool ok = true;
    for (std::size_t i = 0; i < body.size() && ok; i += chunk) ok = d.feed(std::string_view(body).substr(i, chunk));
    out.ok = ok && d.finish();
    out.error = d.error();
    out.resource_version = d.resource_version();
    out.continue_token = d.continue_token();
    return out;
}

DecodedList from_json_stripped(const std::string& body) {
    DecodedList out;
    ListDecoder d([&](json::value&& v) {
        strip_pod(v.as_object());
        out.pods[name_of(v)] = std::move(v);
    });
    out.ok = d.feed(body) && d.finish();
    out.resource_version = d.resource_version();
    out.continue_token = d.continue_token();
    return out;
}

class ProtobufPodLists : public ::testing::TestWithParam<const char*> {};

TEST_P(ProtobufPodLists, DecodeToExactlyWhatStripPodKeepsOfTheSamePodsInJson) {
    const std::string name = GetParam();
    const auto pb = from_protobuf(read_fixture(name + ".pb"), 1 << 20);
    const auto js = from_json_stripped(read_fixture(name + ".json"));
    ASSERT_TRUE(pb.ok) << pb.error;
    ASSERT_TRUE(js.ok);
    ASSERT_FALSE(js.pods.empty());
    EXPECT_EQ(pb.resource_version.empty(), false);
    EXPECT_EQ(pb.continue_token.empty(), js.continue_token.empty());
    ASSERT_EQ(pb.pods.size(), js.pods.size());
    for (const auto& [key, want] : js.pods) {
        auto it = pb.pods.find(key);
        ASSERT_NE(it, pb.pods.end()) << key;
        // resourceVersions differ when a pod changed between the two captures; nothing else may.
        auto got = it->second;
        auto expected = want;
        got.as_object()["metadata"].as_object().erase("resourceVersion");
        expected.as_object()["metadata"].as_object().erase("resourceVersion");
        EXPECT_EQ(got, expected) << key << "\n protobuf: " << json::serialize(got) << "\n json:     " << json::serialize(expected);
        // The cache stores serialized text: the same length either way (the
        // values are equal above; only the members' order may differ).
        EXPECT_EQ(json::serialize(got).size(), json::serialize(expected).size()) << key;
    }
}

// Fixtures: pods of a Deployment (an init container that ran, a native
// sidecar with resizePolicy, labels, Attune's and other annotations), a pod
// with pod-level resources resized in place, a Pending pod, a pod being
// deleted (deletionTimestamp), a Guaranteed pod; then four of the scale
// benchmark's pods (env, volumes, probes, a sidecar).
INSTANTIATE_TEST_SUITE_P(RealApiserver, ProtobufPodLists,
                         ::testing::Values("fixture-v1.36.3", "bench-v1.36.3"));

TEST(ProtobufListDecoder, ChunkBoundariesAnywhereGiveTheSameItems) {
    const auto body = read_fixture("fixture-v1.36.3.pb");
    const auto whole = from_protobuf(body, body.size());
    ASSERT_TRUE(whole.ok) << whole.error;
    for (std::size_t chunk : {1u, 2u, 3u, 7u, 64u, 1000u, 4096u}) {
        const auto parts = from_protobuf(body, chunk);
        ASSERT_TRUE(parts.ok) << chunk << ": " << parts.error;
        EXPECT_EQ(parts.pods, whole.pods) << chunk;
        EXPECT_EQ(parts.resource_version, whole.resource_version);
    }
}

TEST(ProtobufListDecoder, EveryTruncationIsAnErrorNotAShortList) {
    const auto body = read_fixture("fixture-v1.36.3.pb");
    const auto whole = from_protobuf(body, body.size());
    for (std::size_t cut = 0; cut < body.size(); cut += 97) {
        const auto part = from_protobuf(body.substr(0, cut), 512);
        EXPECT_FALSE(part.ok) << "cut at " << cut;
        EXPECT_FALSE(part.error.empty()) << "cut at " << cut;
        EXPECT_LT(part.pods.size(), whole.pods.size() + 1);
    }
}

TEST(ProtobufListDecoder, CorruptBytesFailWithAReasonAndNeverReadPastTheInput) {
    const auto body = read_fixture("bench-v1.36.3.pb");
    // Flip bytes at many offsets: each run must end (ok or a clear error), never crash.
    std::size_t failures = 0;
    for (std::size_t at = 4; at < body.size(); at += 131) {
        auto bad = body;
        bad[at] = static_cast<char>(bad[at] ^ 0xa5);
        const auto r = from_protobuf(bad, 300);
        if (!r.ok) {
            ++failures;
            EXPECT_FALSE(r.error.empty());
        }
    }
    EXPECT_GT(failures, 0u);
    EXPECT_FALSE(from_protobuf(std::string("{\"kind\":\"PodList\"}"), 16).ok);
    EXPECT_FALSE(from_protobuf(std::string(), 16).ok);
}

TEST(ProtobufListDecoder, AnItemThatDoesNotDecodeFailsTheList) {
    // "k8s\0" + Unknown{raw(2) = PodList{items(2) = "\xff"}}: a Pod of one bad byte.
    const std::string item = "\x12\x01\xff";
    std::string raw = "\x12" + std::string(1, static_cast<char>(item.size())) + item;
    const std::string body = std::string(kProtobufMagic) + raw;
    const auto r = from_protobuf(body, 64);
    EXPECT_FALSE(r.ok);
    EXPECT_NE(r.error.find("list item 0"), std::string::npos) << r.error;
}

TEST(PodProtobuf, TimesAreRfc3339InUtcWholeSeconds) {
    // Pod{metadata{creationTimestamp{seconds=1764604800 (2025-12-01T16:00:00Z), nanos=5}}}
    std::string ts;
    ts += '\x08';  // seconds, varint
    std::uint64_t v = 1764604800;
    while (v >= 0x80) {
        ts += static_cast<char>((v & 0x7f) | 0x80);
        v >>= 7;
    }
    ts += static_cast<char>(v);
    ts += "\x10\x05";  // nanos = 5
    std::string md = "\x42" + std::string(1, static_cast<char>(ts.size())) + ts;  // field 8
    md = "\x0a\x01p" + md;  // name = "p"
    const std::string pod = "\x0a" + std::string(1, static_cast<char>(md.size())) + md;
    auto r = pod_from_protobuf(pod);
    ASSERT_TRUE(r.ok()) << r.error().message;
    EXPECT_EQ(r.value().at("metadata").at("creationTimestamp"), "2025-12-01T16:00:00Z");
    EXPECT_EQ(r.value().at("metadata").at("name"), "p");
    EXPECT_TRUE(r.value().at("spec").at("containers").is_null());
}

TEST(PodProtobuf, ProtobufStatusAnswersBecomeReadableApiErrors) {
    // "k8s\0" + Unknown{typeMeta{kind="Status"}, raw=Status{status="Failure", message="gone", reason="Expired", code=410}}
    std::string status = std::string("\x12\x07") + "Failure" + "\x1a\x04" + "gone" + "\x22\x07" + "Expired" + "\x30\x9a\x03";
    std::string tm = std::string("\x12\x06") + "Status";
    std::string body = std::string(kProtobufMagic) + "\x0a" + std::string(1, static_cast<char>(tm.size())) + tm + "\x12" +
                       std::string(1, static_cast<char>(status.size())) + status;
    const auto e = ApiError::from_response(410, body);
    EXPECT_EQ(e.code, 410);
    EXPECT_EQ(e.reason, "Expired");
    EXPECT_EQ(e.message, "gone");
    const auto garbled = ApiError::from_response(500, std::string(kProtobufMagic) + "\xff\xff");
    EXPECT_NE(garbled.message.find("undecodable protobuf"), std::string::npos) << garbled.message;
}

TEST(ProtobufReader, RejectsTruncatedAndOverlongFields) {
    ProtobufReader::Field f;
    ProtobufReader truncated(
        std::string_view("\x0a\x05"
                         "abc",
                         5));  // 5 bytes announced, 3 there
    EXPECT_FALSE(truncated.next(f));
    EXPECT_TRUE(truncated.failed());
    ProtobufReader overlong(std::string_view("\x08\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\x01", 12));
    EXPECT_FALSE(overlong.next(f));
    EXPECT_TRUE(overlong.failed());
    ProtobufReader group(std::string_view("\x0b", 1));  // start-group: never used by Kubernetes
    EXPECT_FALSE(group.next(f));
    EXPECT_TRUE(group.failed());
    ProtobufReader fine(std::string_view("\x08\x96\x01\x12\x02hi", 7));
    ASSERT_TRUE(fine.next(f));
    EXPECT_EQ(f.number, 1u);
    EXPECT_EQ(f.value, 150u);
    ASSERT_TRUE(fine.next(f));
    EXPECT_EQ(f.bytes, "hi");
    EXPECT_FALSE(fine.next(f));
    EXPECT_FALSE(fine.failed());
}

}  // namespace
}  // namespace attune::kube
