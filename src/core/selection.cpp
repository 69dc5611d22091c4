#include "attune/core/selection.hpp"

#include <algorithm>
#include <utility>

#include "attune/core/stable_hash.hpp"

namespace attune::core {

std::uint64_t pod_selection_hash(std::string_view workload_uid, std::string_view pod_uid) {
    return stable_hash({workload_uid, pod_uid});
}

std::vector<std::string> order_pods_for_selection(std::string_view workload_uid, std::span<const std::string> pod_uids) {
    std::vector<std::pair<std::uint64_t, std::string>> keyed;
    keyed.reserve(pod_uids.size());
    for (const auto& uid : pod_uids) keyed.emplace_back(pod_selection_hash(workload_uid, uid), uid);
    std::sort(keyed.begin(), keyed.end());
    std::vector<std::string> out;
    out.reserve(keyed.size());
    for (auto& [hash, uid] : keyed) out.push_back(std::move(uid));
    return out;
}

std::size_t desired_pod_count(unsigned percent, std::size_t n) {
    const std::size_t p = std::min(percent, 100u);
    return (p * n + 99) / 100;
}

std::vector<std::string> select_pods(std::string_view workload_uid, std::span<const std::string> pod_uids,
                                     unsigned percent) {
    auto ordered = order_pods_for_selection(workload_uid, pod_uids);
    ordered.resize(desired_pod_count(percent, ordered.size()));
    return ordered;
}

}  // namespace attune::core
