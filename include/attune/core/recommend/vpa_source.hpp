#pragma once
// The VPA source: recommendations read from an autoscaling.k8s.io/v1
// VerticalPodAutoscaler's status.recommendation.containerRecommendations[],
// one bound picked by `selection`, then run through the recommender's chain
// as a single figure (recommend_from_point).
#include <boost/json/fwd.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "attune/core/model/pod_model.hpp"
#include "attune/core/recommend/recommender.hpp"
#include "attune/core/util/result.hpp"
#include "attune/core/policy/source_options.hpp"  // VpaSelection

namespace attune::core {

// "Target" (also ""), "LowerBound", "UpperBound"; error "invalid_selection".
Result<VpaSelection> parse_vpa_selection(std::string_view s);

struct VpaContainerRecommendation {
    std::string container_name;
    ResourceList target, lower_bound, upper_bound, uncapped_target;

    const ResourceList& selected(VpaSelection s) const;
};

// No status or no recommendation yet: an empty list (the VPA has not
// recommended anything). Entries without a containerName are skipped, as
// the VPA API allows none. A bad quantity is error "invalid_object" naming
// its path.
Result<std::vector<VpaContainerRecommendation>> decode_vpa_recommendations(const boost::json::value& vpa);

// One PointEstimate per live container the VPA recommends for, with the
// selected bound's cpu and memory (a resource the bound omits stays at the
// live value). Containers without a VPA entry are left out.
struct LiveContainer {
    std::string name;
    ResourceRequirements resources;
};
std::vector<PointEstimate> vpa_point_estimates(const std::vector<VpaContainerRecommendation>& recs,
                                               VpaSelection selection, const std::vector<LiveContainer>& live);

}  // namespace attune::core
