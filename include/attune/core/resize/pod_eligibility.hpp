#pragma once
// May this pod be resized now? (docs/resize.md#one-pod-step-by-step). Checked
// before planning; an ineligible pod is left alone this cycle, with a
// reason the shell logs (and, for opt-outs, turns into an Event).
#include <optional>
#include <string>

#include "attune/core/policy/annotations.hpp"
#include "attune/core/model/pod_model.hpp"
#include "attune/core/resize/resize_state.hpp"

namespace attune::core {

struct EligibilityContext {
    StringMap workload_annotations;  // the owning workload's metadata.annotations
    // The namespace's annotations; nullopt when the namespace cache cannot
    // tell, which fails closed (the freeze cannot be ruled out).
    std::optional<StringMap> namespace_annotations;
};

struct Eligibility {
    bool eligible = false;
    // "" when eligible, else one of: not_running, deleting, resize_in_progress,
    // resize_deferred, resize_infeasible, opted_out, namespace_frozen,
    // namespace_unknown, startup_boost.
    std::string reason;
    std::string message;
    ResizeStatus current;  // where the pod's own spec stands (classify_current_resize)
};

// In order: Running; not deleting; attune.io/skip=true on neither pod nor
// workload; attune.io/freeze=true not on the namespace; and no resize
// pending or in progress (classify_current_resize is Applied). A Deferred or
// Infeasible pod is ineligible for a new /resize but is what the eviction
// decision looks at under InPlaceOrRecreate. Last, a pod under a startup
// boost (attune.io/startup-boost-at) waits for the boost's restore.
Eligibility check_pod_eligibility(const Pod& pod, const EligibilityContext& ctx);

}  // namespace attune::core
