#pragma once
// The recommender's output in the exact shape of
// `status.recommendations[]` (docs/api.md#attunepolicy-status), which the
// webhook reads at pod CREATE: quantities as canonical strings, times as RFC 3339. The
// writer's encoders and the webhook's decoder live together so the two
// sides cannot drift apart.
#include <boost/json/object.hpp>
#include <string>
#include <string_view>
#include <vector>

#include "attune/core/recommend/recommender.hpp"
#include "attune/core/util/result.hpp"

namespace attune::core {

// {rawPercentile, overhead, afterOverhead, burstFactor, afterBurst,
//  confidence, confidenceFactor, afterConfidence, bounds{min,max},
//  boundsApplied?, afterBounds, minChangePercent, maxChangePercent,
//  changeFilterApplied?, afterChangeFilter, final, finalAdjustment?}
// Optional strings are omitted when empty, as the Go API's omitempty does.
boost::json::object explanation_json(const ResourceExplanation& e);

// {cpuRequest, cpuLimit, memoryRequest, memoryLimit}; absent values are "0".
boost::json::object resource_values_json(const ResourceValues& v);

// {name, current, recommended, confidence, dataPoints, lastUpdated,
//  explanation?{cpu?, memory?}}; the explanation only when asked for
// (updateStrategy.includeExplanationsInStatus) and when one exists.
boost::json::object container_recommendation_json(const ContainerRecommendation& c, bool include_explanation);

// {workload, kind, containers[], lastDataTime?, stale}
boost::json::object workload_recommendation_json(const std::string& workload, const std::string& kind,
                                                 const WorkloadRecommendation& w, bool include_explanations);

// One status.recommendations[] entry read back (the webhook sizes new pods
// from it). Decoded: workload, kind, stale, lastDataTime and per container
// name, current, recommended, confidence, dataPoints, lastUpdated; the
// explanations are the writer's business and are not read back.
struct StatusRecommendation {
    std::string workload;  // name
    std::string kind;      // Deployment, StatefulSet, ...
    WorkloadRecommendation recommendation;

    const ContainerRecommendation* find(std::string_view container) const;
};

// The policy's status.recommendations (the whole AttunePolicy object or its
// status is accepted). Absent: an empty list. Error code
// "invalid_recommendations" naming the JSON path when an entry is malformed.
Result<std::vector<StatusRecommendation>> decode_status_recommendations(const boost::json::value& policy_or_status);

// The entry for one workload, or nullptr.
const StatusRecommendation* find_status_recommendation(const std::vector<StatusRecommendation>& recs,
                                                       std::string_view kind, std::string_view workload);

}  // namespace attune::core
