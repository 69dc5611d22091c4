#pragma once
// status.recommendations[] of one policy (docs/api.md#attunepolicy-status;
// the webhook reads it at pod CREATE, docs/webhook.md), from the store's entries. Pure.
#include <attune/controller/recommendation_store.hpp>

#include <boost/json/array.hpp>

#include <vector>

namespace attune::controller {

// How far a recommendation moves its workload: the largest relative change
// of any container's cpu or memory request against its current request; a
// request where there was none counts as a 100% change.
double change_magnitude(const core::WorkloadRecommendation& w);

// At most `max_entries` entries, the largest changes kept (ties: the smaller
// key), written sorted by kind then workload; explanations only when
// `include_explanations` (updateStrategy.includeExplanationsInStatus).
boost::json::array status_recommendations(std::vector<const StoredRecommendation*> entries, int max_entries,
                                          bool include_explanations);

}  // namespace attune::controller
