#pragma once
// The CPU throttling evaluator of the lifecycle's post-pause analysis
// (docs/lifecycle.md). Pure: the shell runs the two PromQL increase()
// queries per pod over the window and hands the numbers in.
//
//   ratio(pod) = increase(container_cpu_cfs_throttled_periods_total[w])
//              / increase(container_cpu_cfs_periods_total[w])
//   (each summed over the pod's containers)
//
// A ratio strictly above thresholdFraction is "throttled"; at the threshold
// it is not. The modes:
//   AnyPod            fail when any pod is throttled;
//   PercentageOfPods  fail when the throttled share of the pods is strictly
//                     above percentageOfPodsThreshold percent;
//   Average           fail when the mean of the per-pod ratios is strictly
//                     above thresholdFraction.
// A pod without usable numbers (no series, no periods, NaN) is unavailable.
// onMetricsUnavailable: Fail fails when any pod is unavailable or the query
// failed; Pass evaluates the pods that have numbers (none: pass).
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "attune/core/policy/lifecycle_spec.hpp"

namespace attune::core {

struct PodThrottlingSample {
    std::string pod;
    // The two increases over the window; nullopt when the query had no
    // series for the pod.
    std::optional<double> throttled_periods;
    std::optional<double> periods;
};

struct ThrottlingMeasurement {
    bool query_failed = false;  // Prometheus could not be asked or answered an error
    std::string error;          // why, for the explanation
    std::vector<PodThrottlingSample> pods;
};

struct PodThrottlingRatio {
    std::string pod;
    std::optional<double> ratio;  // nullopt: unavailable
    bool throttled = false;
};

struct ThrottlingVerdict {
    bool passed = false;
    bool metrics_unavailable = false;   // some pod (or the query) had no usable numbers
    std::optional<double> aggregate;    // Average: the mean; PercentageOfPods: the throttled share (0..1)
    std::vector<PodThrottlingRatio> pods;  // in the order of `canary_pods`
    std::string explanation;            // one line a human can act on
};

// `canary_pods`: the pods the step validated (a sample for another pod is
// ignored; a canary pod without a sample is unavailable).
ThrottlingVerdict evaluate_throttling(const CpuThrottlingAnalysis& analysis, std::span<const std::string> canary_pods,
                                      const ThrottlingMeasurement& measurement);

}  // namespace attune::core
