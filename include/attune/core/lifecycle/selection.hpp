#pragma once
// Stable, cumulative canary selection (docs/lifecycle.md): eligible pods ordered by
// StableHash(workload UID, pod UID); a step of p% takes the first
// ceil(p% x n) of that order, so 10% then 25% adds the next 15%.
#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace attune::core {

// FNV-1a 64 of the two length-prefixed UIDs (stable_hash.hpp).
std::uint64_t pod_selection_hash(std::string_view workload_uid, std::string_view pod_uid);

// Pod UIDs in selection order: by hash, ties broken by UID.
std::vector<std::string> order_pods_for_selection(std::string_view workload_uid, std::span<const std::string> pod_uids);

// The same order as indices into `pod_uids`, for callers that order their
// own pod values.
std::vector<std::size_t> selection_order(std::string_view workload_uid, std::span<const std::string> pod_uids);

// ceil(percent x n / 100), percent clamped to 100: 10% of 11 is 2.
std::size_t desired_pod_count(unsigned percent, std::size_t n);

// The first desired_pod_count(percent, n) pods of the stable order.
std::vector<std::string> select_pods(std::string_view workload_uid, std::span<const std::string> pod_uids,
                                     unsigned percent);

}  // namespace attune::core
