#pragma once
// resizeMethod: InPlaceOrRecreate (docs/api.md#attunepolicy-spec): a pod the kubelet
// reports Infeasible, or Deferred for longer than a bound, is evicted
// through the Eviction API so PodDisruptionBudgets hold. Never the last
// Running replica (live Running pods are counted, never spec.replicas).
// InPlaceOnly leaves an Infeasible pod alone with InfeasibleBlocked.
#include <boost/json/object.hpp>
#include <chrono>
#include <optional>
#include <span>
#include <string>
#include <string_view>

#include "attune/core/model/pod_model.hpp"
#include "attune/core/policy/resize_method.hpp"
#include "attune/core/resize/resize_state.hpp"
#include "attune/core/util/result.hpp"
#include "attune/core/util/timestamp.hpp"

namespace attune::core {

inline constexpr std::chrono::seconds kDefaultDeferredEvictionAfter{15 * 60};

struct EvictionInputs {
    ResizeMethod method = ResizeMethod::InPlaceOnly;
    ResizeStatus state;                       // classify_resize_state against our request
    std::optional<Timestamp> deferred_since;  // when we first saw it Deferred
    std::chrono::seconds deferred_bound{kDefaultDeferredEvictionAfter};
    int running_replicas = 0;  // count_running_replicas over the workload's live pods
    Timestamp now;
};

enum class EvictionAction {
    None,               // nothing to do (or keep waiting)
    Evict,              // POST the eviction_body to pods/{name}/eviction
    EvictionBlocked,    // the last Running replica: reason eviction_last_replica
    InfeasibleBlocked,  // InPlaceOnly and Infeasible
};

struct EvictionDecision {
    EvictionAction action = EvictionAction::None;
    std::string reason;  // infeasible | deferred | eviction_last_replica | "" (history/metric reason)
    std::string message;
};

EvictionDecision decide_eviction(const EvictionInputs& in);

// Running and not being deleted: the replicas actually serving.
int count_running_replicas(std::span<const Pod> pods);

// policy/v1 Eviction for `pod`, with a uid precondition so a replacement
// pod of the same name is never evicted by mistake.
boost::json::object eviction_body(const Pod& pod);

}  // namespace attune::core
