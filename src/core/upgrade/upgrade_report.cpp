#include "attune/core/upgrade/upgrade_report.hpp"

#include "attune/core/upgrade/upgrade_reason.hpp"

#include <boost/json.hpp>

#include <algorithm>
#include <charconv>
#include <cstdlib>

namespace attune::core {
namespace {

std::optional<bool> pick(const std::vector<GaugeSample>& s, const std::optional<std::string>& target) {
    if (s.empty()) return std::nullopt;
    if (target)
        for (const auto& x : s)
            if (x.target == *target) return x.value >= 0.5;
    double best = s.front().value;
    for (const auto& x : s) best = std::max(best, x.value);
    return best >= 0.5;
}

}  // namespace

Result<std::vector<GaugeSample>> gauge_samples_from(const PromResponse& r) {
    if (r.result_type != "vector")
        return make_error("invalid_prometheus_response", "Prometheus query: expected a vector result, got " +
                                                             (r.result_type.empty() ? std::string("none") : r.result_type));
    std::vector<GaugeSample> out;
    for (const auto& series : r.series) {
        // A NaN or infinite gauge was dropped by the decoder: no sample, no answer.
        if (series.samples.empty()) continue;
        GaugeSample s;
        if (auto t = series.labels.find("target"); t != series.labels.end()) s.target = t->second;
        s.value = series.samples.back().value;
        out.push_back(std::move(s));
    }
    return out;
}

ReportGauges report_gauges(const std::vector<GaugeSample>& available, const std::vector<GaugeSample>& blocked,
                           const std::vector<GaugeSample>& held) {
    ReportGauges g;
    if (!available.empty()) {
        // The available series of the highest value names the target.
        const auto it = std::max_element(available.begin(), available.end(),
                                         [](const auto& a, const auto& b) { return a.value < b.value; });
        g.target = it->target;
        g.available = it->value >= 0.5;
    } else if (!blocked.empty()) {
        g.target = blocked.front().target;
    }
    g.blocked = pick(blocked, g.target);
    g.held = pick(held, g.target);
    return g;
}

bool report_needs_reasons(const ReportGauges& g) {
    return g.available.value_or(false) && (g.blocked.value_or(false) || g.held.value_or(false));
}

ReportHeadline report_headline(const ReportGauges& g) {
    if (!g.available) return ReportHeadline::Unknown;
    if (!*g.available) return ReportHeadline::NoUpgrade;
    // Held wins, as in the gate.
    if (g.held.value_or(false)) return ReportHeadline::Held;
    if (g.blocked.value_or(false)) return ReportHeadline::Blocked;
    if (!g.blocked || !g.held) return ReportHeadline::Unknown;  // not evaluated yet
    return ReportHeadline::Safe;
}

std::string render_upgrade_report(const ReportGauges& g, const ReportReasons& r) {
    const std::string target = g.target.value_or("?");
    std::string out;
    switch (report_headline(g)) {
        case ReportHeadline::Held: out = "⏸️ HELD — " + target + " not yet upgradable\n"; break;
        case ReportHeadline::Blocked:
            out = "⛔ BLOCKED — " + target + " needs action before it can be upgraded\n";
            break;
        case ReportHeadline::Safe: out = "✅ SAFE — " + target + " is upgradable; the chain proceeds\n"; break;
        case ReportHeadline::NoUpgrade: return "✅ No Kubernetes upgrade available (the cluster is on " + target + ")\n";
        case ReportHeadline::Unknown:
            return g.available ? "❓ UNKNOWN — " + target + " is available but the gate has not reported on it yet\n"
                               : "❓ UNKNOWN — no k8s_upgrade_available in Prometheus (has the detector run?)\n";
    }
    if (!report_needs_reasons(g)) return out;
    if (!r.error.empty()) return out + "  (the reasons could not be read: " + r.error + ")\n";
    std::vector<std::string> groups[3];
    std::vector<std::string> untagged;
    for (const auto& line : r.lines) {
        if (line.find_first_not_of(" \t\r") == std::string::npos) continue;
        auto p = parse_reason_line(line);
        if (p.cls) groups[static_cast<int>(*p.cls)].push_back(p.text);
        else untagged.push_back(p.text);
    }
    // Older gate output had no tags: still shown, as plain bullets under the
    // headline, so they are not read as part of a group.
    for (const auto& x : untagged) out += "  • " + x + "\n";
    static constexpr const char* kTitles[] = {"Action needed", "Waiting on upstream", "Pinned (held by us)"};
    for (int i = 0; i < 3; ++i) {
        if (groups[i].empty()) continue;
        out += std::string(kTitles[i]) + ":\n";
        for (const auto& x : groups[i]) out += "  • " + x + "\n";
    }
    if (r.lines.empty()) out += "  (no reasons recorded)\n";
    if (!r.evaluated_for.empty() && r.evaluated_for != target)
        out += "  (these reasons were recorded for " + r.evaluated_for + ", not " + target + ")\n";
    if (!r.source.empty())
        out += "Reasons from " + r.source + (r.evaluated_at.empty() ? "" : " at " + r.evaluated_at) + ".\n";
    return out;
}

}  // namespace attune::core
