#pragma once
// The Manual source (docs/lifecycle.md): spec.metricsSource.manual.containers[] give
// resources that overlay the live baseline (overlay.hpp). This file decodes
// the manual block and turns the overlaid resources into recommendations.
#include <boost/json/fwd.hpp>
#include <string>
#include <vector>

#include "attune/core/policy/overlay.hpp"
#include "attune/core/recommend/recommender.hpp"
#include "attune/core/util/result.hpp"

namespace attune::core {

// `manual` is the value of spec.metricsSource.manual:
//   {containers: [{name, resources: {requests?, limits?}}]}
// Error "invalid_object" naming the path for a missing or duplicate name or
// a bad quantity. `path` prefixes the messages ("spec.metricsSource.manual").
Result<ContainerResourceMap> decode_manual_overlay(const boost::json::value& manual, const std::string& path);

// One recommendation per container the overlay names: current is the
// baseline, recommended the overlaid requests and limits (cpu and memory),
// confidence 1 (the user's figures), no explanation. Errors as
// apply_manual_overlay.
Result<std::vector<ContainerRecommendation>> manual_recommendations(const FrozenBaseline& baseline,
                                                                    const ContainerResourceMap& overlay, double now);

}  // namespace attune::core
