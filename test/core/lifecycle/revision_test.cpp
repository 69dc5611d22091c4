#include "attune/core/lifecycle/revision.hpp"

#include <gtest/gtest.h>

#include "attune/core/util/stable_hash.hpp"
#include "test_pods.hpp"

namespace attune::core {
namespace {

using testing::rl;

const WorkloadIdentity kWeb{"apps/v1", "Deployment", "shop", "web", "uid-web"};

std::vector<ContainerResources> two_containers() {
    return {{"app", {rl({{"cpu", "500m"}, {"memory", "1Gi"}}), rl({{"memory", "1Gi"}})}},
            {"proxy", {rl({{"cpu", "100m"}}), {}}}};
}

// Container order does not change the revision.
TEST(RevisionFingerprint, ContainerOrderDoesNotAffectIt) {
    auto a = two_containers();
    auto b = two_containers();
    std::swap(b[0], b[1]);
    EXPECT_EQ(revision_fingerprint(kWeb, a), revision_fingerprint(kWeb, b));
}

// The revision fingerprints the workload's identity and each container's
// name, requests and limits.
TEST(RevisionFingerprint, CoversIdentityNamesRequestsAndLimits) {
    const std::string base = revision_fingerprint(kWeb, two_containers());
    WorkloadIdentity other = kWeb;
    other.uid = "uid-web-2";
    EXPECT_NE(revision_fingerprint(other, two_containers()), base);
    other = kWeb;
    other.kind = "StatefulSet";
    EXPECT_NE(revision_fingerprint(other, two_containers()), base);
    auto renamed = two_containers();
    renamed[1].name = "sidecar";
    EXPECT_NE(revision_fingerprint(kWeb, renamed), base);
    auto request = two_containers();
    request[0].resources.requests.insert_or_assign("cpu", testing::qty("600m"));
    EXPECT_NE(revision_fingerprint(kWeb, request), base);
    auto limit = two_containers();
    limit[1].resources.limits.emplace("cpu", testing::qty("100m"));
    EXPECT_NE(revision_fingerprint(kWeb, limit), base);
    // A request moved to a limit is a different recommendation.
    auto moved = two_containers();
    moved[1].resources.requests.clear();
    moved[1].resources.limits.emplace("cpu", testing::qty("100m"));
    EXPECT_NE(revision_fingerprint(kWeb, moved), base);
}

TEST(RevisionFingerprint, EqualQuantitiesSpelledDifferentlyKeepTheRevision) {
    auto spelled = two_containers();
    spelled[0].resources.requests.insert_or_assign("cpu", testing::qty("0.5"));
    spelled[0].resources.requests.insert_or_assign("memory", testing::qty("1073741824"));
    EXPECT_EQ(revision_fingerprint(kWeb, spelled), revision_fingerprint(kWeb, two_containers()));
}

// Stable across runs and platforms: these constants are the definition.
TEST(RevisionFingerprint, StableAcrossRunsAndPlatforms) {
    // FNV-1a 64 reference values.
    StableHasher empty;
    EXPECT_EQ(empty.digest(), 0xcbf29ce484222325ULL);
    EXPECT_NE(stable_hash({"a"}), stable_hash({"b"}));
    EXPECT_NE(stable_hash({"a"}), stable_hash({"a", ""})) << "an empty field still counts";
    EXPECT_NE(stable_hash({"ab", "c"}), stable_hash({"a", "bc"}));
    const std::string rev = revision_fingerprint(kWeb, two_containers());
    ASSERT_EQ(rev.size(), 20u);
    EXPECT_EQ(rev.rfind("rev-", 0), 0u);
    // Pinned; an independent Python FNV-1a over the documented layout gives
    // the same value. If this changes, every stored revision changes.
    EXPECT_EQ(rev, "rev-b179e91ed8853d47");
}

}  // namespace
}  // namespace attune::core
