#include "attune/core/upgrade/upgrade_report.hpp"

#include <gtest/gtest.h>

#include <boost/json.hpp>

namespace attune::core {
namespace {

ReportGauges gauges(std::optional<bool> available, std::optional<bool> blocked, std::optional<bool> held) {
    ReportGauges g;
    g.target = "1.36";
    g.available = available;
    g.blocked = blocked;
    g.held = held;
    return g;
}

// The nightly report: the held headline and grouped reasons, with an
// untagged (older) line still rendered as a plain bullet.
TEST(UpgradeReport, HeldHeadlineAndGroupedReasons) {
    ReportReasons r;
    r.lines = {"[ACTIONABLE] calico: upgrade calico to >= 3.30.0",
               "[WAITING] kyverno: no released kyverno supports Kubernetes 1.36 yet",
               "[PINNED] gpu-operator: pinned: driver",
               "[WAITING] external-secrets: no released external-secrets supports Kubernetes 1.36 yet",
               "kyverno 1.14 does not support 1.36",
               ""};
    r.source = "ConfigMap attune-upgrade/attune-upgrade-gate-report";
    r.evaluated_for = "1.36";
    r.evaluated_at = "2026-06-28T02:00:00Z";
    EXPECT_EQ(render_upgrade_report(gauges(true, false, true), r),
              "⏸️ HELD — 1.36 not yet upgradable\n"
              "  • kyverno 1.14 does not support 1.36\n"
              "Action needed:\n"
              "  • calico: upgrade calico to >= 3.30.0\n"
              "Waiting on upstream:\n"
              "  • kyverno: no released kyverno supports Kubernetes 1.36 yet\n"
              "  • external-secrets: no released external-secrets supports Kubernetes 1.36 yet\n"
              "Pinned (held by us):\n"
              "  • gpu-operator: pinned: driver\n"
              "Reasons from ConfigMap attune-upgrade/attune-upgrade-gate-report at 2026-06-28T02:00:00Z.\n");
}

TEST(UpgradeReport, BlockedSafeNoUpgradeAndUnknown) {
    ReportReasons r;
    r.lines = {"[ACTIONABLE] calico: upgrade calico to >= 3.30.0"};
    EXPECT_EQ(render_upgrade_report(gauges(true, true, false), r),
              "⛔ BLOCKED — 1.36 needs action before it can be upgraded\nAction needed:\n  • calico: upgrade calico to >= 3.30.0\n");
    EXPECT_EQ(render_upgrade_report(gauges(true, false, false), r), "✅ SAFE — 1.36 is upgradable; the chain proceeds\n");
    EXPECT_EQ(render_upgrade_report(gauges(false, true, false), r), "✅ No Kubernetes upgrade available (the cluster is on 1.36)\n");
    EXPECT_EQ(render_upgrade_report(gauges(true, std::nullopt, std::nullopt), r),
              "❓ UNKNOWN — 1.36 is available but the gate has not reported on it yet\n");
    ReportGauges none;
    EXPECT_EQ(render_upgrade_report(none, r), "❓ UNKNOWN — no k8s_upgrade_available in Prometheus (has the detector run?)\n");
    // Both set (should not happen): held wins, as in the gate.
    EXPECT_EQ(report_headline(gauges(true, true, true)), ReportHeadline::Held);
}

TEST(UpgradeReport, FetchesReasonsOnlyWhenAvailableAndBlockedOrHeld) {
    struct Case {
        std::optional<bool> available, blocked, held;
        bool want;
    } cases[] = {
        {true, true, false, true},   {true, false, true, true},  {true, false, false, false},
        {false, true, false, false}, {false, false, true, false}, {std::nullopt, true, true, false},
    };
    for (const auto& c : cases) EXPECT_EQ(report_needs_reasons(gauges(c.available, c.blocked, c.held)), c.want);
}

TEST(UpgradeReport, UnreadableReasonsAndAnOlderTargetAreSaid) {
    ReportReasons r;
    r.error = "configmaps \"attune-upgrade-gate-report\" not found";
    EXPECT_EQ(render_upgrade_report(gauges(true, true, false), r),
              "⛔ BLOCKED — 1.36 needs action before it can be upgraded\n"
              "  (the reasons could not be read: configmaps \"attune-upgrade-gate-report\" not found)\n");
    ReportReasons old;
    old.lines = {"[WAITING] kyverno: none"};
    old.evaluated_for = "1.35";
    EXPECT_NE(render_upgrade_report(gauges(true, false, true), old).find("recorded for 1.35, not 1.36"), std::string::npos);
}

TEST(GaugeSamplesFrom, VectorAnswersAndErrors) {
    auto decoded = decode_prometheus_response(R"({"status":"success","data":{"resultType":"vector","result":[
        {"metric":{"__name__":"k8s_upgrade_blocked","job":"attune-upgrade","target":"1.36"},"value":[1782612000.5,"1"]},
        {"metric":{"target":"1.35"},"value":[1782612000.5,"0"]},
        {"metric":{"target":"1.34"},"value":[1782612000.5,"NaN"]}]}})");
    ASSERT_TRUE(decoded.ok()) << decoded.error().message;
    auto s = gauge_samples_from(decoded.value());
    ASSERT_TRUE(s.ok());
    ASSERT_EQ(s.value().size(), 2u);  // the NaN gauge is no answer
    EXPECT_EQ(s.value()[0].target, "1.36");
    EXPECT_EQ(s.value()[0].value, 1);
    EXPECT_EQ(s.value()[1].value, 0);
    auto matrix = decode_prometheus_response(R"({"status":"success","data":{"resultType":"matrix","result":[]}})");
    ASSERT_TRUE(matrix.ok());
    EXPECT_FALSE(gauge_samples_from(matrix.value()).ok());
    // Errors and garbage stop in the decoder, with its own codes.
    EXPECT_FALSE(decode_prometheus_response(R"({"status":"error","error":"parse error"})").ok());
    EXPECT_FALSE(decode_prometheus_response(R"({"status":"success","data":{"resultType":"vector","result":[{"value":[1,"x"]}]}})").ok());
}

TEST(ReportGauges, TheAvailableTargetPicksTheSeries) {
    auto g = report_gauges({{"1.36", 1}}, {{"1.35", 1}, {"1.36", 0}}, {{"1.36", 1}});
    EXPECT_EQ(g.target, "1.36");
    EXPECT_EQ(g.available, true);
    EXPECT_EQ(g.blocked, false);
    EXPECT_EQ(g.held, true);
    g = report_gauges({}, {}, {});
    EXPECT_FALSE(g.available);
    EXPECT_FALSE(g.blocked);
}

}  // namespace
}  // namespace attune::core
