// The compat gate (docs/upgrade-gate.md), case by case: waiting, actionable,
// pinned-is-held, mixed-held-wins, removed-API and containerd are
// actionable, the exit-code mapping, a patch-only target and a safe target;
// plus the "1.36 today" worked example of docs/upgrade-gate.md.
#include "attune/core/upgrade/upgrade_gate.hpp"

#include <gtest/gtest.h>

#include <boost/json.hpp>

namespace attune::core {
namespace {

// The worked example's cluster: on 1.35, looking at 1.36.
constexpr const char* kMatrix = R"({
  "_comment": "test matrix",
  "containerd_min": {"1.35": "1.7.0", "1.36": "2.0.0"},
  "api_removals": {"1.37": ["networking.k8s.io/v1beta1/servicecidrs"]},
  "addons": {
    "calico": {
      "source": {"kind": "Deployment", "namespace": "calico-system", "name": "calico-kube-controllers", "container": "calico-kube-controllers"},
      "versions": [{"version": "3.28.0", "max_k8s": "1.34"}, {"version": "3.29.0", "max_k8s": "1.35"}, {"version": "3.30.0", "max_k8s": "1.36"}]
    },
    "kyverno": {
      "source": {"kind": "Deployment", "namespace": "kyverno", "name": "kyverno-admission-controller", "container": "kyverno"},
      "versions": [{"version": "1.13.0", "max_k8s": "1.34"}, {"version": "1.14.0", "max_k8s": "1.35"}]
    },
    "external-secrets": {
      "source": {"kind": "Deployment", "namespace": "external-secrets", "name": "external-secrets", "label": "app.kubernetes.io/version"},
      "versions": [{"version": "0.14.0", "max_k8s": "1.35"}]
    },
    "gpu-operator": {
      "source": {"kind": "DaemonSet", "namespace": "gpu-operator", "name": "gpu-operator", "container": "gpu-operator"},
      "versions": [{"version": "25.3.0", "max_k8s": "1.35"}, {"version": "26.3.0", "max_k8s": "1.36"}],
      "pinned": true,
      "pin_reason": "26.3 needs a newer NVIDIA driver image and Ubuntu release"
    }
  }
})";

UpgradeMatrix matrix() {
    auto m = parse_upgrade_matrix(kMatrix, "test.json");
    EXPECT_TRUE(m.ok()) << (m.ok() ? "" : m.error().message);
    return m.value();
}

AddonObservation seen(std::string addon, std::string raw) {
    AddonObservation o;
    o.addon = std::move(addon);
    o.found = true;
    o.raw = std::move(raw);
    o.where = "test";
    return o;
}

// Every addon supports 1.36 unless a case overrides it.
GateInputs inputs(std::string target = "1.36") {
    GateInputs in;
    in.server_version = "v1.35.4";
    in.current = {1, 35};
    in.target = *parse_kube_minor(target);
    in.addons = {seen("calico", "calico/kube-controllers:v3.30.1"), seen("kyverno", "kyverno:v1.14.2"),
                 seen("external-secrets", "0.14.1"), seen("gpu-operator", "nvcr.io/nvidia/gpu-operator:v26.3.0")};
    in.nodes = {{"node-a", "containerd://2.0.4"}};
    return in;
}

void set(GateInputs& in, const std::string& addon, std::string raw) {
    for (auto& a : in.addons)
        if (a.addon == addon) a.raw = std::move(raw);
}

struct Want {
    int exit;
    std::vector<std::string> lines;
};

void expect(const GateInputs& in, const Want& w, const char* name) {
    auto r = evaluate_upgrade_gate(matrix(), in);
    ASSERT_TRUE(r.ok()) << name << ": " << r.error().message;
    EXPECT_EQ(r.value().exit_code, w.exit) << name;
    std::vector<std::string> lines;
    for (const auto& x : r.value().reasons) lines.push_back(x.line());
    EXPECT_EQ(lines, w.lines) << name;
}

TEST(UpgradeGate, WaitingWhenNoMatrixVersionSupportsTheTarget) {
    auto in = inputs();
    expect(in,
           {4,
            {"[WAITING] kyverno: no released kyverno supports Kubernetes 1.36 yet (running v1.14.2 supports Kubernetes up to 1.35)",
             "[WAITING] external-secrets: no released external-secrets supports Kubernetes 1.36 yet (running 0.14.1 supports Kubernetes up to 1.35)"}},
           "waiting");
}

TEST(UpgradeGate, ActionableWhenAHigherVersionSupportsTheTarget) {
    // Only calico blocks: the other addons are left out of the matrix.
    auto m = matrix();
    m.addons.erase(std::remove_if(m.addons.begin(), m.addons.end(), [](const AddonSpec& a) { return a.name != "calico"; }),
                   m.addons.end());
    auto in = inputs();
    set(in, "calico", "calico/kube-controllers:v3.29.1");
    auto r = evaluate_upgrade_gate(m, in);
    ASSERT_TRUE(r.ok());
    EXPECT_EQ(r.value().exit_code, 2);
    EXPECT_EQ(r.value().verdict, GateVerdict::Actionable);
    ASSERT_EQ(r.value().reasons.size(), 1u);
    EXPECT_EQ(r.value().reasons[0].line(),
              "[ACTIONABLE] calico: upgrade calico to >= 3.30.0 (running v3.29.1 supports Kubernetes up to 1.35)");
}

TEST(UpgradeGate, PinnedIsHeldEvenThoughASupportingVersionExists) {
    auto m = matrix();
    m.addons.erase(std::remove_if(m.addons.begin(), m.addons.end(),
                                  [](const AddonSpec& a) { return a.name != "gpu-operator"; }),
                   m.addons.end());
    auto in = inputs();
    set(in, "gpu-operator", "nvcr.io/nvidia/gpu-operator:v25.3.4");
    auto r = evaluate_upgrade_gate(m, in);
    ASSERT_TRUE(r.ok());
    EXPECT_EQ(r.value().exit_code, 4);
    EXPECT_EQ(r.value().verdict, GateVerdict::Held);
    ASSERT_EQ(r.value().reasons.size(), 1u);
    EXPECT_EQ(r.value().reasons[0].line(),
              "[PINNED] gpu-operator: pinned: 26.3 needs a newer NVIDIA driver image and Ubuntu release (running v25.3.4 "
              "supports Kubernetes up to 1.35; 26.3.0 would support 1.36)");
}

TEST(UpgradeGate, PinnedAddonThatSupportsTheTargetDoesNotBlock) {
    auto in = inputs("1.35");  // gpu-operator v26.3.0 supports 1.36 anyway
    auto r = evaluate_upgrade_gate(matrix(), in);
    ASSERT_TRUE(r.ok());
    EXPECT_TRUE(r.value().reasons.empty());
}

// The worked example's net effect on 1.36 today: waiting on kyverno + ESO, pinned
// gpu-operator, calico the lone actionable piece => HELD (exit 4), and the
// report still lists everything.
TEST(UpgradeGate, MixedHeldWinsTheSeeds136Today) {
    auto in = inputs();
    set(in, "calico", "calico/kube-controllers:v3.29.1");
    set(in, "gpu-operator", "nvcr.io/nvidia/gpu-operator:v25.3.4");
    expect(in,
           {4,
            {"[ACTIONABLE] calico: upgrade calico to >= 3.30.0 (running v3.29.1 supports Kubernetes up to 1.35)",
             "[WAITING] kyverno: no released kyverno supports Kubernetes 1.36 yet (running v1.14.2 supports Kubernetes up to 1.35)",
             "[WAITING] external-secrets: no released external-secrets supports Kubernetes 1.36 yet (running 0.14.1 supports Kubernetes up to 1.35)",
             "[PINNED] gpu-operator: pinned: 26.3 needs a newer NVIDIA driver image and Ubuntu release (running v25.3.4 "
             "supports Kubernetes up to 1.35; 26.3.0 would support 1.36)"}},
           "1.36 today");
}

TEST(UpgradeGate, UnreadableImageBelowMatrixAndMissingWorkloadAreActionable) {
    auto m = matrix();
    m.addons.erase(std::remove_if(m.addons.begin(), m.addons.end(),
                                  [](const AddonSpec& a) { return a.name == "kyverno" || a.name == "external-secrets"; }),
                   m.addons.end());
    struct Case {
        const char* name;
        AddonObservation calico;
        std::string want;
    } cases[] = {
        {"latest tag", seen("calico", "calico/kube-controllers:latest"),
         "[ACTIONABLE] calico: cannot read a version from image calico/kube-controllers:latest (test)"},
        {"digest only", seen("calico", "calico/kube-controllers@sha256:abc"),
         "[ACTIONABLE] calico: cannot read a version from image calico/kube-controllers@sha256:abc (test)"},
        {"below the matrix", seen("calico", "calico/kube-controllers:v3.20.0"),
         "[ACTIONABLE] calico: running v3.20.0 is older than every version in the matrix (lowest 3.28.0); a human must check it"},
        {"not found", [] {
             AddonObservation o;
             o.addon = "calico";
             o.where = "Deployment calico-system/calico-kube-controllers";
             o.missing = "the Deployment does not exist";
             return o;
         }(),
         "[ACTIONABLE] calico: cannot find its running version: the Deployment does not exist (Deployment "
         "calico-system/calico-kube-controllers); fix the matrix source or remove the addon from the matrix"},
    };
    for (const auto& c : cases) {
        auto in = inputs();
        in.addons[0] = c.calico;
        auto r = evaluate_upgrade_gate(m, in);
        ASSERT_TRUE(r.ok()) << c.name;
        ASSERT_EQ(r.value().reasons.size(), 1u) << c.name;
        EXPECT_EQ(r.value().reasons[0].line(), c.want) << c.name;
        EXPECT_EQ(r.value().exit_code, 2) << c.name;
    }
}

TEST(UpgradeGate, PinnedAddonWithAnUnreadableImageIsStillActionable) {
    auto m = matrix();
    auto in = inputs("1.35");
    set(in, "gpu-operator", "nvcr.io/nvidia/gpu-operator:latest");
    auto r = evaluate_upgrade_gate(m, in);
    ASSERT_TRUE(r.ok());
    ASSERT_EQ(r.value().reasons.size(), 1u);
    EXPECT_EQ(r.value().reasons[0].cls, BlockClass::Actionable);
}

TEST(UpgradeGate, VersionFromALabel) {
    auto in = inputs("1.35");
    set(in, "external-secrets", "not-a-version");
    auto r = evaluate_upgrade_gate(matrix(), in);
    ASSERT_TRUE(r.ok());
    ASSERT_EQ(r.value().reasons.size(), 1u);
    EXPECT_EQ(r.value().reasons[0].line(),
              "[ACTIONABLE] external-secrets: cannot read a version from label app.kubernetes.io/version=\"not-a-version\" (test)");
}

TEST(UpgradeGate, RemovedApiIsActionable) {
    auto m = matrix();
    m.addons.clear();
    auto in = inputs("1.37");
    in.current = {1, 36};
    in.requested_deprecated = {{"networking.k8s.io", "v1beta1", "ipaddresses", "", "1.37"},
                               {"flowcontrol.apiserver.k8s.io", "v1beta3", "flowschemas", "", "1.38"}};
    in.served = {{"networking.k8s.io/v1beta1", {"ipaddresses", "servicecidrs"}}};
    in.nodes.clear();
    auto r = evaluate_upgrade_gate(m, in);
    ASSERT_TRUE(r.ok());
    EXPECT_EQ(r.value().exit_code, 2);
    std::vector<std::string> lines;
    for (const auto& x : r.value().reasons) lines.push_back(x.line());
    EXPECT_EQ(lines, (std::vector<std::string>{
                         "[ACTIONABLE] networking.k8s.io/v1beta1 ipaddresses: requested from this apiserver "
                         "(apiserver_requested_deprecated_apis) and removed in Kubernetes 1.37; move its clients and "
                         "stored manifests to a supported version",
                         "[ACTIONABLE] networking.k8s.io/v1beta1 servicecidrs: served by this apiserver and removed in "
                         "Kubernetes 1.37 (api_removals); migrate what uses it, then stop serving it (--runtime-config)"}));
    // The same API removed after the target does not block it.
    in.target = {1, 36};
    r = evaluate_upgrade_gate(m, in);
    ASSERT_TRUE(r.ok());
    EXPECT_TRUE(r.value().reasons.empty());
}

TEST(UpgradeGate, ContainerdBelowTheTargetsMinimumIsActionable) {
    auto m = matrix();
    m.addons.clear();
    auto in = inputs();
    in.nodes = {{"new", "containerd://2.0.4"},
                {"old", "containerd://1.7.24"},
                {"sim", "containerd://2.0.0-sim"},
                {"weird", "containerd://unknown"},
                {"crio", "cri-o://1.30.0"},
                {"blank", ""}};
    std::vector<std::string> lines;
    for (const auto& x : containerd_reasons(m, in.target, in.nodes)) lines.push_back(x.line());
    EXPECT_EQ(lines, (std::vector<std::string>{
                         "[ACTIONABLE] old: upgrade containerd 1.7.24 to >= 2.0.0, the minimum for Kubernetes 1.36",
                         "[ACTIONABLE] weird: cannot read the containerd version \"containerd://unknown\"; Kubernetes 1.36 needs >= 2.0.0",
                         "[ACTIONABLE] blank: the node reports no containerRuntimeVersion; Kubernetes 1.36 needs containerd >= 2.0.0"}));
    auto r = evaluate_upgrade_gate(m, in);
    ASSERT_TRUE(r.ok());
    EXPECT_EQ(r.value().exit_code, 2);
    // No minimum listed at or below the target: nothing to check.
    m.containerd_min.clear();
    EXPECT_TRUE(containerd_reasons(m, in.target, in.nodes).empty());
}

TEST(UpgradeGate, ExitCodeMapping) {
    auto r = [](BlockClass c) {
        GateReason x;
        x.cls = c;
        return x;
    };
    const auto a = r(BlockClass::Actionable), w = r(BlockClass::Waiting), p = r(BlockClass::Pinned);
    struct Case {
        std::vector<GateReason> reasons;
        int want;
    } cases[] = {
        {{}, 0}, {{a}, 2}, {{a, a}, 2}, {{w}, 4}, {{p}, 4}, {{a, w}, 4}, {{p, a}, 4}, {{w, p}, 4},
    };
    for (const auto& c : cases) EXPECT_EQ(gate_exit_code(c.reasons), c.want);
}

// A patch-only target (same minor) and a safe target stay green: nothing the
// cluster runs today is refused.
TEST(UpgradeGate, PatchOnlyTargetIsSafe) {
    auto in = inputs("1.35.6");
    set(in, "calico", "calico/kube-controllers:v3.29.1");
    set(in, "gpu-operator", "nvcr.io/nvidia/gpu-operator:v25.3.4");
    in.nodes = {{"node-a", "containerd://1.7.24"}};
    auto r = evaluate_upgrade_gate(matrix(), in);
    ASSERT_TRUE(r.ok());
    EXPECT_EQ(r.value().exit_code, 0);
    EXPECT_EQ(r.value().verdict, GateVerdict::Safe);
    EXPECT_TRUE(r.value().reasons.empty());
}

TEST(UpgradeGate, SafeTargetWhenEveryAddonSupportsIt) {
    auto m = matrix();
    m.addons.erase(std::remove_if(m.addons.begin(), m.addons.end(),
                                  [](const AddonSpec& a) { return a.name == "kyverno" || a.name == "external-secrets"; }),
                   m.addons.end());
    auto in = inputs();
    auto r = evaluate_upgrade_gate(m, in);
    ASSERT_TRUE(r.ok());
    EXPECT_EQ(r.value().exit_code, 0);
    // A version above every row counts as the newest row.
    set(in, "calico", "calico/kube-controllers:v3.31.0");
    r = evaluate_upgrade_gate(m, in);
    ASSERT_TRUE(r.ok());
    EXPECT_EQ(r.value().exit_code, 0);
}

TEST(UpgradeGate, DowngradeOrMissingObservationIsAGateError) {
    auto in = inputs("1.34");
    auto r = evaluate_upgrade_gate(matrix(), in);
    ASSERT_FALSE(r.ok());
    EXPECT_EQ(r.error().code, "gate_error");
    in = inputs();
    in.addons.pop_back();
    r = evaluate_upgrade_gate(matrix(), in);
    ASSERT_FALSE(r.ok());
    EXPECT_EQ(r.error().message, "no observation of addon gpu-operator");
}

TEST(UpgradeGate, JsonOutputCarriesClassesAndLines) {
    auto in = inputs();
    auto r = evaluate_upgrade_gate(matrix(), in);
    ASSERT_TRUE(r.ok());
    const auto j = gate_result_json(in, r.value());
    EXPECT_EQ(j.at("verdict"), "held");
    EXPECT_EQ(j.at("exitCode"), 4);
    EXPECT_EQ(j.at("target"), "1.36");
    EXPECT_EQ(j.at("serverVersion"), "v1.35.4");
    const auto& first = j.at("reasons").as_array().at(0).as_object();
    EXPECT_EQ(first.at("class"), "WAITING");
    EXPECT_EQ(first.at("check"), "addon");
    EXPECT_EQ(first.at("subject"), "kyverno");
    EXPECT_EQ(gate_error_json("1.36", "boom").at("exitCode"), 3);
}

}  // namespace
}  // namespace attune::core

namespace attune::core {
namespace {

TEST(ObserveAddon, ImageOfTheNamedContainerOrTheLabel) {
    auto m = matrix();
    const auto& calico = m.addons[0];
    const auto& eso = m.addons[2];
    auto deploy = boost::json::parse(R"({"metadata":{"labels":{"app.kubernetes.io/version":"0.14.2"}},
        "spec":{"template":{"spec":{"containers":[{"name":"other","image":"x:1"},{"name":"calico-kube-controllers","image":"calico/kube-controllers:v3.29.1"}]}}}})");
    auto o = observe_addon(calico, &deploy);
    EXPECT_TRUE(o.found);
    EXPECT_EQ(o.raw, "calico/kube-controllers:v3.29.1");
    EXPECT_EQ(o.where, "Deployment calico-system/calico-kube-controllers, container calico-kube-controllers");
    o = observe_addon(eso, &deploy);
    EXPECT_TRUE(o.found);
    EXPECT_EQ(o.raw, "0.14.2");

    auto bare = boost::json::parse(R"({"metadata":{},"spec":{"template":{"spec":{"containers":[]}}}})");
    EXPECT_EQ(observe_addon(calico, &bare).missing, "the Deployment has no container calico-kube-controllers");
    EXPECT_EQ(observe_addon(eso, &bare).missing, "the Deployment has no label app.kubernetes.io/version");
    o = observe_addon(calico, nullptr);
    EXPECT_FALSE(o.found);
    EXPECT_EQ(o.missing, "the Deployment does not exist");
}

TEST(NodeRuntimesFrom, RuntimeVersionAndReadiness) {
    auto items = boost::json::parse(R"([
      {"metadata":{"name":"a"},"status":{"nodeInfo":{"containerRuntimeVersion":"containerd://2.0.0"},
       "conditions":[{"type":"MemoryPressure","status":"False"},{"type":"Ready","status":"True"}]}},
      {"metadata":{"name":"b"},"status":{"conditions":[{"type":"Ready","status":"Unknown"}]}}
    ])").as_array();
    auto r = node_runtimes_from(items);
    ASSERT_TRUE(r.ok());
    ASSERT_EQ(r.value().size(), 2u);
    EXPECT_EQ(r.value()[0].runtime_version, "containerd://2.0.0");
    EXPECT_TRUE(r.value()[0].ready);
    EXPECT_EQ(r.value()[1].runtime_version, "");
    EXPECT_FALSE(r.value()[1].ready);
    EXPECT_FALSE(node_runtimes_from(boost::json::parse(R"([{"metadata":{}}])").as_array()).ok());
}

}  // namespace
}  // namespace attune::core
