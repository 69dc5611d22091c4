#include "attune/core/upgrade/upgrade_chain.hpp"

#include <gtest/gtest.h>

#include <boost/json.hpp>

namespace attune::core {
namespace {

// Deliberate decisions halt the chain and push both gauges definitively.
TEST(RoutePreflight, GateExitCodeToGaugesAndProgress) {
    struct Case {
        int gate_exit;
        int blocked, held;
        bool proceed;
    } cases[] = {
        {0, 0, 0, true},   // safe
        {2, 1, 0, false},  // actionable: alerts
        {3, 1, 0, false},  // gate error counts as blocked (fail-safe)
        {4, 0, 1, false},  // held: quiet
        {1, 1, 0, false},  // anything else is treated as a gate error
        {-1, 1, 0, false},
    };
    for (const auto& c : cases) {
        auto r = route_preflight(c.gate_exit);
        EXPECT_EQ(r.blocked, c.blocked) << c.gate_exit;
        EXPECT_EQ(r.held, c.held) << c.gate_exit;
        EXPECT_EQ(r.proceed, c.proceed) << c.gate_exit;
    }
}

TEST(PushBody, TextExpositionWithTheTargetLabel) {
    EXPECT_EQ(render_push_body(verdict_gauges("1.36", 1, 0)),
              "# HELP k8s_upgrade_blocked 1 when the upgrade gate refused the target for actionable reasons or could not "
              "evaluate it\n# TYPE k8s_upgrade_blocked gauge\nk8s_upgrade_blocked{target=\"1.36\"} 1\n"
              "# HELP k8s_upgrade_held 1 when the target is held: waiting on upstream or pinned on purpose (no alert)\n"
              "# TYPE k8s_upgrade_held gauge\nk8s_upgrade_held{target=\"1.36\"} 0\n");
    const auto avail = render_push_body(available_gauge("a\"b", true));
    EXPECT_NE(avail.find("k8s_upgrade_available{target=\"a\\\"b\"} 1\n"), std::string::npos);
}

TEST(UnreadyNodes, NamesEveryNodeNotReady) {
    EXPECT_EQ(unready_nodes({{"a", "", true}, {"b", "", false}, {"c", "", false}}), (std::vector<std::string>{"b", "c"}));
    EXPECT_TRUE(unready_nodes({{"a", "", true}}).empty());
}

ChainJob job(std::string name, std::string phase, std::string created, JobState s, std::string target = "1.36") {
    return {std::move(name), std::move(phase), std::move(target), std::move(created), s};
}

// The detector's rules (docs/upgrade-gate.md): spawn when none, leave a running one,
// re-spawn silently after a refusal (Complete, no upgrade Job), re-spawn with
// an announcement after a failure; only new spawns and failed re-spawns announce.
TEST(DecideDetector, RespawnRules) {
    struct Case {
        const char* name;
        std::vector<ChainJob> jobs;
        DetectorAction want;
        bool announce;
    } cases[] = {
        {"none yet", {}, DetectorAction::Spawn, true},
        {"only for another target",
         {job("p0", "preflight", "2026-06-27T02:00:00Z", JobState::Failed, "1.35")},
         DetectorAction::Spawn,
         true},
        {"running", {job("p1", "preflight", "2026-06-28T02:00:00Z", JobState::Active)}, DetectorAction::None, false},
        {"refused (Complete, no upgrade Job)",
         {job("p1", "preflight", "2026-06-28T02:00:00Z", JobState::Complete)},
         DetectorAction::RespawnRefused,
         false},
        {"failed",
         {job("p1", "preflight", "2026-06-28T02:00:00Z", JobState::Failed)},
         DetectorAction::RespawnFailed,
         true},
        {"passed and the chain went on",
         {job("p1", "preflight", "2026-06-28T02:00:00Z", JobState::Complete),
          job("u1", "upgrade", "2026-06-28T02:05:00Z", JobState::Active)},
         DetectorAction::None,
         false},
        {"the latest preflight counts: failed, then refused",
         {job("p2", "preflight", "2026-06-29T02:00:00Z", JobState::Complete),
          job("p1", "preflight", "2026-06-28T02:00:00Z", JobState::Failed)},
         DetectorAction::RespawnRefused,
         false},
        {"the latest preflight counts: refused, then failed",
         {job("p1", "preflight", "2026-06-28T02:00:00Z", JobState::Complete),
          job("p2", "preflight", "2026-06-29T02:00:00Z", JobState::Failed)},
         DetectorAction::RespawnFailed,
         true},
        {"postflight alone is not an upgrade Job",
         {job("p1", "preflight", "2026-06-28T02:00:00Z", JobState::Complete),
          job("x", "postflight", "2026-06-28T02:09:00Z", JobState::Complete)},
         DetectorAction::RespawnRefused,
         false},
    };
    for (const auto& c : cases) {
        auto d = decide_detector("1.36", c.jobs);
        EXPECT_EQ(d.action, c.want) << c.name;
        EXPECT_EQ(d.announce, c.announce) << c.name;
        EXPECT_FALSE(d.why.empty()) << c.name;
    }
}

TEST(ChainJobFrom, LabelsCreationAndTerminalConditions) {
    auto j = chain_job_from(boost::json::parse(R"({"metadata":{"name":"p","creationTimestamp":"2026-06-28T02:00:00Z",
      "labels":{"attune.io/upgrade-phase":"preflight","attune.io/upgrade-target":"1.36"}},
      "status":{"conditions":[{"type":"SuccessCriteriaMet","status":"True"},{"type":"Complete","status":"True"}]}})"));
    ASSERT_TRUE(j.ok());
    EXPECT_EQ(j.value().phase, "preflight");
    EXPECT_EQ(j.value().target, "1.36");
    EXPECT_EQ(j.value().state, JobState::Complete);
    // FailureTarget alone is not yet Failed (pods are still terminating).
    j = chain_job_from(boost::json::parse(R"({"metadata":{"name":"p"},"status":{"conditions":[{"type":"FailureTarget","status":"True"}]}})"));
    EXPECT_EQ(j.value().state, JobState::Active);
    j = chain_job_from(boost::json::parse(R"({"metadata":{"name":"p"},"status":{"conditions":[{"type":"Failed","status":"True"}]}})"));
    EXPECT_EQ(j.value().state, JobState::Failed);
    EXPECT_FALSE(chain_job_from(boost::json::parse(R"({"metadata":{}})")).ok());
}

TEST(ChainJobName, PhaseTargetAndABase36RunId) {
    EXPECT_EQ(chain_job_name(ChainPhase::Preflight, {1, 36}, 0), "attune-upgrade-preflight-1-36-0");
    EXPECT_EQ(chain_job_name(ChainPhase::Postflight, {1, 37}, 1782612000), "attune-upgrade-postflight-1-37-thbk80");
}

constexpr const char* kTemplate = R"({
  "apiVersion": "batch/v1", "kind": "Job",
  "metadata": {"generateName": "x-", "namespace": "elsewhere", "labels": {"team": "infra"}},
  "spec": {"backoffLimit": 0, "template": {"spec": {"restartPolicy": "Never", "containers": [
    {"name": "step", "image": "attune/kubectl-attune:dev", "args": ["upgrade-step", "--matrix=/etc/m.json"]},
    {"name": "sidecar", "image": "x"}]}}}
})";

TEST(BuildChainJob, NameLabelsAndPhaseArgs) {
    auto j =
        build_chain_job(boost::json::parse(kTemplate), ChainPhase::Upgrade, {1, 36}, "attune-upgrade-upgrade-1-36-x");
    ASSERT_TRUE(j.ok()) << j.error().message;
    const auto& v = j.value();
    EXPECT_EQ(v.at_pointer("/metadata/name"), "attune-upgrade-upgrade-1-36-x");
    EXPECT_FALSE(v.at("metadata").as_object().contains("generateName"));
    EXPECT_FALSE(v.at("metadata").as_object().contains("namespace"));
    EXPECT_EQ(v.at_pointer("/metadata/labels/team"), "infra");
    EXPECT_EQ(v.at_pointer("/metadata/labels/attune.io~1upgrade-phase"), "upgrade");
    EXPECT_EQ(v.at_pointer("/metadata/labels/attune.io~1upgrade-target"), "1.36");
    EXPECT_EQ(v.at_pointer("/spec/template/metadata/labels/app.kubernetes.io~1name"), "attune-upgrade");
    EXPECT_EQ(boost::json::serialize(v.at_pointer("/spec/template/spec/containers/0/args")),
              R"(["upgrade-step","--matrix=/etc/m.json","--phase=upgrade","--target=1.36"])");
    EXPECT_FALSE(v.at_pointer("/spec/template/spec/containers/1").as_object().contains("args"));
}

TEST(BuildChainJob, RejectsWhatItCannotUse) {
    struct Case {
        const char* name;
        std::string tmpl;
    } cases[] = {
        {"not a Job", R"({"apiVersion":"v1","kind":"Pod"})"},
        {"no template", R"({"apiVersion":"batch/v1","kind":"Job","spec":{}})"},
        {"no containers", R"({"apiVersion":"batch/v1","kind":"Job","spec":{"template":{"spec":{}}}})"},
        {"two containers, no step", R"({"apiVersion":"batch/v1","kind":"Job","spec":{"template":{"spec":{"containers":[{"name":"a"},{"name":"b"}]}}}})"},
        {"sets --phase itself", R"({"apiVersion":"batch/v1","kind":"Job","spec":{"template":{"spec":{"containers":[{"name":"a","args":["--phase=upgrade"]}]}}}})"},
        {"sets --detect", R"({"apiVersion":"batch/v1","kind":"Job","spec":{"template":{"spec":{"containers":[{"name":"a","args":["--detect"]}]}}}})"},
    };
    for (const auto& c : cases) {
        auto j = build_chain_job(boost::json::parse(c.tmpl), ChainPhase::Preflight, {1, 36}, "n");
        ASSERT_FALSE(j.ok()) << c.name;
        EXPECT_EQ(j.error().code, "invalid_template") << c.name;
    }
}

TEST(UpgradeCommandFor, SubstitutesEveryTargetPlaceholder) {
    EXPECT_EQ(upgrade_command_for("hack/cluster.sh upgrade --to {target}", {1, 36}), "hack/cluster.sh upgrade --to 1.36");
    EXPECT_EQ(upgrade_command_for("a {target} b {target}", {1, 37}), "a 1.37 b 1.37");
    EXPECT_EQ(upgrade_command_for("no placeholder", {1, 37}), "no placeholder");
}

TEST(ParseChainPhase, ThreePhases) {
    EXPECT_EQ(parse_chain_phase("preflight"), ChainPhase::Preflight);
    EXPECT_EQ(parse_chain_phase("upgrade"), ChainPhase::Upgrade);
    EXPECT_EQ(parse_chain_phase("postflight"), ChainPhase::Postflight);
    EXPECT_FALSE(parse_chain_phase("detect"));
}

}  // namespace
}  // namespace attune::core
