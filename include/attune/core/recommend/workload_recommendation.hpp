#pragma once
// From a workload's source data to its recommendation (pure): the Prometheus
// range queries for it, the answers turned into the recommender's inputs,
// and the VPA's and the manual overlay's figures, each measured against the
// live baseline (workload_baseline.hpp) with the policy's settings for each
// container (containerPolicies first). The shell only sends the queries and
// reads the VPA object.
#include <boost/json/fwd.hpp>
#include <chrono>
#include <span>
#include <string>
#include <string_view>

#include "attune/core/policy/overlay.hpp"
#include "attune/core/policy/policy.hpp"
#include "attune/core/recommend/prometheus_response.hpp"
#include "attune/core/recommend/recommender.hpp"
#include "attune/core/util/result.hpp"

namespace attune::core {

// The recommender's settings for one container: its tuning
// (EffectivePolicy::tuning_for) and metricsSource.minimumDataPoints.
RecommenderSettings recommender_settings(const EffectivePolicy& policy, std::string_view container);

// The two range queries of one workload: one per resource, one series per
// container (never one query per container), over [now - historyWindow, now]
// at queryStep, with podAggregation, rateWindow and the recording metrics.
struct UsageQueries {
    std::string cpu;
    std::string memory;
    double start = 0;  // seconds since the epoch
    double end = 0;
    std::chrono::seconds step{300};
};
// Errors "invalid_recording_metric" and "unknown_kind" (promql.hpp).
Result<UsageQueries> usage_queries(const EffectivePolicy& policy, std::string_view kind, std::string_view name,
                                   std::span<const std::string> live_pod_names, double now);

// The Datadog source's two queries (datadog_query.hpp): the same struct,
// over [now - historyWindow, now] in whole seconds (the API's from and to),
// averaged over rateWindow rollups (at least 60 s). Datadog spaces the
// points itself; `step` is queryStep, for the ETA. Error "invalid_tag_value".
Result<UsageQueries> datadog_usage_queries(const EffectivePolicy& policy, std::string_view kind, std::string_view name,
                                           double now);

// The CloudWatch source's two SEARCH expressions (cloudwatch_query.hpp)
// over [now - historyWindow, now] in whole seconds, at a period of
// rateWindow in whole minutes, and the pod name prefix that keeps the
// workload's own pods in the answer. `step` is queryStep, for the ETA.
// Error "invalid_dimension_value".
struct CloudWatchQueries {
    UsageQueries usage;  // cpu and memory are the SEARCH expressions
    std::chrono::seconds period{300};
    std::string pod_prefix;
};
Result<CloudWatchQueries> cloudwatch_usage_queries(const EffectivePolicy& policy, std::string_view kind,
                                                   std::string_view name, double now);

// The answers (Prometheus', or Datadog's and CloudWatch's decoded to the same shape) grouped by container; every baseline container is recommended
// with its own settings (a container the answers do not mention has no
// points: InsufficientData). Series of other containers (excluded ones, the
// pod cgroup) are ignored. The NaN/Inf samples the decoder dropped are
// carried into non_finite_dropped_cpu / _memory.
WorkloadRecommendation recommend_from_usage(const EffectivePolicy& policy, const FrozenBaseline& baseline,
                                            const PromResponse& cpu, const PromResponse& memory, double now);

// The VPA source: the VPA object's selected bound for every baseline
// container it recommends, through the chain at full confidence. No
// recommendation in the VPA yet: no containers. Errors as
// decode_vpa_recommendations. Never stale: a VPA figure has no sample age.
Result<WorkloadRecommendation> recommend_from_vpa(const EffectivePolicy& policy, VpaSelection selection,
                                                  const FrozenBaseline& baseline, const boost::json::value& vpa,
                                                  double now);

// The Manual source: the overlay on the baseline, containers the policy
// excludes left out. Errors as apply_manual_overlay (a container the
// workload does not have, a request above its limit).
Result<WorkloadRecommendation> recommend_from_manual(const EffectivePolicy& policy, const ContainerResourceMap& overlay,
                                                     const FrozenBaseline& baseline, double now);

// Some container, or one resource of one, still has fewer than
// minimumDataPoints (the working set has points before rate() does): the
// Prometheus path keeps looking every queryStep until all are in.
bool partly_collecting(const WorkloadRecommendation& w);

// When a workload is looked at again by itself (policy, workload, pod and
// HPA changes enqueue it at once anyway).
enum class RefreshReason {
    Collecting,    // fewer than minimumDataPoints: every queryStep, as the Go original
    Recommended,   // every queryStep, at least a minute apart: a step brings one new point
    SourceFailed,  // every queryStep, at most a minute apart: recover soon after the source does
    ConfigFailed,  // a minute (the Go original's requeue after a defaults lookup failure)
    None,          // idle, paused, Observe, not managed: only a change wakes it
};
// nullopt for None.
std::optional<std::chrono::seconds> refresh_delay(RefreshReason why, Duration query_step);
// After a recommendation from `source` ("prometheus", "datadog",
// "cloudwatch", "vpa", "manual"): a metrics backend brings new points with
// time, so it is asked again (Collecting while partly collecting, else
// Recommended). A manual or VPA recommendation reads only watched objects
// (the policy, the VerticalPodAutoscaler, the pods), whose changes queue the
// workload at once: None, so an unchanged cluster costs nothing.
RefreshReason refresh_after_recommendation(std::string_view source, bool partly_collecting);

}  // namespace attune::core
