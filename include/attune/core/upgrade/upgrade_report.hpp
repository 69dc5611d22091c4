#pragma once
// The nightly upgrade report (docs/upgrade-gate.md), pure: the headline
// from the gauges (HELD / BLOCKED / SAFE, or no upgrade available), and the
// gate's reason lines grouped by tag. Reasons are wanted only when an upgrade
// is available and blocked or held.
#include "attune/core/recommend/prometheus_response.hpp"
#include "attune/core/util/result.hpp"

#include <boost/json/value.hpp>

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace attune::core {

// One sample of an instant-vector query: the series' target label and value.
struct GaugeSample {
    std::string target;
    double value = 0;
};
// The samples of a decoded /api/v1/query answer (core::decode_prometheus_response):
// each series' target label and its newest value. Error code
// "invalid_prometheus_response" unless the result is an instant vector.
Result<std::vector<GaugeSample>> gauge_samples_from(const PromResponse& query_response);

struct ReportGauges {
    std::optional<std::string> target;  // from k8s_upgrade_available's target label
    std::optional<bool> available;
    std::optional<bool> blocked;
    std::optional<bool> held;
};
// Picks the samples of `target` (the available gauge's), else the highest value.
ReportGauges report_gauges(const std::vector<GaugeSample>& available, const std::vector<GaugeSample>& blocked,
                           const std::vector<GaugeSample>& held);

// An upgrade is available and the gate blocked or held it.
bool report_needs_reasons(const ReportGauges& g);

enum class ReportHeadline { Held, Blocked, Safe, NoUpgrade, Unknown };
ReportHeadline report_headline(const ReportGauges& g);

struct ReportReasons {
    std::vector<std::string> lines;  // as the gate printed them, tagged or not
    std::string source;              // "ConfigMap attune-upgrade/attune-upgrade-gate-report", a file
    std::string evaluated_for;       // the target those lines were judged for, when known
    std::string evaluated_at;
    std::string error;               // the reasons were wanted and could not be read
};

// The report text:
//   ⏸️ HELD — 1.36 not yet upgradable
//     • <an untagged line from an older gate>
//   Action needed:
//     • calico: upgrade calico to >= 3.30.0 ...
//   Waiting on upstream:
//     • ...
//   Pinned (held by us):
//     • ...
std::string render_upgrade_report(const ReportGauges& g, const ReportReasons& r);

}  // namespace attune::core
