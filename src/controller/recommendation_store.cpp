#include <attune/controller/recommendation_store.hpp>

#include <algorithm>

namespace attune::controller {

bool same_sizing(const core::WorkloadRecommendation& a, const core::WorkloadRecommendation& b) {
    if (a.stale != b.stale || a.containers.size() != b.containers.size()) return false;
    return std::equal(a.containers.begin(), a.containers.end(), b.containers.begin(),
                      [](const core::ContainerRecommendation& x, const core::ContainerRecommendation& y) {
                          return x.name == y.name && x.current == y.current && x.recommended == y.recommended;
                      });
}

bool RecommendationStore::put(StoredRecommendation r) {
    const bool observe = r.effective && r.effective->update_strategy.type == core::UpdateMode::Observe;
    if (observe || r.recommendation.containers.empty()) {
        erase(r.workload);
        return false;
    }
    const auto key = r.workload.str();
    auto it = entries_.find(key);
    if (it == entries_.end()) {
        r.generation = ++last_generation_;
        const auto workload = r.workload;
        entries_.emplace(key, std::move(r));
        notify(workload);
        return true;
    }
    auto& old = it->second;
    const bool resized = !same_sizing(old.recommendation, r.recommendation);
    // Same advice from other settings still matters to a consumer (the mode
    // or a gate may have moved), so it is announced without a new generation.
    const bool context_moved = old.policy != r.policy || old.workload_uid != r.workload_uid ||
                               old.source != r.source || old.effective != r.effective;
    r.generation = resized ? ++last_generation_ : old.generation;
    old = std::move(r);
    if (resized || context_moved) notify(old.workload);
    return resized;
}

void RecommendationStore::erase(const ObjectKey& workload) {
    if (entries_.erase(workload.str()) > 0) notify(workload);
}

const StoredRecommendation* RecommendationStore::get(const ObjectKey& workload) const {
    auto it = entries_.find(workload.str());
    return it == entries_.end() ? nullptr : &it->second;
}

void RecommendationStore::on_change(ChangeFn cb) { subscribers_.push_back(std::move(cb)); }

std::vector<const StoredRecommendation*> RecommendationStore::in_namespace(std::string_view ns) const {
    std::vector<const StoredRecommendation*> out;
    // Keys start with "ns/", so one namespace is one contiguous range.
    const std::string prefix = std::string(ns) + "/";
    for (auto it = entries_.lower_bound(prefix); it != entries_.end() && it->first.starts_with(prefix); ++it)
        out.push_back(&it->second);
    return out;
}

void RecommendationStore::notify(const ObjectKey& k) const {
    for (const auto& s : subscribers_) s(k);
}

}  // namespace attune::controller
