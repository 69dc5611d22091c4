#include "attune/core/resize/resize_state.hpp"

namespace attune::core {
namespace {

// Every cpu/memory value the target names equals the one in `have`.
bool matches(const ResourceList& want, const ResourceList& have) {
    for (std::string_view r : {kCpu, kMemory}) {
        const Quantity* w = find(want, r);
        if (!w) continue;
        const Quantity* h = find(have, r);
        if (!h || *h != *w) return false;
    }
    return true;
}

bool current_for(const PodCondition& c, std::int64_t generation) {
    return !c.observed_generation || generation == 0 || *c.observed_generation >= generation;
}

}  // namespace

std::string_view resize_state_name(ResizeState s) noexcept {
    switch (s) {
        case ResizeState::Pending: return "Pending";
        case ResizeState::InProgress: return "InProgress";
        case ResizeState::Deferred: return "Deferred";
        case ResizeState::Infeasible: return "Infeasible";
        case ResizeState::Applied: return "Applied";
    }
    return "Pending";
}

std::optional<ResizeState> parse_resize_state(std::string_view name) noexcept {
    for (auto s : {ResizeState::Pending, ResizeState::InProgress, ResizeState::Deferred, ResizeState::Infeasible,
                   ResizeState::Applied})
        if (resize_state_name(s) == name) return s;
    return std::nullopt;
}

ResizeStatus classify_resize_state(const Pod& pod, const ResizeRequest* request) {
    if (!request || request->targets.empty()) return {};
    for (const auto& [name, want] : request->targets) {
        const Container* c = pod.find_container(name);
        if (!c || !matches(want.requests, c->resources.requests) || !matches(want.limits, c->resources.limits))
            return {ResizeState::Pending, "", "pod spec does not carry the requested resources for " + name};
    }
    if (request->envelope && (!pod.pod_resources || !matches(request->envelope->requests, pod.pod_resources->requests) ||
                              !matches(request->envelope->limits, pod.pod_resources->limits)))
        return {ResizeState::Pending, "", "pod spec does not carry the requested pod-level resources"};
    if (const auto* pending = pod.find_condition("PodResizePending");
        pending && pending->status == "True" && current_for(*pending, request->generation)) {
        if (pending->reason == "Infeasible") return {ResizeState::Infeasible, pending->reason, pending->message};
        if (pending->reason == "Deferred") return {ResizeState::Deferred, pending->reason, pending->message};
    }
    if (const auto* in_progress = pod.find_condition("PodResizeInProgress");
        in_progress && in_progress->status == "True") {
        return {ResizeState::InProgress, in_progress->reason, in_progress->message};
    }
    if (pod.status_resize == "Infeasible") return {ResizeState::Infeasible, "Infeasible", ""};
    if (pod.status_resize == "Deferred") return {ResizeState::Deferred, "Deferred", ""};
    if (pod.status_resize == "InProgress" || pod.status_resize == "Proposed")
        return {ResizeState::InProgress, pod.status_resize, ""};
    // Where the minor reports it (the kubelet fills it from 1.34), the pod's
    // status must have caught up with our request: a status written before
    // the kubelet saw generation G says nothing about G, even when its
    // values happen to equal the target (a revert to what still runs).
    if (request->generation > 0 && pod.observed_generation && *pod.observed_generation < request->generation)
        return {ResizeState::InProgress, "", "status.observedGeneration " + std::to_string(*pod.observed_generation) +
                                                 " has not caught up with generation " +
                                                 std::to_string(request->generation)};
    for (const auto& [name, want] : request->targets) {
        const ContainerStatus* s = pod.find_status(name);
        if (!s || !s->resources)
            return {ResizeState::InProgress, "", "container " + name + " reports no applied resources yet"};
        if (!matches(want.requests, s->resources->requests) || !matches(want.limits, s->resources->limits) ||
            (s->allocated_resources && !matches(want.requests, *s->allocated_resources)))
            return {ResizeState::InProgress, "", "container " + name + " runtime resources differ from the target"};
    }
    // As for containers, a missing pod-level status means not applied yet.
    if (request->envelope) {
        const auto& applied = pod.status_pod_resources;
        if (!applied) return {ResizeState::InProgress, "", "the pod reports no applied pod-level resources yet"};
        if (!matches(request->envelope->requests, applied->requests) || !matches(request->envelope->limits, applied->limits))
            return {ResizeState::InProgress, "", "applied pod-level resources differ from the target"};
    }
    return {ResizeState::Applied, "", ""};
}

ResizeRequest current_request(const Pod& pod) {
    ResizeRequest own;
    own.generation = pod.generation;
    for (const auto& c : pod.containers) own.targets.emplace(c.name, c.resources);
    for (const auto& c : pod.init_containers)
        if (c.is_native_sidecar()) own.targets.emplace(c.name, c.resources);
    // Only where the node reports pod-level status.resources (1.35+ with
    // in-place pod-level resize): elsewhere there is nothing to compare, and
    // the envelope cannot be resized in place anyway.
    if (pod.pod_resources && pod.status_pod_resources) own.envelope = pod.pod_resources;
    return own;
}

ResizeStatus classify_current_resize(const Pod& pod) {
    const ResizeRequest own = current_request(pod);
    return classify_resize_state(pod, &own);
}

}  // namespace attune::core
