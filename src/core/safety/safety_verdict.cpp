#include "attune/core/safety/safety_verdict.hpp"
#include "attune/core/model/readable_units.hpp"
#include "attune/core/util/duration.hpp"

#include <cstdio>

namespace attune::core {
namespace {

std::string fmt(double v) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%g", v);
    return buf;
}

// An OOM kill we can attribute to the time after the resize: finished at or
// after it, or (no usable time) one that came with a restart since.
bool oom_after(const std::optional<ContainerTermination>& t, Timestamp resized_at, bool restarted) {
    if (!t || t->reason != "OOMKilled") return false;
    const auto finished = parse_timestamp(t->finished_at);
    if (finished.ok()) return finished.value() >= resized_at;
    return restarted;
}

}  // namespace

SafetyVerdict judge_safety(const Pod& pod, const OriginalValues& originals, const SafetyInputs& in) {
    auto revert = [](std::string reason, std::string message) {
        return SafetyVerdict{SafetyVerdictKind::Revert, std::move(reason), std::move(message)};
    };
    for (const auto& [name, orig] : originals.containers) {
        const ContainerStatus* s = pod.find_status(name);
        if (!s) continue;
        const bool restarted = s->restart_count > orig.restart_count;
        if (oom_after(s->last_terminated, in.resized_at, restarted) || oom_after(s->terminated, in.resized_at, restarted))
            return revert("oomkill", "container " + name + " was OOMKilled after the resize");
    }
    for (const auto& [name, orig] : originals.containers) {
        const ContainerStatus* s = pod.find_status(name);
        if (s && s->restart_count - orig.restart_count >= 2)
            return revert("restart", "container " + name + " restarted " + std::to_string(s->restart_count - orig.restart_count) +
                                         " times since the resize");
    }
    if (const PodCondition* ready = pod.find_condition("Ready"); ready && ready->status == "False")
        return revert("notready", "pod is NotReady" + (ready->reason.empty() ? std::string() : " (" + ready->reason + ")"));
    const auto since = in.now - in.resized_at;
    if (in.throttling_ratio && since >= kThrottleGrace && *in.throttling_ratio > kThrottleRevertRatio)
        return revert("throttle", "CPU throttled in " + readable_percent(*in.throttling_ratio) + " of CFS periods > " +
                                      readable_percent(kThrottleRevertRatio));
    for (const auto& g : in.slo) {
        if (!g.value || since > g.evaluation_window) continue;
        const bool breach = g.below ? *g.value < g.threshold : *g.value > g.threshold;
        if (breach)
            return revert("slo:" + g.name, "guardrail " + g.name + ": " + fmt(*g.value) + (g.below ? " < " : " > ") +
                                                fmt(g.threshold));
    }
    if (since >= in.observation_period)
        return {SafetyVerdictKind::Done, "", "no safety check failed during " + format_duration(in.observation_period)};
    return {};
}

PlanOutcome plan_revert(const Pod& live, const OriginalValues& originals, const Capabilities& caps,
                        const PlanOptions& options) {
    Capabilities clamped = caps;
    clamped.allow_in_place_memory_limit_decrease = false;
    std::vector<ContainerTarget> targets;
    for (const auto& [name, orig] : originals.containers)
        if (live.find_container(name)) targets.push_back({name, orig.resources, std::nullopt});
    if (targets.empty()) return Skip{"container_not_found", "none of the containers with stored originals is in the pod"};
    return plan_resize(live, targets, clamped, ControlledValues::RequestsAndLimits, options);
}

}  // namespace attune::core
