#include "attune/core/resize/envelope.hpp"

#include <gtest/gtest.h>

#include "test_pods.hpp"

namespace attune::core {
namespace {

using testing::pod_from_json;
using testing::qty;
using testing::rl;

// app 500m + proxy sidecar 250m + an excluded "metrics" container 250m.
constexpr const char* kSidecarPod = R"({"spec":{
  "initContainers":[{"name":"setup","resources":{"requests":{"cpu":"2"}}},
                    {"name":"proxy","restartPolicy":"Always","resources":{"requests":{"cpu":"250m","memory":"64Mi"}}}],
  "containers":[{"name":"app","resources":{"requests":{"cpu":"500m","memory":"256Mi"},"limits":{"cpu":"1","memory":"512Mi"}}},
                {"name":"metrics","resources":{"requests":{"cpu":"250m"},"limits":{"cpu":"2"}}}]}})";

TEST(SumContainerRequests, NativeSidecarsAndExcludedContainersCount) {
    Pod p = pod_from_json(kSidecarPod);
    // setup (regular init, 2 CPU) runs alone before the sidecar: its peak
    // 2 beats the steady 1; memory: 256Mi + 64Mi.
    EXPECT_EQ(sum_container_requests(p, "cpu"), qty("2"));
    EXPECT_EQ(sum_container_requests(p, "memory"), qty("320Mi"));
    p.init_containers[0].resources.requests.clear();
    EXPECT_EQ(sum_container_requests(p, "cpu"), qty("1"));  // 500m + 250m + 250m sidecar
}

TEST(MaxContainerLimit, HighestSingleLimitNotTheSum) {
    const Pod p = pod_from_json(kSidecarPod);
    EXPECT_EQ(max_container_limit(p, "cpu"), qty("2"));
    EXPECT_EQ(max_container_limit(p, "memory"), qty("512Mi"));
}

Pod one_container(const char* envelope, const char* container) {
    return pod_from_json(std::string(R"({"spec":{"resources":)") + envelope + R"(,"containers":[{"name":"app","resources":)" +
                         container + "}]}}");
}

// Burstable raise past the limit
// ({req:1, lim:2} + request 2.5 -> {2.5, 2.5}, never {2.5, 2}).
TEST(RaiseEnvelope, BurstableRaisePastLimit) {
    const Pod p = one_container(R"({"requests":{"cpu":"1"},"limits":{"cpu":"2"}})", R"({"requests":{"cpu":"2500m"}})");
    auto r = raise_envelope(p.pod_resources, p, QosClass::Burstable);
    ASSERT_TRUE(r.has_value());
    EXPECT_EQ(r->next.requests.at("cpu"), qty("2.5"));
    EXPECT_EQ(r->next.limits.at("cpu"), qty("2.5"));
    EXPECT_TRUE(r->limits_raised);
}

// One container limit above the envelope -> raise the
// envelope limit to that one container.
TEST(RaiseEnvelope, OneContainerLimitAboveEnvelope) {
    const Pod p = one_container(R"({"requests":{"memory":"1Gi"},"limits":{"memory":"2Gi"}})",
                                R"({"requests":{"memory":"1Gi"},"limits":{"memory":"3Gi"}})");
    auto r = raise_envelope(p.pod_resources, p, QosClass::Burstable);
    EXPECT_EQ(r->next.limits.at("memory").to_string(), "3Gi");
    EXPECT_EQ(r->next.requests.at("memory").to_string(), "1Gi");
}

// A sum of limits above the envelope stays legal; do
// not raise to the sum.
TEST(RaiseEnvelope, SumOfLimitsAboveEnvelopeStaysLegalAndUnraised) {
    const Pod p = pod_from_json(R"({"spec":{"resources":{"requests":{"cpu":"1"},"limits":{"cpu":"2"}},
      "containers":[{"name":"a","resources":{"requests":{"cpu":"500m"},"limits":{"cpu":"2"}}},
                    {"name":"b","resources":{"requests":{"cpu":"500m"},"limits":{"cpu":"2"}}}]}})");
    EXPECT_TRUE(exceeds_envelope(p, *p.pod_resources).empty());
    auto r = raise_envelope(p.pod_resources, p, QosClass::Burstable);
    EXPECT_FALSE(r->raised);
    EXPECT_EQ(r->next.limits.at("cpu"), qty("2"));
}

// Hugepages are copied through.
TEST(RaiseEnvelope, HugepagesCopiedThrough) {
    const Pod p = one_container(R"({"requests":{"cpu":"1","hugepages-2Mi":"64Mi"},"limits":{"cpu":"1","hugepages-2Mi":"64Mi"}})",
                                R"({"requests":{"cpu":"2"},"limits":{"cpu":"2"}})");
    auto r = raise_envelope(p.pod_resources, p, QosClass::Burstable);
    EXPECT_EQ(r->next.requests.at("hugepages-2Mi").to_string(), "64Mi");
    EXPECT_EQ(r->next.limits.at("hugepages-2Mi").to_string(), "64Mi");
    EXPECT_EQ(r->next.requests.at("cpu"), qty("2"));
}

TEST(RaiseEnvelope, GuaranteedRaisesLimitsWithRequests) {
    const Pod p = one_container(R"({"requests":{"cpu":"2","memory":"1Gi"},"limits":{"cpu":"2","memory":"1Gi"}})",
                                R"({"requests":{"cpu":"3"},"limits":{"cpu":"4"}})");
    auto r = raise_envelope(p.pod_resources, p, QosClass::Guaranteed);
    EXPECT_EQ(r->next.requests.at("cpu"), qty("4"));
    EXPECT_EQ(r->next.limits.at("cpu"), qty("4"));
    EXPECT_EQ(r->next.requests.at("memory"), r->next.limits.at("memory"));
}

// Never invent an envelope, never shrink one.
TEST(RaiseEnvelope, NeverInventsAnEnvelope) {
    const Pod p = pod_from_json(R"({"spec":{"containers":[{"name":"app","resources":{"requests":{"cpu":"2"}}}]}})");
    EXPECT_FALSE(raise_envelope(p.pod_resources, p, QosClass::Burstable).has_value());
}

TEST(RaiseEnvelope, NeverShrinks) {
    const Pod p = one_container(R"({"requests":{"cpu":"4","memory":"4Gi"},"limits":{"cpu":"8"}})",
                                R"({"requests":{"cpu":"100m","memory":"64Mi"},"limits":{"cpu":"200m"}})");
    auto r = raise_envelope(p.pod_resources, p, QosClass::Burstable);
    EXPECT_FALSE(r->raised);
    EXPECT_EQ(r->next, *p.pod_resources);
}

TEST(RaiseEnvelope, NeverAddsAKeyTheEnvelopeDidNotHave) {
    const Pod p = one_container(R"({"requests":{"cpu":"1"}})", R"({"requests":{"cpu":"2","memory":"1Gi"},"limits":{"cpu":"3"}})");
    auto r = raise_envelope(p.pod_resources, p, QosClass::Burstable);
    EXPECT_EQ(r->next.requests.size(), 1u);
    EXPECT_TRUE(r->next.limits.empty());
    EXPECT_EQ(r->next.requests.at("cpu"), qty("2"));
}

// At CREATE, a pod with an envelope whose container requests were mutated
// gets its envelope raised: the webhook calls the same helper after
// writing its targets (and any startup boost) onto the pod.
TEST(RaiseEnvelope, CreateWithEnvelopeAndMutatedRequestsRaisesTheEnvelope) {
    Pod created = one_container(R"({"requests":{"cpu":"1","memory":"1Gi"},"limits":{"cpu":"2","memory":"2Gi"}})",
                                R"({"requests":{"cpu":"500m","memory":"512Mi"}})");
    created.containers[0].resources.requests.insert_or_assign("cpu", qty("1500m"));  // boosted on CREATE
    auto r = raise_envelope(created.pod_resources, created, compute_pod_qos(created, true));
    EXPECT_EQ(r->next.requests.at("cpu"), qty("1.5"));
    EXPECT_EQ(r->next.limits.at("cpu"), qty("2"));
    EXPECT_EQ(r->next.requests.at("memory"), qty("1Gi"));
}

// Template persistence raises the template's envelope from the post-overlay
// spec and its QoS class; a template without one does not get one invented.
TEST(RaiseEnvelope, PersistRaisesTheTemplateEnvelopeAndLiveNilInventsNone) {
    Pod post_overlay = one_container(R"({"requests":{"memory":"1Gi"},"limits":{"memory":"1Gi"}})",
                                     R"({"requests":{"memory":"1536Mi"},"limits":{"memory":"1536Mi"}})");
    auto r = raise_envelope(post_overlay.pod_resources, post_overlay, QosClass::Guaranteed);
    EXPECT_EQ(r->next.requests.at("memory").to_string(), "1536Mi");
    EXPECT_EQ(r->next.limits.at("memory").to_string(), "1536Mi");
    post_overlay.pod_resources.reset();  // template without an envelope
    EXPECT_FALSE(raise_envelope(post_overlay.pod_resources, post_overlay, QosClass::Guaranteed).has_value());
}

TEST(ExceedsEnvelope, ReportsSumAndSingleLimitViolations) {
    const Pod p = one_container(R"({"requests":{"cpu":"1"},"limits":{"memory":"1Gi"}})", R"({"requests":{"cpu":"500m"}})");
    EXPECT_TRUE(exceeds_envelope(p, *p.pod_resources).empty());
    ResourceRequirements proposed{rl({{"cpu", "1500m"}}), rl({{"memory", "2Gi"}})};
    const auto why = exceeds_envelope(p, "app", proposed, *p.pod_resources);
    ASSERT_EQ(why.size(), 2u);
    EXPECT_EQ(why[0], "requests.cpu: containers need 1500m, envelope has 1000m");
    EXPECT_EQ(why[1], "limits.memory: container app limit 2Gi exceeds envelope 1Gi");
}

// The capacity and quota gates count a pod as max(sum, envelope) for
// requests; limits come from the envelope, else the container aggregate.
TEST(PodTotals, RequestsAndLimitsAsTheSchedulerAndQuotaCountThem) {
    const Pod enveloped = one_container(R"({"requests":{"cpu":"2"},"limits":{"cpu":"4"}})",
                                        R"({"requests":{"cpu":"500m","memory":"256Mi"},"limits":{"cpu":"1","memory":"512Mi"}})");
    EXPECT_EQ(pod_requests(enveloped).at("cpu"), qty("2"));
    EXPECT_EQ(pod_requests(enveloped).at("memory").to_string(), "256Mi");
    EXPECT_EQ(pod_limits(enveloped).at("cpu"), qty("4"));
    EXPECT_EQ(pod_limits(enveloped).at("memory").to_string(), "512Mi");
    const Pod bare = testing::pod_from_json(R"({"spec":{
      "initContainers":[{"name":"setup","resources":{"limits":{"cpu":"3"}}},{"name":"proxy","restartPolicy":"Always",
        "resources":{"requests":{"cpu":"100m"},"limits":{"cpu":"200m"}}}],
      "containers":[{"name":"app","resources":{"requests":{"cpu":"1"},"limits":{"cpu":"1"}}}]}})");
    EXPECT_EQ(pod_requests(bare).at("cpu"), qty("1100m"));
    EXPECT_EQ(pod_limits(bare).at("cpu"), qty("3"));  // the init container's peak
    EXPECT_FALSE(pod_limits(bare).contains("memory"));
}

}  // namespace
}  // namespace attune::core
