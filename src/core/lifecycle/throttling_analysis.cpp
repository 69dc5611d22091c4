#include "attune/core/lifecycle/throttling_analysis.hpp"

#include "attune/core/model/readable_units.hpp"

#include <algorithm>
#include <cmath>

namespace attune::core {
namespace {

// increase() of two counters: a pod whose periods did not advance had no
// CFS enforcement in the window (ratio 0); NaN or a negative increase is
// unusable.
std::optional<double> ratio_of(const PodThrottlingSample& s) {
    if (!s.throttled_periods || !s.periods) return std::nullopt;
    const double t = *s.throttled_periods, p = *s.periods;
    if (!std::isfinite(t) || !std::isfinite(p) || t < 0 || p < 0) return std::nullopt;
    if (p == 0) return 0.0;
    return std::min(t / p, 1.0);
}

std::string join(const std::vector<std::string>& names) {
    std::string out;
    for (std::size_t i = 0; i < names.size() && i < 5; ++i) out += (i ? ", " : "") + names[i];
    if (names.size() > 5) out += " and " + std::to_string(names.size() - 5) + " more";
    return out;
}

}  // namespace

ThrottlingVerdict evaluate_throttling(const CpuThrottlingAnalysis& a, std::span<const std::string> canary_pods,
                                      const ThrottlingMeasurement& m) {
    ThrottlingVerdict v;
    const std::string threshold = readable_percent(a.threshold_fraction);
    const bool fail_on_missing = a.on_metrics_unavailable == OnMetricsUnavailable::Fail;
    if (m.query_failed) {
        v.metrics_unavailable = true;
        v.passed = !fail_on_missing;
        v.explanation = "throttling metrics unavailable (" + (m.error.empty() ? std::string("query failed") : m.error) +
                        "); onMetricsUnavailable=" + (fail_on_missing ? "Fail" : "Pass");
        for (const auto& p : canary_pods) v.pods.push_back({p, std::nullopt, false});
        return v;
    }
    std::vector<std::string> missing, throttled;
    double sum = 0;
    std::size_t with_data = 0;
    for (const auto& name : canary_pods) {
        PodThrottlingRatio r{name, std::nullopt, false};
        const auto it = std::find_if(m.pods.begin(), m.pods.end(), [&](const PodThrottlingSample& s) { return s.pod == name; });
        if (it != m.pods.end()) r.ratio = ratio_of(*it);
        if (!r.ratio) {
            missing.push_back(name);
        } else {
            ++with_data;
            sum += *r.ratio;
            r.throttled = *r.ratio > a.threshold_fraction;
            if (r.throttled) throttled.push_back(name + " " + readable_percent(*r.ratio));
        }
        v.pods.push_back(std::move(r));
    }
    v.metrics_unavailable = !missing.empty();
    const std::string missing_note = missing.empty() ? "" : "; no throttling metrics for " + join(missing);
    if (v.metrics_unavailable && fail_on_missing) {
        v.passed = false;
        v.explanation = "throttling metrics unavailable for " + join(missing) + "; onMetricsUnavailable=Fail";
        return v;
    }
    if (with_data == 0) {
        v.passed = true;
        v.explanation = "no canary pod has throttling metrics; onMetricsUnavailable=Pass";
        return v;
    }
    const std::string counted = std::to_string(with_data) + " pod" + (with_data == 1 ? "" : "s");
    switch (a.mode) {
        case ThrottlingMode::AnyPod:
            v.passed = throttled.empty();
            v.explanation = v.passed ? "no pod throttled above " + threshold + " of its CFS periods (" + counted + ")"
                                     : "throttled above " + threshold + " of CFS periods: " + join(throttled);
            break;
        case ThrottlingMode::PercentageOfPods: {
            const double share = static_cast<double>(throttled.size()) / static_cast<double>(with_data);
            v.aggregate = share;
            // Integer comparison of throttled*100 > limit*with_data, so 1 of
            // 2 pods is exactly 50% and does not exceed a 50% limit.
            v.passed = throttled.size() * 100 <= static_cast<std::size_t>(a.percentage_of_pods_threshold) * with_data;
            v.explanation = std::to_string(throttled.size()) + " of " + counted + " (" + readable_percent(share) +
                            ") throttled above " + threshold + (v.passed ? ", within " : ", more than ") +
                            std::to_string(a.percentage_of_pods_threshold) + "%" +
                            (throttled.empty() ? "" : ": " + join(throttled));
            break;
        }
        case ThrottlingMode::Average: {
            const double mean = sum / static_cast<double>(with_data);
            v.aggregate = mean;
            v.passed = !(mean > a.threshold_fraction);
            v.explanation = "mean throttled share " + readable_percent(mean) + " over " + counted +
                            (v.passed ? " is within " : " is above ") + threshold;
            break;
        }
    }
    v.explanation += missing_note;
    return v;
}

}  // namespace attune::core
