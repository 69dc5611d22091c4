#pragma once
// The newest recommendation per workload, the one place the executor, the
// lifecycle, the webhook's status and the aggregator read it from. Pure (no
// Asio, no clock): it lives on the manager's one io_context thread, owned by
// the controller.
//
// Entries exist only for workloads whose winning policy is not Observe and
// that have at least one container recommendation; a put() that has neither
// removes the entry instead. `generation` moves only when the sizing changes
// (containers, their current or recommended values, or staleness), never on
// a refresh that only moved confidence, data points or times, so a consumer
// can tell "act again" from "same advice, newer data".
#include <attune/controller/workload_key.hpp>
#include <attune/core/policy/policy.hpp>
#include <attune/core/recommend/recommender.hpp>
#include <attune/core/util/timestamp.hpp>

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace attune::controller {

struct StoredRecommendation {
    ObjectKey workload;  // ns/Kind/name (workload_key.hpp)
    std::string workload_uid;
    std::string policy;  // name of the winning policy in workload.ns
    std::shared_ptr<const core::EffectivePolicy> effective;  // merged settings used
    core::WorkloadRecommendation recommendation;             // per container (core/recommend/recommender.hpp)
    std::string source;  // "prometheus" | "vpa" | "manual"
    core::Timestamp computed_at;
    std::uint64_t generation = 0;  // bumps on every change of `recommendation` (not on refresh)
};

// The two recommendations would size pods the same way: the same containers
// (by name, in order) with equal current and recommended values, and the same
// `stale`. Confidence, data points, explanations and times do not count.
bool same_sizing(const core::WorkloadRecommendation& a, const core::WorkloadRecommendation& b);

class RecommendationStore {
public:
    using ChangeFn = std::function<void(const ObjectKey&)>;

    // Replaces the entry; returns true when the recommendation changed
    // (generation bumped). Generations come from one store-wide counter, so
    // an entry erased and created again never repeats one. An Observe policy
    // or a recommendation without containers erases the entry (false).
    bool put(StoredRecommendation r);
    void erase(const ObjectKey& workload);
    const StoredRecommendation* get(const ObjectKey& workload) const;

    // Adds a subscriber, called synchronously after a put that changed
    // something (the generation, or the policy, uid, source or settings
    // used) or an erase of an existing entry, once the store holds the new
    // state. Subscribers must not block: enqueue a key and return.
    void on_change(ChangeFn cb);

    // The entries of one namespace, by workload key.
    std::vector<const StoredRecommendation*> in_namespace(std::string_view ns) const;
    std::size_t size() const noexcept { return entries_.size(); }

private:
    void notify(const ObjectKey& k) const;

    std::map<std::string, StoredRecommendation, std::less<>> entries_;  // by ObjectKey::str()
    std::vector<ChangeFn> subscribers_;
    std::uint64_t last_generation_ = 0;
};

}  // namespace attune::controller
