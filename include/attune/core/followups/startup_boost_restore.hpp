#pragma once
// Startup boost restore (docs/webhook.md): the webhook raises the CPU request at
// CREATE and records attune.io/startup-boost-at. Once the boost's duration
// has passed, the executor restores the unboosted CPU request in place
// (a decrease: always allowed by the gates) and then drops the annotation.
#include <boost/json/object.hpp>
#include <chrono>
#include <optional>
#include <string>
#include <vector>

#include "attune/core/policy/overlay.hpp"
#include "attune/core/resize/plan_resize.hpp"
#include "attune/core/util/timestamp.hpp"

namespace attune::core {

struct BoostRestoreInputs {
    Timestamp now;
    std::chrono::seconds duration{0};  // cpu.startupBoost.duration
    double multiplier = 1.0;           // cpu.startupBoost.multiplier
    // Per container, the CPU request the boost started from when known (the
    // recommendation the webhook sized the pod with). Otherwise the live
    // request / multiplier, rounded up to the millicore.
    ContainerResourceMap unboosted;
};

enum class BoostRestoreAction {
    NotBoosted,  // no attune.io/startup-boost-at
    Boosting,    // the boost still runs: check again after `remaining`
    Restore,     // plan_resize(pod, targets, caps, RequestsOnly): CPU requests only
    Clear,       // already at the unboosted request: only drop the annotation
};

struct BoostRestoreDecision {
    BoostRestoreAction action = BoostRestoreAction::NotBoosted;
    std::chrono::seconds remaining{0};
    std::vector<ContainerTarget> targets;
    std::string message;  // says when an unreadable annotation forced the restore
};

// An unparseable attune.io/startup-boost-at restores at once (a boost with
// no known start must not run forever) and says so.
BoostRestoreDecision decide_boost_restore(const Pod& pod, const BoostRestoreInputs& in);

// {"metadata":{"annotations":{"attune.io/startup-boost-at":null}}}, sent once
// the restore is Applied (or at Clear).
boost::json::object boost_restore_done_patch();

}  // namespace attune::core
