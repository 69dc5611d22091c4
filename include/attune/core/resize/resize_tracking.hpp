#pragma once
// Following one /resize of ours through the pod informer until it settles
// (docs/resize.md). A successful PATCH is not success: the
// resize counts only once classify_resize_state says Applied. Pure.
#include <chrono>
#include <optional>
#include <string>
#include <vector>

#include "attune/core/model/pod_model.hpp"
#include "attune/core/resize/resize_report.hpp"
#include "attune/core/resize/resize_state.hpp"
#include "attune/core/util/timestamp.hpp"

namespace attune::core {

enum class TrackedKind {
    Resize,        // toward the recommendation
    Revert,        // back to the stored originals (safety)
    BoostRestore,  // the end of a startup boost
    Adopted,       // found in progress after a restart or a failover: followed, not reported
};

struct TrackedResize {
    TrackedKind kind = TrackedKind::Resize;
    std::string pod_uid;
    std::string pod_name;
    ResizeRequest request;  // what we asked for, at the generation the /resize answered with
    // resourceVersions of the pod known to predate the /resize (the one it
    // was planned from, our tracking patch's): an informer cache still
    // holding one of them has not seen the resize yet.
    std::vector<std::string> stale_resource_versions;
    // The pod's resourceVersion in the /resize answer. Where the apiserver
    // reports no generation (1.32), a cached pod without our target counts
    // as superseded only at this version or after kInformerLagGrace: another
    // write (kubesim's or the kubelet's status) may land in the cache before
    // the informer delivers the resize.
    std::string answered_resource_version;
    std::vector<ContainerChange> changes;
    Timestamp submitted_at;
    std::optional<Timestamp> deferred_since;  // first seen Deferred
    bool error_reported = false;              // a PodResizeInProgress Error was reported once
    std::string reason;                       // a revert's reason (oomkill, restart, ...)
};

enum class TrackVerdict {
    Waiting,     // InProgress or Deferred: the kubelet has not finished
    Applied,     // settled: the resize took effect
    Infeasible,  // settled: the kubelet will not apply it
    Superseded,  // settled: the spec no longer carries our target (someone resized it again)
    Gone,        // settled: the pod was deleted or replaced (another uid)
};

struct TrackUpdate {
    TrackVerdict verdict = TrackVerdict::Waiting;
    ResizeStatus status;
    bool became_deferred = false;  // first time seen Deferred: set deferred_since
    bool error_now = false;        // first time seen InProgress with reason Error: report ResizeFailed once
    std::chrono::seconds elapsed{0};  // since the PATCH, for attune_resize_duration_seconds
};

// How long a cached pod may lag the /resize answer before a spec without
// our target is believed (1.32 only; later minors compare generations).
inline constexpr std::chrono::seconds kInformerLagGrace{5};

// `pod`: the pod as the informer holds it now; nullptr when it is gone. A
// cached pod older than the /resize (a lower generation, or a
// resourceVersion from before it) is Waiting, never Superseded: the
// informer lags the PATCH's answer.
TrackUpdate track_resize(const TrackedResize& t, const Pod* pod, Timestamp now);

}  // namespace attune::core
