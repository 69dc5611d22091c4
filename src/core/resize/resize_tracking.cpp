#include "attune/core/resize/resize_tracking.hpp"

#include <algorithm>

namespace attune::core {

TrackUpdate track_resize(const TrackedResize& t, const Pod* pod, Timestamp now) {
    TrackUpdate u;
    u.elapsed = now > t.submitted_at ? std::chrono::duration_cast<std::chrono::seconds>(now - t.submitted_at)
                                     : std::chrono::seconds{0};
    if (!pod || pod->uid != t.pod_uid) {
        u.verdict = TrackVerdict::Gone;
        return u;
    }
    const bool behind = (t.request.generation > 0 && pod->generation > 0 && pod->generation < t.request.generation) ||
                        std::find(t.stale_resource_versions.begin(), t.stale_resource_versions.end(),
                                  pod->resource_version) != t.stale_resource_versions.end();
    if (behind) {
        u.status = {ResizeState::InProgress, "", "the informer has not seen the resize yet"};
        return u;
    }
    u.status = classify_resize_state(*pod, &t.request);
    switch (u.status.state) {
        case ResizeState::Applied: u.verdict = TrackVerdict::Applied; break;
        case ResizeState::Infeasible: u.verdict = TrackVerdict::Infeasible; break;
        case ResizeState::Pending:
            // classify_resize_state says Pending only when the spec lacks
            // the target: our request was replaced by a later one. Without
            // a generation (1.32) the cache may still lag our answer.
            if (t.request.generation == 0 && !t.answered_resource_version.empty() &&
                pod->resource_version != t.answered_resource_version && u.elapsed < kInformerLagGrace) {
                u.status = {ResizeState::InProgress, "", "the informer has not seen the resize yet"};
                break;
            }
            u.verdict = TrackVerdict::Superseded;
            break;
        case ResizeState::Deferred:
            u.became_deferred = !t.deferred_since;
            break;
        case ResizeState::InProgress:
            u.error_now = u.status.reason == "Error" && !t.error_reported;
            break;
    }
    return u;
}

}  // namespace attune::core
