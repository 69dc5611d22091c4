#include "attune/core/lifecycle/selection.hpp"

#include <algorithm>

#include "attune/core/util/stable_hash.hpp"

namespace attune::core {

std::uint64_t pod_selection_hash(std::string_view workload_uid, std::string_view pod_uid) {
    return stable_hash({workload_uid, pod_uid});
}

std::vector<std::size_t> selection_order(std::string_view workload_uid, std::span<const std::string> pod_uids) {
    struct Key {
        std::uint64_t hash;
        std::string_view uid;
        std::size_t index;
    };
    std::vector<Key> keyed;
    keyed.reserve(pod_uids.size());
    for (std::size_t i = 0; i < pod_uids.size(); ++i)
        keyed.push_back({pod_selection_hash(workload_uid, pod_uids[i]), pod_uids[i], i});
    std::sort(keyed.begin(), keyed.end(), [](const Key& a, const Key& b) {
        return a.hash != b.hash ? a.hash < b.hash : (a.uid != b.uid ? a.uid < b.uid : a.index < b.index);
    });
    std::vector<std::size_t> out;
    out.reserve(keyed.size());
    for (const auto& k : keyed) out.push_back(k.index);
    return out;
}

std::vector<std::string> order_pods_for_selection(std::string_view workload_uid, std::span<const std::string> pod_uids) {
    std::vector<std::string> out;
    out.reserve(pod_uids.size());
    for (std::size_t i : selection_order(workload_uid, pod_uids)) out.push_back(pod_uids[i]);
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
