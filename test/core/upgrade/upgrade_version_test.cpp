#include "attune/core/upgrade/upgrade_version.hpp"

#include <gtest/gtest.h>

namespace attune::core {
namespace {

TEST(ParseKubeMinor, MinorsWithOrWithoutPatchAndBuild) {
    EXPECT_EQ(parse_kube_minor("1.36"), (KubeMinor{1, 36}));
    EXPECT_EQ(parse_kube_minor("1.36.2"), (KubeMinor{1, 36}));
    EXPECT_EQ(parse_kube_minor("v1.35.4+k3s1"), (KubeMinor{1, 35}));
    EXPECT_FALSE(parse_kube_minor("136"));
    EXPECT_FALSE(parse_kube_minor("1.x"));
    EXPECT_FALSE(parse_kube_minor(""));
    EXPECT_EQ(KubeMinor({1, 35}).next().str(), "1.36");
    EXPECT_LT((KubeMinor{1, 9}), (KubeMinor{1, 10}));
}

TEST(ParseDottedVersion, NumericComponentsAndIgnoredSuffixes) {
    struct Case {
        const char* in;
        std::vector<unsigned long> want;  // empty: unreadable
    } cases[] = {
        {"v3.29.1", {3, 29, 1}}, {"1.16.2-ubi", {1, 16, 2}}, {"26.3.0", {26, 3, 0}}, {"2.0.0-sim", {2, 0, 0}},
        {"1.7", {1, 7}},         {"v1.13.4+build", {1, 13, 4}}, {"3_amd64", {3}},
        {"latest", {}},          {"", {}},                    {"1..2", {}},          {"release-1.2", {}},
        {"1.2a", {}},
    };
    for (const auto& c : cases) {
        auto v = parse_dotted_version(c.in);
        if (c.want.empty()) {
            EXPECT_FALSE(v) << c.in;
        } else {
            ASSERT_TRUE(v) << c.in;
            EXPECT_EQ(v->parts, c.want) << c.in;
            EXPECT_EQ(v->text, c.in);
        }
    }
}

TEST(DottedVersion, ComparesNumericallyWithMissingPartsAsZero) {
    auto v = [](const char* s) { return *parse_dotted_version(s); };
    EXPECT_LT(v("3.9.0"), v("3.10.0"));
    EXPECT_EQ(v("1.7"), v("1.7.0"));
    EXPECT_GT(v("v2.0.0"), v("1.7.24"));
    EXPECT_LT(v("1.13.4"), v("1.14"));
}

TEST(ImageTag, LastPathComponentBeforeTheDigest) {
    EXPECT_EQ(image_tag("calico/kube-controllers:v3.29.1"), "v3.29.1");
    EXPECT_EQ(image_tag("registry:5000/ns/name:1.2.3@sha256:abcd"), "1.2.3");
    EXPECT_EQ(image_tag("nginx"), std::nullopt);
    EXPECT_EQ(image_tag("registry:5000/ns/name"), std::nullopt);
    EXPECT_EQ(image_tag("name@sha256:abcd"), std::nullopt);
    EXPECT_EQ(image_tag("name:"), std::nullopt);
}

}  // namespace
}  // namespace attune::core
