#include "attune/core/model/capabilities.hpp"

#include <gtest/gtest.h>

#include <boost/json/parse.hpp>

namespace attune::core {
namespace {

const ApiResourcesProbe kResize{{"pods", "pods/status", "pods/resize"}, ""};
const OpenApiProbe kOpenApiOk{true, false, ""};

NodeListProbe nodes(std::vector<NodeProbe> n) { return NodeListProbe{std::move(n), ""}; }
NodeProbe ready(std::optional<std::vector<std::string>> features) { return NodeProbe{true, std::move(features)}; }

Capabilities decide(const std::string& version, const NodeListProbe& n, const OpenApiProbe& o = kOpenApiOk) {
    auto r = decide_capabilities({version, ""}, kResize, o, n);
    EXPECT_TRUE(r.ok()) << (r.ok() ? "" : r.error().message);
    return r.ok() ? r.value() : Capabilities{};
}

TEST(ParseGitVersion, DistributionForms) {
    struct Case {
        const char* in;
        std::optional<std::pair<unsigned, unsigned>> want;
    } cases[] = {
        {"v1.36.4+k3s1", std::pair{1u, 36u}},      {"v1.33.5-gke.1234", std::pair{1u, 33u}},
        {"v1.32.9-eks-113cf36", std::pair{1u, 32u}}, {"v1.35.8", std::pair{1u, 35u}},
        {"1.37.0", std::pair{1u, 37u}},            {"v1.38", std::pair{1u, 38u}},
        {"", std::nullopt},                        {"v", std::nullopt},
        {"vX.Y", std::nullopt},                    {"v1", std::nullopt},
        {"v1.x", std::nullopt},                    {"v0.1.0", std::nullopt},
        {"v1.36x", std::nullopt},
    };
    for (const auto& c : cases) EXPECT_EQ(parse_git_version(c.in), c.want) << c.in;
}

TEST(ParseMajorMinor, KernelReleases) {
    EXPECT_EQ(parse_major_minor("5.4.0-150-generic"), (std::pair{5u, 4u}));
    EXPECT_EQ(parse_major_minor("6.8.0-1012-aws"), (std::pair{6u, 8u}));
    EXPECT_EQ(parse_major_minor("4.19.112+"), (std::pair{4u, 19u}));
    EXPECT_EQ(parse_major_minor("6.1"), (std::pair{6u, 1u}));
    EXPECT_EQ(parse_major_minor("0.9"), (std::pair{0u, 9u}));  // only parse_git_version refuses a zero major
    EXPECT_FALSE(parse_major_minor(""));
    EXPECT_FALSE(parse_major_minor("6"));
    EXPECT_FALSE(parse_major_minor("linux-6.8"));
    EXPECT_FALSE(parse_major_minor("v1.36"));
}

// The InPlacePodLevelResources three-way probe (docs/core.md#capabilities).
TEST(Capabilities, DeclaredFeatures_NamePresent_IsTrue) {
    EXPECT_TRUE(decide("v1.35.8", nodes({ready(std::vector<std::string>{"InPlacePodLevelResourcesVerticalScaling"})}))
                    .in_place_pod_level_resources);
}

TEST(Capabilities, DeclaredFeatures_NonEmptyListWithoutName_IsFalse) {
    EXPECT_FALSE(decide("v1.36.4", nodes({ready(std::vector<std::string>{"InPlacePodVerticalScalingInitContainers"})}))
                     .in_place_pod_level_resources);
}

TEST(Capabilities, DeclaredFeatures_EmptyListPlusV1_36_4_IsTrue) {
    EXPECT_TRUE(decide("v1.36.4+k3s1", nodes({ready(std::vector<std::string>{}), ready(std::nullopt)}))
                    .in_place_pod_level_resources);
}

TEST(Capabilities, DeclaredFeatures_EmptyListPlusV1_35_8_IsFalse) {
    EXPECT_FALSE(decide("v1.35.8+k3s1", nodes({ready(std::vector<std::string>{})})).in_place_pod_level_resources);
}

TEST(Capabilities, DeclaredFeatures_ListErrorPlusV1_36_4_IsTrue) {
    EXPECT_TRUE(decide("v1.36.4", NodeListProbe{{}, "nodes is forbidden"}).in_place_pod_level_resources);
}

TEST(Capabilities, DeclaredFeatures_NotReadyNodesDoNotVote) {
    NodeListProbe n = nodes({NodeProbe{false, std::vector<std::string>{"Other"}}, ready(std::nullopt)});
    EXPECT_TRUE(decide("v1.36.4", n).in_place_pod_level_resources);
}

// OpenAPI error + GitVersion v1.35.8 =>
// AllowInPlaceMemoryLimitDecrease == true.
TEST(Capabilities, OpenApiErrorPlusV1_35_8_AllowsMemoryLimitDecrease) {
    const auto c = decide("v1.35.8", nodes({}), OpenApiProbe{false, false, "openapi/v3: 503"});
    EXPECT_TRUE(c.allow_in_place_memory_limit_decrease);
    EXPECT_TRUE(c.pod_level_resources_field);  // version fallback >= 1.34
}

TEST(Capabilities, MemoryClampKeptOn1_33) {
    EXPECT_FALSE(decide("v1.33.5-gke.1234", nodes({})).allow_in_place_memory_limit_decrease);
    EXPECT_TRUE(decide("v1.34.11+k3s1", nodes({})).allow_in_place_memory_limit_decrease);
}

TEST(Capabilities, OnlyAnUnusableServerVersionIsAnError) {
    auto failed = decide_capabilities({"", "connection refused"}, kResize, kOpenApiOk, nodes({}));
    ASSERT_FALSE(failed.ok());
    EXPECT_EQ(failed.error().code, "server_version_unusable");
    auto garbage = decide_capabilities({"banana", ""}, kResize, kOpenApiOk, nodes({}));
    ASSERT_FALSE(garbage.ok());
    // Everything else failing still yields capabilities.
    auto r = decide_capabilities({"v1.36.4", ""}, ApiResourcesProbe{{}, "503"}, OpenApiProbe{false, false, "timeout"},
                                 NodeListProbe{{}, "forbidden"});
    ASSERT_TRUE(r.ok());
    EXPECT_FALSE(r.value().pods_resize);
    EXPECT_TRUE(r.value().pod_level_resources_field);
    EXPECT_TRUE(r.value().in_place_pod_level_resources);
}

TEST(Capabilities, SafeDefaultsKeepTheClampAndEverythingOff) {
    const auto c = safe_defaults();
    EXPECT_FALSE(c.allow_in_place_memory_limit_decrease);
    EXPECT_FALSE(c.pods_resize || c.pod_level_resources_field || c.in_place_pod_level_resources || c.hpa_scale_to_zero);
}

TEST(Capabilities, PodsResizeFromDiscovery) {
    EXPECT_TRUE(decide("v1.33.0", nodes({})).pods_resize);
    auto r = decide_capabilities({"v1.31.0", ""}, ApiResourcesProbe{{"pods"}, ""}, kOpenApiOk, nodes({}));
    EXPECT_FALSE(r.value().pods_resize);
}

TEST(Capabilities, HpaScaleToZeroFromOpenApiOrVersion) {
    EXPECT_TRUE(decide("v1.36.4", nodes({}), OpenApiProbe{true, true, ""}).hpa_scale_to_zero);
    EXPECT_FALSE(decide("v1.36.4", nodes({})).hpa_scale_to_zero);
    EXPECT_TRUE(decide("v1.37.0", nodes({}), OpenApiProbe{false, false, "err"}).hpa_scale_to_zero);
}

TEST(Capabilities, AlphaHooksAreAlwaysFalse) {
    for (const char* v : {"v1.32.0", "v1.37.0", "v1.38.0", "v1.99.0"}) {
        const auto c = decide(v, nodes({ready(std::vector<std::string>{"InPlacePodLevelResourcesVerticalScaling",
                                                                         "InPlacePodVerticalScalingMemoryBackedVolumes"})}));
        EXPECT_FALSE(c.scheduler_resize_preemption) << v;
        EXPECT_FALSE(c.memory_backed_volume_resize) << v;
        EXPECT_FALSE(c.exclusive_cpu_in_place) << v;
    }
}

// The apiserver checks the pod's own node before a pod-level resize (1.36:
// "pod update requires features ... not available on node"), so the
// cluster-wide three-way answer is refined per node.
TEST(Capabilities, NodeAllowsPodLevelResize_PerNode) {
    const auto declaring = ready(std::vector<std::string>{"InPlacePodLevelResourcesVerticalScaling"});
    const auto other = ready(std::vector<std::string>{"SomethingElse"});
    const auto silent = ready(std::nullopt);
    const auto empty = ready(std::vector<std::string>{});

    const Capabilities mixed = decide("v1.36.3", nodes({declaring, silent}));
    ASSERT_TRUE(mixed.in_place_pod_level_resources);
    EXPECT_TRUE(mixed.declared_features_reported);
    EXPECT_TRUE(node_allows_pod_level_resize(mixed, declaring));
    EXPECT_FALSE(node_allows_pod_level_resize(mixed, other));
    EXPECT_FALSE(node_allows_pod_level_resize(mixed, silent));  // refused by the apiserver (e2e/tests/40)
    EXPECT_FALSE(node_allows_pod_level_resize(mixed, empty));

    // Nobody reports lists (k3s/kind style): the cluster-wide fallback decides.
    const Capabilities quiet = decide("v1.36.3", nodes({silent, empty}));
    ASSERT_TRUE(quiet.in_place_pod_level_resources);
    EXPECT_FALSE(quiet.declared_features_reported);
    EXPECT_TRUE(node_allows_pod_level_resize(quiet, silent));

    // Off cluster-wide: no node turns it on.
    EXPECT_FALSE(node_allows_pod_level_resize(decide("v1.35.4", nodes({silent})), declaring));
}

TEST(Capabilities, DecodeNodeProbeKeepsAbsentApartFromEmpty) {
    const auto absent = decode_node_probe(boost::json::parse(R"({"status":{"conditions":[{"type":"Ready","status":"True"}]}})"));
    EXPECT_TRUE(absent.ready);
    EXPECT_FALSE(absent.declared_features.has_value());
    const auto empty = decode_node_probe(boost::json::parse(R"({"status":{"declaredFeatures":[]}})"));
    ASSERT_TRUE(empty.declared_features.has_value());
    EXPECT_TRUE(empty.declared_features->empty());
    EXPECT_FALSE(empty.ready);
    // Malformed objects never throw: they read as not Ready, nothing reported.
    for (const char* bad : {R"([])", R"({"status":7})", R"({"status":{"conditions":"x","declaredFeatures":{}}})"}) {
        const auto p = decode_node_probe(boost::json::parse(bad));
        EXPECT_FALSE(p.ready) << bad;
        EXPECT_FALSE(p.declared_features.has_value()) << bad;
    }
}

// Doctor's cgroup row reads the same list: name, kernel and the NFD label.
TEST(Capabilities, DecodeNodeProbeKeepsNameKernelAndNfdCgroupLabel) {
    const auto n = decode_node_probe(boost::json::parse(R"({"metadata":{"name":"n1","labels":{
        "feature.node.kubernetes.io/kernel.config.CGROUP_V2":"true"}},
        "status":{"nodeInfo":{"kernelVersion":"6.8.0-1012-aws"}}})"));
    EXPECT_EQ(n.name, "n1");
    EXPECT_EQ(n.kernel_version, "6.8.0-1012-aws");
    EXPECT_TRUE(n.kernel_config_cgroup_v2);
    const auto other = decode_node_probe(boost::json::parse(R"({"metadata":{"labels":{
        "feature.node.kubernetes.io/kernel.config.CGROUP_V2":"false"}}})"));
    EXPECT_FALSE(other.kernel_config_cgroup_v2);
    EXPECT_EQ(other.kernel_version, "");
}

// doctor -o json and the manager's log line name every field the same way.
TEST(Capabilities, JsonCarriesEveryFieldByItsLogName) {
    const auto c = decide("v1.36.3", nodes({ready(std::vector<std::string>{std::string(kInPlacePodLevelResourcesFeature)})}));
    const auto j = capabilities_json(c);
    EXPECT_EQ(j.size(), 13u);
    EXPECT_EQ(j.at("git_version").as_string(), "v1.36.3");
    EXPECT_EQ(j.at("minor").to_number<unsigned>(), 36u);
    EXPECT_TRUE(j.at("pods_resize").as_bool());
    EXPECT_TRUE(j.at("in_place_pod_level_resources").as_bool());
    EXPECT_TRUE(j.at("declared_features_reported").as_bool());
    EXPECT_TRUE(j.at("allow_in_place_memory_limit_decrease").as_bool());
    EXPECT_FALSE(j.at("hpa_scale_to_zero").as_bool());
    for (const char* k : {"pod_level_resources_field", "in_place_sidecar_resize", "scheduler_resize_preemption",
                          "memory_backed_volume_resize", "exclusive_cpu_in_place", "major"})
        EXPECT_TRUE(j.contains(k)) << k;
}

// Version-locked: the 1.32 apiserver accepts a sidecar /resize but drops it.
TEST(Capabilities, SidecarResizeFrom1_33) {
    EXPECT_FALSE(decide("v1.32.9", nodes({})).in_place_sidecar_resize);
    EXPECT_TRUE(decide("v1.33.13", nodes({})).in_place_sidecar_resize);
    EXPECT_FALSE(safe_defaults().in_place_sidecar_resize);
}

}  // namespace
}  // namespace attune::core
