#pragma once
// The recommender's output in the exact shape of attune-api.md §3
// `status.recommendations[]` (and contracts.md, which the webhook reads at
// pod CREATE): quantities as canonical strings, times as RFC 3339.
#include <boost/json/object.hpp>
#include <string>

#include "attune/core/recommender.hpp"

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

}  // namespace attune::core
