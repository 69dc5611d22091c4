#pragma once
// A simulated workload for the lifecycle tests: live pods that resizes land
// on (at once, or held InProgress / Deferred / Infeasible), and a
// reconciler that runs plan_attempt -> classify_resize_state ->
// step_lifecycle exactly as the shell will, answering a
// RunThrottlingAnalysis with a scripted measurement.
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "attune/core/lifecycle/lifecycle.hpp"
#include "lifecycle_sample.hpp"

namespace attune::core::testing {

inline const Timestamp kT0 = kSampleTime;

struct LifecycleWorld {
    WorkloadIdentity workload{"apps/v1", "Deployment", "shop", "web", "uid-web"};
    std::vector<Pod> pods;
    std::string persisted_revision;
    // Pod name -> the state a resize of it stays in until release().
    std::map<std::string, ResizeState, std::less<>> hold;

    // One app container with `app`, Running, Ready, status == spec.
    static Pod make_pod(const std::string& name, const std::string& uid, const ResourceRequirements& app);
    // web-0 .. web-(n-1), uids uid-0 .. uid-(n-1).
    void add_pods(std::size_t n, const ResourceRequirements& app);
    Pod& pod(std::string_view name);
    void set_ready(std::string_view name, bool ready);
    // Writes `target` into the pod spec; the status follows unless held.
    void resize(std::string_view name, const ContainerResourceMap& target);
    void release(std::string_view name);  // a held resize lands
    void apply(const LifecycleDecision& d);  // ResizePods and RollbackPods
    std::vector<LifecyclePod> classify(const ContainerResourceMap& candidate) const;
    // Names of the pods whose spec carries `resources`, in name order.
    std::vector<std::string> carrying(const ContainerResourceMap& resources) const;
};

struct LifecycleReconciler {
    LifecycleWorld* world = nullptr;
    EffectiveLifecycle spec;
    LifecycleRecommendation recommendation;
    std::optional<LifecycleStatusEntry> entry;
    // The answer to RunThrottlingAnalysis; unset: the analysis is not answered.
    std::optional<ThrottlingMeasurement> measurement;

    // Pure: the decision for `now` from the current entry and pods.
    LifecycleDecision decide(Timestamp now) const;
    // decide(), then keep the entry and carry out the resizes.
    LifecycleDecision tick(Timestamp now);
};

template <class A>
std::vector<A> actions_of(const LifecycleDecision& d) {
    std::vector<A> out;
    for (const auto& a : d.actions)
        if (const auto* x = std::get_if<A>(&a)) out.push_back(*x);
    return out;
}

std::vector<std::string> event_reasons(const LifecycleDecision& d);
std::vector<std::string> names(const std::vector<PodRef>& pods);

}  // namespace attune::core::testing
