#include "attune/core/resize/plan_resize.hpp"
#include "attune/core/resize/qos_compat.hpp"

#include <gtest/gtest.h>

#include <boost/json.hpp>

#include "test_pods.hpp"

namespace attune::core {
namespace {

using testing::pod_from_json;
using testing::qty;
using testing::rl;

Capabilities caps(unsigned minor, bool in_place_envelope) {
    Capabilities c;
    c.major = 1;
    c.minor = minor;
    c.git_version = "v1." + std::to_string(minor) + ".0";
    c.pods_resize = true;
    c.pod_level_resources_field = minor >= 34;
    c.in_place_pod_level_resources = in_place_envelope;
    c.allow_in_place_memory_limit_decrease = minor >= 34;
    c.in_place_sidecar_resize = minor >= 33;
    return c;
}

ContainerTarget target(const char* name, ResourceList requests, ResourceList limits = {}) {
    return ContainerTarget{name, {std::move(requests), std::move(limits)}, std::nullopt};
}

// By value: callers bind the result of plan_resize(...) temporaries.
ResizePlan as_plan(const PlanOutcome& o) {
    if (const auto* s = std::get_if<Skip>(&o)) ADD_FAILURE() << "skipped: " << s->reason << ": " << s->message;
    const auto* p = std::get_if<ResizePlan>(&o);
    return p ? *p : ResizePlan{};
}

std::string skip_reason(const PlanOutcome& o) {
    const auto* s = std::get_if<Skip>(&o);
    return s ? s->reason : std::string("planned: ") + boost::json::serialize(std::get<ResizePlan>(o).body);
}

constexpr const char* kBurstableEnvelope = R"({"spec":{"resources":{"requests":{"cpu":"1","memory":"1Gi"},"limits":{"cpu":"2","memory":"2Gi"}},
  "containers":[{"name":"app","resources":{"requests":{"cpu":"1","memory":"1Gi"},"limits":{"cpu":"1","memory":"2Gi"}}}]},
  "status":{"qosClass":"Burstable"}})";

// One /resize body carries both the containers and spec.resources when the
// capabilities allow it; the container targets are on the spec before the
// envelope is raised. Also the Burstable raise past the limit.
TEST(PlanResize, OneAtomicBodyWithContainersAndRaisedEnvelope) {
    const Pod p = pod_from_json(kBurstableEnvelope);
    const ContainerTarget t[] = {target("app", rl({{"cpu", "2500m"}}), rl({{"cpu", "2500m"}}))};
    const auto& plan = as_plan(plan_resize(p, t, caps(36, true), ControlledValues::RequestsAndLimits));
    const auto expected = boost::json::parse(R"({"spec":{
      "containers":[{"name":"app","resources":{"requests":{"cpu":"2500m","memory":"1Gi"},"limits":{"cpu":"2500m","memory":"2Gi"}}}],
      "resources":{"requests":{"cpu":"2500m","memory":"1Gi"},"limits":{"cpu":"2500m","memory":"2Gi"}}}})");
    EXPECT_EQ(boost::json::value(plan.body), expected) << boost::json::serialize(plan.body);
    // Capacity pre-check input: max(sum of containers, envelope requests).
    EXPECT_EQ(plan.pod_requests.at("cpu"), qty("2.5"));
    EXPECT_EQ(plan.pod_requests.at("memory"), qty("1Gi"));
}

// The apiserver checks the pod's own node before it raises spec.resources:
// an envelope that must grow on a node that does not declare the feature is
// skipped, while a container-only change inside the envelope still plans.
TEST(PlanResize, EnvelopeRaiseNeedsThePodsNodeToDeclareTheFeature) {
    const Pod p = pod_from_json(kBurstableEnvelope);
    Capabilities c = caps(36, true);
    c.declared_features_reported = true;
    PlanOptions on_silent_node;
    on_silent_node.node = NodeProbe{true, std::vector<std::string>{}};
    const ContainerTarget grow[] = {target("app", rl({{"cpu", "2500m"}}), rl({{"cpu", "2500m"}}))};
    const auto o = plan_resize(p, grow, c, ControlledValues::RequestsAndLimits, on_silent_node);
    ASSERT_EQ(skip_reason(o), "envelope_constraint");
    EXPECT_NE(std::get<Skip>(o).message.find("does not declare"), std::string::npos);

    const ContainerTarget shrink[] = {target("app", rl({{"cpu", "500m"}}), rl({{"cpu", "1"}}))};
    const auto& inside = as_plan(plan_resize(p, shrink, c, ControlledValues::RequestsAndLimits, on_silent_node));
    EXPECT_FALSE(inside.envelope.has_value());
    EXPECT_FALSE(inside.body.at("spec").as_object().contains("resources"));

    PlanOptions on_declaring_node;
    on_declaring_node.node = NodeProbe{true, std::vector<std::string>{std::string(kInPlacePodLevelResourcesFeature)}};
    EXPECT_TRUE(as_plan(plan_resize(p, grow, c, ControlledValues::RequestsAndLimits, on_declaring_node)).envelope);
}

// RequestsOnly against an existing envelope limit -> skip
// (envelope_constraint), no limit lift.
TEST(PlanResize, RequestsOnlyWillNotLiftABurstableEnvelopeLimit) {
    const Pod p = pod_from_json(kBurstableEnvelope);
    const ContainerTarget t[] = {target("app", rl({{"cpu", "2500m"}}))};
    // The container limit (1) caps the request under RequestsOnly, so use a
    // pod whose container has no cpu limit.
    Pod open = p;
    open.containers[0].resources.limits.erase("cpu");
    const auto o = plan_resize(open, t, caps(36, true), ControlledValues::RequestsOnly);
    EXPECT_EQ(skip_reason(o), "envelope_constraint");
}

TEST(PlanResize, RequestsOnlyWithinTheEnvelopeLimitRaisesRequestsOnly) {
    Pod p = pod_from_json(kBurstableEnvelope);
    p.containers[0].resources.limits.erase("cpu");
    const ContainerTarget t[] = {target("app", rl({{"cpu", "1500m"}}))};
    const auto& plan = as_plan(plan_resize(p, t, caps(36, true), ControlledValues::RequestsOnly));
    ASSERT_TRUE(plan.envelope.has_value());
    EXPECT_EQ(plan.envelope->requests.at("cpu"), qty("1.5"));
    EXPECT_EQ(plan.envelope->limits.at("cpu"), qty("2"));
}

// A Guaranteed envelope with a RequestsOnly container target
// is allowed when envelope request==limit and in-place is on.
TEST(PlanResize, GuaranteedEnvelopeWithRequestsOnlyTargetIsAllowed) {
    const Pod p = pod_from_json(R"({"spec":{"resources":{"requests":{"cpu":"2","memory":"2Gi"},"limits":{"cpu":"2","memory":"2Gi"}},
      "containers":[{"name":"app","resources":{"requests":{"cpu":"1","memory":"1Gi"}}}]},"status":{"qosClass":"Guaranteed"}})");
    const ContainerTarget t[] = {target("app", rl({{"cpu", "1500m"}, {"memory", "1536Mi"}}))};
    const auto& plan = as_plan(plan_resize(p, t, caps(36, true), ControlledValues::RequestsOnly));
    EXPECT_FALSE(plan.envelope.has_value());  // still covers: no raise needed
    EXPECT_FALSE(plan.body.at("spec").as_object().contains("resources"));
    // Above the envelope, a Guaranteed envelope rises with request == limit.
    const ContainerTarget big[] = {target("app", rl({{"cpu", "3"}}))};
    const auto& raised = as_plan(plan_resize(p, big, caps(36, true), ControlledValues::RequestsOnly));
    ASSERT_TRUE(raised.envelope.has_value());
    EXPECT_EQ(raised.envelope->requests.at("cpu"), qty("3"));
    EXPECT_EQ(raised.envelope->limits.at("cpu"), qty("3"));
}

// In-place pod-level resize off, an envelope set, and an increase that would
// exceed it -> ResizeSkipped and a history entry envelope_constraint.
TEST(PlanResize, InPlaceOffIncreaseThatWouldExceedIsSkipped) {
    const Pod p = pod_from_json(kBurstableEnvelope);
    const ContainerTarget t[] = {target("app", rl({{"cpu", "1500m"}}), rl({{"cpu", "1500m"}}))};
    const auto o = plan_resize(p, t, caps(35, false), ControlledValues::RequestsAndLimits);
    ASSERT_EQ(skip_reason(o), "envelope_constraint");
    EXPECT_NE(std::get<Skip>(o).message.find("requests.cpu: containers need 1500m, envelope has 1000m"),
              std::string::npos);
}

// Decreases that stay under the envelope could be expected to pass, but the
// real 1.33-1.35 apiservers forbid resizing any pod with pod-level
// resources when in-place pod-level resize is off (found by the core e2e on
// 1.35.4), so those are skipped too. An empty envelope object blocks nothing.
TEST(PlanResize, InPlaceOffAnyResizeOfAPodWithAnEnvelopeIsSkipped) {
    const Pod p = pod_from_json(kBurstableEnvelope);
    const ContainerTarget t[] = {target("app", rl({{"cpu", "500m"}}))};
    EXPECT_EQ(skip_reason(plan_resize(p, t, caps(35, false), ControlledValues::RequestsOnly)), "envelope_constraint");
    Pod empty = p;
    empty.pod_resources = ResourceRequirements{};
    const auto& plan = as_plan(plan_resize(empty, t, caps(35, false), ControlledValues::RequestsOnly));
    EXPECT_FALSE(plan.body.at("spec").as_object().contains("resources"));
    EXPECT_EQ(plan.pod_requests.at("cpu"), qty("500m"));
}

TEST(PlanResize, CapacityPreCheckUsesTheLargerOfContainerSumAndEnvelope) {
    Pod p = pod_from_json(kBurstableEnvelope);
    p.containers[0].resources.limits.erase("cpu");
    const ContainerTarget t[] = {target("app", rl({{"cpu", "500m"}}))};
    const auto& plan = as_plan(plan_resize(p, t, caps(36, true), ControlledValues::RequestsOnly));
    EXPECT_FALSE(plan.envelope.has_value());           // never shrinks
    EXPECT_EQ(plan.pod_requests.at("cpu"), qty("1"));  // envelope 1 > containers 500m
}

// Never invent an envelope on a pod without spec.resources.
TEST(PlanResize, NoEnvelopeMeansContainerOnlyResize) {
    const Pod p = pod_from_json(R"({"spec":{"containers":[{"name":"app","resources":{"requests":{"cpu":"1"}}}]}})");
    const ContainerTarget t[] = {target("app", rl({{"cpu", "4"}}))};
    const auto& plan = as_plan(plan_resize(p, t, caps(36, true), ControlledValues::RequestsOnly));
    EXPECT_FALSE(plan.body.at("spec").as_object().contains("resources"));
    EXPECT_FALSE(plan.planned.pod_resources.has_value());
}

TEST(PlanResize, NativeSidecarGoesUnderInitContainers) {
    const Pod p = pod_from_json(R"({"spec":{"initContainers":[{"name":"proxy","restartPolicy":"Always","resources":{"requests":{"cpu":"100m"}}},
      {"name":"setup","resources":{"requests":{"cpu":"100m"}}}],
      "containers":[{"name":"app","resources":{"requests":{"cpu":"1"}}}]}})");
    const ContainerTarget t[] = {target("proxy", rl({{"cpu", "200m"}}))};
    const auto& plan = as_plan(plan_resize(p, t, caps(36, true), ControlledValues::RequestsOnly));
    EXPECT_EQ(boost::json::serialize(plan.body),
              R"({"spec":{"initContainers":[{"name":"proxy","resources":{"requests":{"cpu":"200m"}}}]}})");
    const ContainerTarget init[] = {target("setup", rl({{"cpu", "200m"}}))};
    EXPECT_EQ(skip_reason(plan_resize(p, init, caps(36, true), ControlledValues::RequestsOnly)), "not_resizable");
    const ContainerTarget ghost[] = {target("ghost", rl({{"cpu", "200m"}}))};
    EXPECT_EQ(skip_reason(plan_resize(p, ghost, caps(36, true), ControlledValues::RequestsOnly)), "container_not_found");
}

TEST(PlanResize, QosChangeIsSkipped) {
    // Guaranteed without envelope: lowering only the request flips it.
    const Pod p = pod_from_json(R"({"spec":{"containers":[{"name":"app","resources":{"requests":{"cpu":"1","memory":"1Gi"},"limits":{"cpu":"1","memory":"1Gi"}}}]},
      "status":{"qosClass":"Guaranteed"}})");
    const ContainerTarget t[] = {target("app", rl({{"cpu", "500m"}}))};
    EXPECT_EQ(skip_reason(plan_resize(p, t, caps(36, true), ControlledValues::RequestsOnly)), "InPlaceResizeWouldChangeQoSClass");
    const ContainerTarget both[] = {target("app", rl({{"cpu", "500m"}}), rl({{"cpu", "500m"}}))};
    EXPECT_EQ(as_plan(plan_resize(p, both, caps(36, true), ControlledValues::RequestsAndLimits)).body.size(), 1u);
}

TEST(PlanResize, BestEffortCannotGainRequests) {
    const Pod p = pod_from_json(R"({"spec":{"containers":[{"name":"app"}]},"status":{"qosClass":"BestEffort"}})");
    const ContainerTarget t[] = {target("app", rl({{"cpu", "100m"}}))};
    const auto o = plan_resize(p, t, caps(36, true), ControlledValues::RequestsOnly);
    ASSERT_EQ(skip_reason(o), "InPlaceResizeWouldChangeQoSClass");
    // One QoS check (check_qos_compatibility): its message says what to change.
    EXPECT_NE(std::get<Skip>(o).message.find("add initial resources to the workload template"), std::string::npos);
}

// plan_resize and the lifecycle's check_qos_compatibility are one rule: for
// the pod plan_resize would submit, the overlay form agrees.
TEST(PlanResize, QosSkipAgreesWithTheLifecycleCheck) {
    const Pod p = pod_from_json(R"({"spec":{"containers":[{"name":"app","resources":{"requests":{"cpu":"1","memory":"1Gi"},"limits":{"cpu":"1","memory":"1Gi"}}}]}})");
    const ContainerTarget t[] = {target("app", rl({{"cpu", "500m"}}))};
    const auto o = plan_resize(p, t, caps(36, true), ControlledValues::RequestsOnly);
    const auto lifecycle = check_qos_compatibility(p, ContainerResourceMap{{"app", {rl({{"cpu", "500m"}}), {}}}}, true);
    ASSERT_FALSE(lifecycle.compatible);
    EXPECT_EQ(skip_reason(o), lifecycle.reason);
    EXPECT_EQ(std::get<Skip>(o).message, lifecycle.message);
}

TEST(PlanResize, UnchangedTargetIsNoChange) {
    const Pod p = pod_from_json(kBurstableEnvelope);
    const ContainerTarget t[] = {target("app", rl({{"cpu", "1000m"}}))};
    EXPECT_EQ(skip_reason(plan_resize(p, t, caps(36, true), ControlledValues::RequestsOnly)), "no_change");
}

// 1.32-1.33 memory clamp: a Guaranteed pod's memory-limit decrease is held
// at the live limit and the request is raised back to match.
TEST(PlanResize, MemoryClampOn1_33KeepsGuaranteedPodsGuaranteed) {
    const Pod p = pod_from_json(R"({"spec":{"containers":[{"name":"app","resources":{"requests":{"cpu":"1","memory":"2Gi"},"limits":{"cpu":"1","memory":"2Gi"}}}]},
      "status":{"qosClass":"Guaranteed"}})");
    const ContainerTarget t[] = {target("app", rl({{"cpu", "2"}, {"memory", "1Gi"}}), rl({{"cpu", "2"}, {"memory", "1Gi"}}))};
    const auto& old = as_plan(plan_resize(p, t, caps(33, false), ControlledValues::RequestsAndLimits));
    EXPECT_EQ(old.memory_clamped, std::vector<std::string>{"app"});
    const auto& res = old.planned.containers[0].resources;
    EXPECT_EQ(res.limits.at("memory").to_string(), "2Gi");
    EXPECT_EQ(res.requests.at("memory").to_string(), "2Gi");
    EXPECT_EQ(res.limits.at("cpu"), qty("2"));
    // 1.34+: the decrease goes through.
    const auto& now = as_plan(plan_resize(p, t, caps(34, false), ControlledValues::RequestsAndLimits));
    EXPECT_TRUE(now.memory_clamped.empty());
    EXPECT_EQ(now.planned.containers[0].resources.limits.at("memory").to_string(), "1Gi");
}

TEST(PlanResize, UsageFloorHoldsAMemoryLimitDecrease) {
    const Pod p = pod_from_json(R"({"spec":{"containers":[{"name":"app","resources":{"requests":{"memory":"1Gi"},"limits":{"memory":"2Gi"}}}]}})");
    ContainerTarget t = target("app", rl({{"memory", "512Mi"}}), rl({{"memory", "512Mi"}}));
    t.memory_usage = qty("1000Mi");
    const ContainerTarget ts[] = {t};
    const auto& plan = as_plan(plan_resize(p, ts, caps(36, false), ControlledValues::RequestsAndLimits));
    EXPECT_EQ(plan.memory_floored, std::vector<std::string>{"app"});
    // 1000Mi * 110% = 1100Mi, rounded up to the byte.
    EXPECT_EQ(plan.planned.containers[0].resources.limits.at("memory").to_string(), "1100Mi");
    EXPECT_EQ(plan.planned.containers[0].resources.requests.at("memory").to_string(), "512Mi");
}

// 1.32 silently drops the initContainers part of a /resize: never plan one.
TEST(PlanResize, NativeSidecarIsNotResizableBefore1_33) {
    const Pod p = pod_from_json(R"({"spec":{"initContainers":[{"name":"side","restartPolicy":"Always",
      "resources":{"requests":{"cpu":"100m"},"limits":{"cpu":"200m"}}}],
      "containers":[{"name":"app","resources":{"requests":{"cpu":"100m"},"limits":{"cpu":"200m"}}}]},"status":{"qosClass":"Burstable"}})");
    const ContainerTarget side[] = {target("side", rl({{"cpu", "150m"}}))};
    EXPECT_EQ(skip_reason(plan_resize(p, side, caps(32, false), ControlledValues::RequestsOnly)), "not_resizable");
    EXPECT_TRUE(as_plan(plan_resize(p, side, caps(33, false), ControlledValues::RequestsOnly)).body.contains("spec"));
}

}  // namespace
}  // namespace attune::core
