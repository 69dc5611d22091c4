#include "attune/core/admission/create_sizing.hpp"

#include <gtest/gtest.h>

#include <boost/json.hpp>

#include "attune/core/util/json_patch.hpp"
#include "test_pods.hpp"

namespace attune::core {
namespace {
namespace json = boost::json;
using testing::qty;

constexpr const char* kNow = "2026-12-01T10:00:00Z";

EffectivePolicy policy(ControlledValues cpu = ControlledValues::RequestsOnly,
                       ControlledValues memory = ControlledValues::RequestsOnly) {
    EffectivePolicy p;
    p.namespace_ = "shop";
    p.name = "web";
    p.update_strategy.initial_sizing = true;
    p.cpu.controlled_values = cpu;
    p.memory.controlled_values = memory;
    return p;
}

ContainerRecommendation crec(const char* name, const char* cpu_req, const char* mem_req, const char* cpu_lim = "0",
                             const char* mem_lim = "0", double confidence = 0.9) {
    ContainerRecommendation c;
    c.name = name;
    c.recommended.cpu_request = qty(cpu_req);
    c.recommended.memory_request = qty(mem_req);
    c.recommended.cpu_limit = qty(cpu_lim);
    c.recommended.memory_limit = qty(mem_lim);
    c.confidence = confidence;
    return c;
}

StatusRecommendation rec(std::vector<ContainerRecommendation> cs) {
    StatusRecommendation w;
    w.workload = "web";
    w.kind = "Deployment";
    w.recommendation.containers = std::move(cs);
    return w;
}

// A pod as the ReplicaSet controller creates it; `containers` and
// `pod_resources` are JSON fragments.
json::value pod(const std::string& containers, const std::string& pod_resources = "",
                const std::string& init_containers = "", const std::string& annotations = "") {
    std::string s = R"({"metadata":{"generateName":"web-7d9f-","namespace":"shop",)";
    if (!annotations.empty()) s += R"("annotations":)" + annotations + ",";
    s += R"("ownerReferences":[{"apiVersion":"apps/v1","kind":"ReplicaSet","name":"web-7d9f","uid":"u","controller":true}]},)";
    s += R"("spec":{"containers":)" + containers;
    if (!init_containers.empty()) s += R"(,"initContainers":)" + init_containers;
    if (!pod_resources.empty()) s += R"(,"resources":)" + pod_resources;
    s += "}}";
    return json::parse(s);
}

struct Sized {
    CreateSizing decision;
    Pod after;  // the pod with the patch applied, as the apiserver would store it
    json::value after_json;
};

Sized run(const json::value& p, const EffectivePolicy* pol, const StatusRecommendation* r, bool field = true) {
    CreateSizingInput in;
    in.pod = &p;
    in.policy = pol;
    in.recommendation = r;
    in.pod_level_resources_field = field;
    in.now = kNow;
    Sized out{size_pod_on_create(in), {}, {}};
    auto applied = apply_json_patch(p, out.decision.patch);
    EXPECT_TRUE(applied.ok()) << (applied.ok() ? "" : applied.error().message);
    if (!applied.ok()) return out;
    out.after_json = applied.value();
    auto decoded = decode_pod(out.after_json);
    EXPECT_TRUE(decoded.ok());
    if (decoded.ok()) out.after = decoded.value();
    return out;
}

std::string req(const Pod& p, const char* c, const char* r) {
    const auto* q = find(p.find_container(c)->resources.requests, r);
    return q ? q->to_string() : "-";
}
std::string lim(const Pod& p, const char* c, const char* r) {
    const auto* q = find(p.find_container(c)->resources.limits, r);
    return q ? q->to_string() : "-";
}
std::string ann(const Pod& p, std::string_view k) {
    auto it = p.annotations.find(k);
    return it == p.annotations.end() ? "-" : it->second;
}

constexpr const char* kApp =
    R"([{"name":"app","resources":{"requests":{"cpu":"1","memory":"512Mi"},"limits":{"memory":"1Gi"}}}])";

TEST(SizePodOnCreate, RequestsOnlyWritesRequestsAndTheAnnotations) {
    const auto p = pod(kApp);
    const auto pol = policy();
    const auto r = rec({crec("app", "250m", "192Mi", "0", "384Mi")});
    auto s = run(p, &pol, &r);
    ASSERT_TRUE(s.decision.sized()) << s.decision.skip_reason;
    EXPECT_EQ(req(s.after, "app", "cpu"), "250m");
    EXPECT_EQ(req(s.after, "app", "memory"), "192Mi");
    EXPECT_EQ(lim(s.after, "app", "memory"), "1Gi");  // RequestsOnly: the limit stays
    EXPECT_EQ(lim(s.after, "app", "cpu"), "-");
    EXPECT_EQ(ann(s.after, "attune.io/initial-sizing"), "applied");
    EXPECT_EQ(ann(s.after, "attune.io/initial-sizing-policy"), "shop/web");
    EXPECT_EQ(ann(s.after, "attune.io/startup-boost-at"), "-");
    EXPECT_FALSE(s.decision.boosted);
}

TEST(SizePodOnCreate, RequestsAndLimitsAlsoWritesNonZeroLimits) {
    const auto p = pod(kApp);
    const auto pol = policy(ControlledValues::RequestsAndLimits, ControlledValues::RequestsAndLimits);
    const auto r = rec({crec("app", "250m", "192Mi", "0", "384Mi")});
    auto s = run(p, &pol, &r);
    ASSERT_TRUE(s.decision.sized());
    EXPECT_EQ(lim(s.after, "app", "memory"), "384Mi");
    EXPECT_EQ(lim(s.after, "app", "cpu"), "-");  // a zero recommended limit means none: nothing written
}

TEST(SizePodOnCreate, LimitsOnlyForTheResourceThatControlsThem) {
    const auto p = pod(R"([{"name":"app","resources":{"limits":{"cpu":"2","memory":"1Gi"}}}])");
    const auto pol = policy(ControlledValues::RequestsAndLimits, ControlledValues::RequestsOnly);
    const auto r = rec({crec("app", "250m", "192Mi", "500m", "384Mi")});
    auto s = run(p, &pol, &r);
    EXPECT_EQ(lim(s.after, "app", "cpu"), "500m");
    EXPECT_EQ(lim(s.after, "app", "memory"), "1Gi");
}

TEST(SizePodOnCreate, ContainerPoliciesDecidePerContainer) {
    const auto p = pod(R"([{"name":"app","resources":{"limits":{"memory":"1Gi"}}},
                          {"name":"worker","resources":{"limits":{"memory":"1Gi"}}}])");
    auto pol = policy();
    ContainerTuning worker;
    worker.container_name = "worker";
    worker.cpu = pol.cpu;
    worker.memory = pol.memory;
    worker.memory.controlled_values = ControlledValues::RequestsAndLimits;
    worker.cpu.startup_boost = StartupBoost{2.0, std::chrono::seconds(60)};
    pol.container_tunings = {worker};
    const auto r = rec({crec("app", "100m", "128Mi", "0", "256Mi"), crec("worker", "100m", "128Mi", "0", "256Mi")});
    auto s = run(p, &pol, &r);
    EXPECT_EQ(lim(s.after, "app", "memory"), "1Gi");
    EXPECT_EQ(lim(s.after, "worker", "memory"), "256Mi");
    EXPECT_EQ(req(s.after, "app", "cpu"), "100m");
    EXPECT_EQ(req(s.after, "worker", "cpu"), "200m");
}

TEST(SizePodOnCreate, RequestsAreClampedToLimits) {
    const auto p = pod(R"([{"name":"app","resources":{"requests":{"cpu":"100m"},"limits":{"cpu":"200m","memory":"128Mi"}}}])");
    const auto pol = policy();
    const auto r = rec({crec("app", "250m", "192Mi")});
    auto s = run(p, &pol, &r);
    EXPECT_EQ(req(s.after, "app", "cpu"), "200m");
    EXPECT_EQ(req(s.after, "app", "memory"), "128Mi");
}

TEST(SizePodOnCreate, LowConfidenceAndExcludedContainersAreLeftAlone) {
    const auto p = pod(R"([{"name":"app","resources":{"requests":{"cpu":"1"}}},
                          {"name":"worker","resources":{"requests":{"cpu":"1"}}},
                          {"name":"istio-proxy","resources":{"requests":{"cpu":"1"}}}])");
    auto pol = policy();
    pol.excluded_containers = {"istio-proxy"};  // sorted, as the merge leaves it
    const auto r = rec({crec("app", "250m", "64Mi"), crec("worker", "300m", "64Mi", "0", "0", 0.49),
                        crec("istio-proxy", "50m", "32Mi")});
    auto s = run(p, &pol, &r);
    ASSERT_TRUE(s.decision.sized());
    EXPECT_EQ(req(s.after, "app", "cpu"), "250m");
    EXPECT_EQ(req(s.after, "worker", "cpu"), "1");
    EXPECT_EQ(req(s.after, "istio-proxy", "cpu"), "1");
    ASSERT_EQ(s.decision.containers.size(), 3u);
    EXPECT_EQ(s.decision.containers[1].outcome, "low_confidence");
    EXPECT_EQ(s.decision.containers[2].outcome, "excluded");
}

TEST(SizePodOnCreate, ConfidenceOfExactlyOneHalfIsEnough) {
    const auto p = pod(kApp);
    const auto pol = policy();
    const auto r = rec({crec("app", "250m", "192Mi", "0", "0", 0.5)});
    EXPECT_TRUE(run(p, &pol, &r).decision.sized());
}

struct SkipCase {
    const char* name;
    const char* reason;
};

TEST(SizePodOnCreate, PolicyAndRecommendationGates) {
    const auto p = pod(kApp);
    const auto r = rec({crec("app", "250m", "192Mi")});
    auto stale = r;
    stale.recommendation.stale = true;
    auto disabled = policy();
    disabled.update_strategy.initial_sizing = false;
    auto paused = policy();
    paused.paused = true;
    auto canary = policy();
    canary.update_strategy.type = UpdateMode::Canary;
    const auto ok = policy();
    const auto other = rec({crec("sidecar", "250m", "192Mi")});
    struct {
        const EffectivePolicy* pol;
        const StatusRecommendation* rec;
        const char* reason;
    } cases[] = {
        {nullptr, &r, "no_policy"},
        {&disabled, &r, "initial_sizing_disabled"},
        {&paused, &r, "policy_paused"},
        {&canary, &r, "canary_policy"},
        {&ok, nullptr, "no_recommendation"},
        {&ok, &stale, "stale_recommendation"},
        {&ok, &other, "no_container_sized"},
    };
    for (const auto& c : cases) {
        CreateSizingInput in;
        in.pod = &p;
        in.policy = c.pol;
        in.recommendation = c.rec;
        in.now = kNow;
        const auto d = size_pod_on_create(in);
        EXPECT_EQ(d.skip_reason, c.reason);
        EXPECT_TRUE(d.patch.empty()) << c.reason;
    }
}

TEST(SizePodOnCreate, AnUndecodablePodIsSkippedWithAWarning) {
    const auto p = json::parse(R"({"metadata":{},"spec":{"containers":[{"name":"app","resources":{"requests":{"cpu":"lots"}}}]}})");
    const auto pol = policy();
    const auto r = rec({crec("app", "250m", "192Mi")});
    CreateSizingInput in;
    in.pod = &p;
    in.policy = &pol;
    in.recommendation = &r;
    const auto d = size_pod_on_create(in);
    EXPECT_EQ(d.skip_reason, "invalid_pod");
    ASSERT_EQ(d.warnings.size(), 1u);
    EXPECT_NE(d.warnings[0].find("spec.containers[0].resources.requests.cpu"), std::string::npos);
}

TEST(SizePodOnCreate, StartupBoostMultipliesTheCpuRequestAndRecordsWhen) {
    const auto p = pod(kApp);
    auto pol = policy();
    pol.cpu.startup_boost = StartupBoost{2.0, std::chrono::seconds(120)};
    const auto r = rec({crec("app", "250m", "192Mi")});
    auto s = run(p, &pol, &r);
    EXPECT_EQ(req(s.after, "app", "cpu"), "500m");
    EXPECT_EQ(req(s.after, "app", "memory"), "192Mi");  // cpu only
    EXPECT_EQ(ann(s.after, "attune.io/startup-boost-at"), kNow);
    EXPECT_TRUE(s.decision.boosted);
    EXPECT_TRUE(s.decision.containers[0].boosted);
}

TEST(SizePodOnCreate, StartupBoostStopsAtTheCpuLimit) {
    const auto p = pod(R"([{"name":"app","resources":{"limits":{"cpu":"400m"}}}])");
    auto pol = policy();
    pol.cpu.startup_boost = StartupBoost{3.0, std::chrono::seconds(60)};
    const auto r = rec({crec("app", "250m", "192Mi")});
    auto s = run(p, &pol, &r);
    EXPECT_EQ(req(s.after, "app", "cpu"), "400m");
    EXPECT_EQ(lim(s.after, "app", "cpu"), "400m");
}

TEST(SizePodOnCreate, BoostRoundsUpToTheMilli) {
    EXPECT_EQ(boost_cpu(qty("333m"), 1.5).to_string(), "500m");  // 499.5 -> 500
    EXPECT_EQ(boost_cpu(qty("1"), 1.25).to_string(), "1250m");
    EXPECT_EQ(boost_cpu(qty("1m"), 1.1).to_string(), "2m");
}

TEST(SizePodOnCreate, ReinvocationIsIdempotentAndKeepsTheBoostTime) {
    const auto p = pod(kApp);
    auto pol = policy();
    pol.cpu.startup_boost = StartupBoost{2.0, std::chrono::seconds(120)};
    const auto r = rec({crec("app", "250m", "192Mi")});
    auto first = run(p, &pol, &r);
    CreateSizingInput in;
    in.pod = &first.after_json;
    in.policy = &pol;
    in.recommendation = &r;
    in.pod_level_resources_field = true;
    in.now = "2026-12-01T10:00:05Z";
    const auto again = size_pod_on_create(in);
    EXPECT_TRUE(again.sized());
    EXPECT_TRUE(again.patch.empty()) << json::serialize(again.patch);
}

TEST(SizePodOnCreate, NativeSidecarsAreSizedRegularInitContainersNot) {
    const auto p = pod(kApp, "", R"([{"name":"setup","resources":{"requests":{"cpu":"2"}}},
                                    {"name":"proxy","restartPolicy":"Always","resources":{"requests":{"cpu":"500m"}}}])");
    const auto pol = policy();
    const auto r = rec({crec("app", "250m", "192Mi"), crec("proxy", "50m", "32Mi"), crec("setup", "10m", "8Mi")});
    auto s = run(p, &pol, &r);
    EXPECT_EQ(req(s.after, "proxy", "cpu"), "50m");
    EXPECT_EQ(req(s.after, "setup", "cpu"), "2");
}

// At CREATE, a pod with an envelope whose container requests were sized gets
// its envelope raised.
TEST(SizePodOnCreate, EnvelopeIsRaisedToCoverTheSizedContainers) {
    const auto p = pod(R"([{"name":"app","resources":{"requests":{"cpu":"500m","memory":"256Mi"}}},
                          {"name":"log","resources":{"requests":{"cpu":"100m","memory":"64Mi"}}}])",
                       R"({"requests":{"cpu":"600m","memory":"320Mi"}})");
    const auto pol = policy();
    const auto r = rec({crec("app", "900m", "512Mi")});
    auto s = run(p, &pol, &r);
    ASSERT_TRUE(s.decision.sized());
    EXPECT_TRUE(s.decision.envelope_raised);
    ASSERT_TRUE(s.after.pod_resources);
    EXPECT_EQ(s.after.pod_resources->requests.at("cpu"), qty("1"));         // 900m + 100m
    EXPECT_EQ(s.after.pod_resources->requests.at("memory"), qty("576Mi"));  // 512Mi + 64Mi
    EXPECT_TRUE(s.after.pod_resources->limits.empty());                     // never adds a key
}

TEST(SizePodOnCreate, TheEnvelopeCoversTheBoostedRequest) {
    const auto p = pod(R"([{"name":"app","resources":{"requests":{"cpu":"500m"}}}])", R"({"requests":{"cpu":"500m"}})");
    auto pol = policy();
    pol.cpu.startup_boost = StartupBoost{2.0, std::chrono::seconds(120)};
    const auto r = rec({crec("app", "400m", "0")});
    auto s = run(p, &pol, &r);
    EXPECT_EQ(req(s.after, "app", "cpu"), "800m");
    EXPECT_EQ(s.after.pod_resources->requests.at("cpu"), qty("800m"));
}

TEST(SizePodOnCreate, ADecreaseNeverShrinksTheEnvelope) {
    const auto p = pod(R"([{"name":"app","resources":{"requests":{"cpu":"1"}}}])", R"({"requests":{"cpu":"2"}})");
    const auto pol = policy();
    const auto r = rec({crec("app", "250m", "0")});
    auto s = run(p, &pol, &r);
    EXPECT_EQ(req(s.after, "app", "cpu"), "250m");
    EXPECT_EQ(s.after.pod_resources->requests.at("cpu"), qty("2"));
    EXPECT_FALSE(s.decision.envelope_raised);
}

TEST(SizePodOnCreate, RequestsOnlyBurstableEnvelopeFailsClosedPerContainer) {
    // Burstable envelope {req 1, lim 1500m}: app to 2 CPU would need the
    // pod-level limit lifted to 2, which RequestsOnly must not do.
    const auto p = pod(R"([{"name":"app","resources":{"requests":{"cpu":"1"}}},
                          {"name":"side","resources":{"requests":{"memory":"64Mi"}}}])",
                       R"({"requests":{"cpu":"1","memory":"128Mi"},"limits":{"cpu":"1500m"}})");
    const auto pol = policy();
    const auto r = rec({crec("app", "2", "0"), crec("side", "0", "96Mi")});
    auto s = run(p, &pol, &r);
    ASSERT_TRUE(s.decision.sized());  // "side" still fits
    EXPECT_EQ(req(s.after, "app", "cpu"), "1");
    EXPECT_EQ(req(s.after, "side", "memory"), "96Mi");
    EXPECT_EQ(s.decision.containers[0].outcome, "envelope_constraint");
    EXPECT_EQ(s.after.pod_resources->limits.at("cpu"), qty("1500m"));
    ASSERT_EQ(s.decision.warnings.size(), 1u);
    EXPECT_NE(s.decision.warnings[0].find("container app not sized"), std::string::npos);

    // Alone, the app container leaves nothing to size: no patch at all.
    const auto r2 = rec({crec("app", "2", "0")});
    auto s2 = run(p, &pol, &r2);
    EXPECT_EQ(s2.decision.skip_reason, "no_container_sized");
    EXPECT_TRUE(s2.decision.patch.empty());
}

TEST(SizePodOnCreate, RequestsAndLimitsMayLiftTheEnvelopeLimit) {
    const auto p = pod(R"([{"name":"app","resources":{"requests":{"cpu":"1"}}}])",
                       R"({"requests":{"cpu":"1"},"limits":{"cpu":"1500m"}})");
    const auto pol = policy(ControlledValues::RequestsAndLimits, ControlledValues::RequestsAndLimits);
    const auto r = rec({crec("app", "2", "0")});
    auto s = run(p, &pol, &r);
    ASSERT_TRUE(s.decision.sized());
    EXPECT_EQ(s.after.pod_resources->requests.at("cpu"), qty("2"));
    EXPECT_EQ(s.after.pod_resources->limits.at("cpu"), qty("2"));  // limits >= requests
}

TEST(SizePodOnCreate, AGuaranteedEnvelopeRaisesRequestAndLimitTogether) {
    const auto p = pod(R"([{"name":"app","resources":{"requests":{"cpu":"500m","memory":"256Mi"}}}])",
                       R"({"requests":{"cpu":"1","memory":"512Mi"},"limits":{"cpu":"1","memory":"512Mi"}})");
    const auto pol = policy();  // RequestsOnly, yet Guaranteed must stay Guaranteed
    const auto r = rec({crec("app", "1500m", "256Mi")});
    auto s = run(p, &pol, &r);
    ASSERT_TRUE(s.decision.sized());
    EXPECT_EQ(s.after.pod_resources->requests.at("cpu"), qty("1500m"));
    EXPECT_EQ(s.after.pod_resources->limits.at("cpu"), qty("1500m"));
}

TEST(SizePodOnCreate, NoEnvelopeIsInvented) {
    const auto p = pod(kApp);
    const auto pol = policy();
    const auto r = rec({crec("app", "4", "4Gi")});
    auto s = run(p, &pol, &r);
    EXPECT_FALSE(s.after.pod_resources.has_value());
    for (const auto& op : s.decision.patch) EXPECT_NE(op.at("path"), "/spec/resources");
}

TEST(SizePodOnCreate, WithoutThePodLevelFieldTheEnvelopeIsIgnored) {
    // 1.33 drops spec.resources after admission: it must neither block nor be raised.
    const auto p = pod(R"([{"name":"app","resources":{"requests":{"cpu":"1"}}}])",
                       R"({"requests":{"cpu":"1"},"limits":{"cpu":"1"}})");
    const auto pol = policy();
    const auto r = rec({crec("app", "2", "0")});
    auto s = run(p, &pol, &r, /*field=*/false);
    ASSERT_TRUE(s.decision.sized());
    EXPECT_EQ(req(s.after, "app", "cpu"), "2");
    EXPECT_EQ(s.after.pod_resources->requests.at("cpu"), qty("1"));
}

TEST(SizePodOnCreate, HugepagesAndOtherKeysSurvive) {
    const auto p = pod(R"([{"name":"app","resources":{"requests":{"cpu":"1","ephemeral-storage":"1Gi"}}}])",
                       R"({"requests":{"cpu":"1","hugepages-2Mi":"64Mi"},"limits":{"hugepages-2Mi":"64Mi"}})");
    const auto pol = policy();
    const auto r = rec({crec("app", "2", "0")});
    auto s = run(p, &pol, &r);
    EXPECT_EQ(req(s.after, "app", "ephemeral-storage"), "1Gi");
    EXPECT_EQ(s.after.pod_resources->requests.at("hugepages-2Mi"), qty("64Mi"));
    EXPECT_EQ(s.after.pod_resources->requests.at("cpu"), qty("2"));
}

TEST(SizePodOnCreate, ThePatchTouchesOnlyWhatChanged) {
    const auto p = pod(kApp, "", "", R"({"team":"a"})");
    const auto pol = policy();
    const auto r = rec({crec("app", "250m", "512Mi")});
    auto s = run(p, &pol, &r);
    std::vector<std::string> paths;
    for (const auto& op : s.decision.patch) paths.emplace_back(op.at("path").as_string());
    EXPECT_EQ(paths, (std::vector<std::string>{"/metadata/annotations/attune.io~1initial-sizing",
                                               "/metadata/annotations/attune.io~1initial-sizing-policy",
                                               "/spec/containers/0/resources/requests/cpu"}));
}

TEST(CreateSizingGate, SkipsBeforeAnyLookup) {
    NamespaceInfo enabled;
    enabled.labels["attune.io/initial-sizing"] = "enabled";
    NamespaceInfo frozen = enabled;
    frozen.annotations["attune.io/freeze"] = "true";
    NamespaceInfo off;
    std::map<std::string, std::string, std::less<>> none, skip{{"attune.io/skip", "true"}},
        no_skip{{"attune.io/skip", "false"}};
    EXPECT_EQ(create_sizing_gate("kube-system", enabled, "attune-system", none), "kube_system");
    EXPECT_EQ(create_sizing_gate("attune-system", enabled, "attune-system", none), "operator_namespace");
    EXPECT_EQ(create_sizing_gate("shop", enabled, "attune-system", skip), "opted_out");
    EXPECT_EQ(create_sizing_gate("shop", std::nullopt, "attune-system", none), "namespace_unknown");
    EXPECT_EQ(create_sizing_gate("shop", frozen, "attune-system", none), "namespace_frozen");
    EXPECT_EQ(create_sizing_gate("shop", off, "attune-system", none), "namespace_not_enabled");
    EXPECT_EQ(create_sizing_gate("shop", enabled, "attune-system", none), std::nullopt);
    EXPECT_EQ(create_sizing_gate("shop", enabled, "attune-system", no_skip), std::nullopt);
}

}  // namespace
}  // namespace attune::core
