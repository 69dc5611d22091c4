#include "lifecycle_world.hpp"

#include <gtest/gtest.h>

#include <algorithm>

namespace attune::core::testing {

Pod LifecycleWorld::make_pod(const std::string& name, const std::string& uid, const ResourceRequirements& app) {
    Pod p;
    p.namespace_ = "shop";
    p.name = name;
    p.uid = uid;
    p.phase = "Running";
    p.containers.push_back(Container{"app", app, {}, std::nullopt});
    p.container_statuses.push_back(ContainerStatus{"app", app, std::nullopt});
    p.conditions.push_back(PodCondition{"Ready", "True", "", "", std::nullopt});
    return p;
}

void LifecycleWorld::add_pods(std::size_t n, const ResourceRequirements& app) {
    for (std::size_t i = 0; i < n; ++i) {
        const std::string id = std::to_string(pods.size());
        pods.push_back(make_pod("web-" + id, "uid-" + id, app));
    }
}

Pod& LifecycleWorld::pod(std::string_view name) {
    auto it = std::find_if(pods.begin(), pods.end(), [&](const Pod& p) { return p.name == name; });
    if (it == pods.end()) throw std::runtime_error("no pod " + std::string(name));
    return *it;
}

void LifecycleWorld::set_ready(std::string_view name, bool ready) {
    for (auto& c : pod(name).conditions)
        if (c.type == "Ready") c.status = ready ? "True" : "False";
}

void LifecycleWorld::resize(std::string_view name, const ContainerResourceMap& target) {
    Pod& p = pod(name);
    for (auto& c : p.containers)
        if (auto it = target.find(c.name); it != target.end()) c.resources = it->second;
    std::erase_if(p.conditions, [](const PodCondition& c) { return c.type.starts_with("PodResize"); });
    const auto held = hold.find(name);
    if (held == hold.end()) return release(name);
    if (held->second == ResizeState::Deferred || held->second == ResizeState::Infeasible) {
        const std::string reason(resize_state_name(held->second));
        p.conditions.push_back(PodCondition{"PodResizePending", "True", reason, "Node didn't have enough resource: cpu", 0});
    }
}

void LifecycleWorld::release(std::string_view name) {
    Pod& p = pod(name);
    hold.erase(std::string(name));
    std::erase_if(p.conditions, [](const PodCondition& c) { return c.type.starts_with("PodResize"); });
    for (auto& s : p.container_statuses)
        if (const Container* c = p.find_container(s.name)) s.resources = c->resources;
}

void LifecycleWorld::apply(const LifecycleDecision& d) {
    for (const auto& a : d.actions) {
        if (const auto* r = std::get_if<ResizePods>(&a))
            for (const auto& p : r->pods) resize(p.name, r->target);
        if (const auto* r = std::get_if<RollbackPods>(&a))
            for (const auto& p : r->pods) resize(p.name, r->baseline);
    }
}

std::vector<LifecyclePod> LifecycleWorld::classify(const ContainerResourceMap& candidate) const {
    ResizeRequest request;
    for (const auto& [name, rr] : candidate) request.targets.emplace(name, rr);
    std::vector<LifecyclePod> out;
    for (const auto& p : pods) out.push_back({&p, classify_resize_state(p, &request)});
    return out;
}

std::vector<std::string> LifecycleWorld::carrying(const ContainerResourceMap& resources) const {
    std::vector<std::string> out;
    for (const auto& p : pods)
        if (pod_carries(p, resources)) out.push_back(p.name);
    std::sort(out.begin(), out.end());
    return out;
}

LifecycleDecision LifecycleReconciler::decide(Timestamp now) const {
    const LifecycleStatusEntry* prev = entry ? &*entry : nullptr;
    auto plan = plan_attempt(AttemptInputs{world->workload, world->pods, recommendation, spec.revalidation_token, prev});
    if (!plan.ok()) {
        ADD_FAILURE() << "plan_attempt: " << plan.error().message;
        return {};
    }
    LifecycleInputs in{world->workload, world->persisted_revision, plan.value(), world->classify(plan.value().candidate),
                       spec, prev, false, now, std::nullopt};
    auto d = step_lifecycle(in);
    for (const auto& run : actions_of<RunThrottlingAnalysis>(d)) {
        if (!measurement) break;
        in.analysis = LifecycleAnalysisInput{run.revision, run.step, *measurement};
        d = step_lifecycle(in);
    }
    return d;
}

LifecycleDecision LifecycleReconciler::tick(Timestamp now) {
    auto d = decide(now);
    entry = d.status;
    world->apply(d);
    return d;
}

std::vector<std::string> event_reasons(const LifecycleDecision& d) {
    std::vector<std::string> out;
    for (const auto& e : actions_of<EmitEvent>(d)) out.push_back(e.reason);
    return out;
}

std::vector<std::string> names(const std::vector<PodRef>& pods) {
    std::vector<std::string> out;
    for (const auto& p : pods) out.push_back(p.name);
    return out;
}

}  // namespace attune::core::testing
