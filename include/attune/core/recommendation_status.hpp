#pragma once
// AttunePolicy status.recommendations[] (attune-api.md §3, contracts.md):
// what the recommender publishes per workload and what the admission
// webhook sizes new pods from. Decode and encode live together so the
// writer and the readers cannot drift apart.
#include <boost/json/value.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "attune/core/quantity.hpp"
#include "attune/core/result.hpp"

namespace attune::core {

// {cpuRequest, cpuLimit, memoryRequest, memoryLimit}; a zero limit means
// "no limit" (the Go operator writes "0" there).
struct RecommendedResources {
    Quantity cpu_request;
    Quantity cpu_limit;
    Quantity memory_request;
    Quantity memory_limit;
};

struct ContainerRecommendation {
    std::string name;
    RecommendedResources current;
    RecommendedResources recommended;
    double confidence = 0;  // 0..1
    std::int32_t data_points = 0;
    std::string last_updated;                   // RFC 3339
    std::optional<boost::json::value> explanation;  // kept as sent (§3 explanation.{cpu,memory})
};

struct WorkloadRecommendation {
    std::string workload;  // name
    std::string kind;      // Deployment, StatefulSet, ...
    std::vector<ContainerRecommendation> containers;
    std::string last_data_time;  // RFC 3339, may be empty
    bool stale = false;          // computed from cached data: never applied

    const ContainerRecommendation* find(std::string_view container) const;
};

// The policy's status.recommendations (the whole AttunePolicy object or its
// status is accepted). Absent: an empty list. Error code
// "invalid_recommendations" naming the JSON path when an entry is malformed.
result<std::vector<WorkloadRecommendation>> decode_recommendations(const boost::json::value& policy_or_status);

// One entry as status.recommendations[] carries it.
boost::json::value encode_recommendation(const WorkloadRecommendation& rec);

// The entry for one workload, or nullptr.
const WorkloadRecommendation* find_recommendation(const std::vector<WorkloadRecommendation>& recs,
                                                  std::string_view kind, std::string_view workload);

}  // namespace attune::core
