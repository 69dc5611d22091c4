#include "attune/core/resize/pod_eligibility.hpp"

namespace attune::core {

Eligibility check_pod_eligibility(const Pod& pod, const EligibilityContext& ctx) {
    Eligibility out;
    auto no = [&](std::string reason, std::string message) {
        out.reason = std::move(reason);
        out.message = std::move(message);
        return out;
    };
    if (pod.phase != "Running") return no("not_running", "pod phase is " + (pod.phase.empty() ? "unknown" : pod.phase));
    if (!pod.deletion_timestamp.empty()) return no("deleting", "pod is being deleted since " + pod.deletion_timestamp);
    if (annotation_is_true(pod.annotations, kSkipAnnotation))
        return no("opted_out", "pod is annotated " + std::string(kSkipAnnotation) + "=true");
    if (annotation_is_true(ctx.workload_annotations, kSkipAnnotation))
        return no("opted_out", "workload is annotated " + std::string(kSkipAnnotation) + "=true");
    if (!ctx.namespace_annotations)
        return no("namespace_unknown", "namespace " + pod.namespace_ + " is not in the cache; a freeze cannot be ruled out");
    if (annotation_is_true(*ctx.namespace_annotations, kFreezeAnnotation))
        return no("namespace_frozen", "namespace " + pod.namespace_ + " is annotated " + std::string(kFreezeAnnotation) + "=true");
    out.current = classify_current_resize(pod);
    switch (out.current.state) {
        case ResizeState::Applied: break;
        case ResizeState::Deferred: return no("resize_deferred", "a resize is deferred by the kubelet: " + out.current.message);
        case ResizeState::Infeasible:
            return no("resize_infeasible", "a resize is infeasible on this node: " + out.current.message);
        case ResizeState::Pending:
        case ResizeState::InProgress: return no("resize_in_progress", "a resize is in progress: " + out.current.message);
    }
    // The startup boost owns the CPU request until its duration is over:
    // the restore (decide_boost_restore) ends it and drops the annotation,
    // and only then does a regular resize apply.
    if (const auto at = pod.annotations.find(kStartupBoostAtAnnotation); at != pod.annotations.end())
        return no("startup_boost", "a startup boost runs since " + at->second);
    out.eligible = true;
    return out;
}

}  // namespace attune::core
