#include "attune/core/resize/resize_gates.hpp"

#include <algorithm>

#include "attune/core/model/readable_units.hpp"
#include "attune/core/resize/envelope.hpp"

namespace attune::core {
namespace {

bool rises(const ResourceList& before, const ResourceList& after, std::string_view r) {
    const Quantity* a = find(after, r);
    if (!a) return false;
    const Quantity* b = find(before, r);
    return !b || *a > *b;
}

std::string join(const std::vector<std::string>& v, std::string_view sep) {
    std::string s;
    for (const auto& x : v) s += (s.empty() ? "" : std::string(sep)) + x;
    return s;
}

bool blocks(const GateBlock& b, std::string_view r) { return b.resource.empty() || b.resource == r; }

// The gates for the resources that rise.
std::vector<GateBlock> run_gates(const Pod& live, const ResizePlan& plan, const std::vector<std::string>& up,
                                 const ResizeGateInputs& g) {
    std::vector<GateBlock> out;
    if (g.resizes_in_flight >= g.max_concurrent_resizes)
        out.push_back({"max_concurrent_resizes", "",
                       std::to_string(g.resizes_in_flight) + " resize(s) in flight, maxConcurrentResizes is " +
                           std::to_string(g.max_concurrent_resizes)});
    const ResourceList before = pod_requests(live);
    const Quantity zero;
    for (const auto& r : up) {
        const Quantity* b = find(before, r);
        const Quantity* a = find(plan.pod_requests, r);
        const Quantity delta = (a ? *a : zero) - (b ? *b : zero);
        const auto& limit = r == kCpu ? g.max_total_cpu_increase : g.max_total_memory_increase;
        if (limit && delta.sign() > 0) {
            const Quantity* used = find(g.increase_used, r);
            const Quantity total = (used ? *used : zero) + delta;
            if (total > *limit)
                out.push_back({"budget_exhausted", r,
                               r + " increase " + readable_quantity(r, delta) + " would bring this cycle's total to " +
                                   readable_quantity(r, total) + ", over maxTotal" + (r == kCpu ? "Cpu" : "Memory") +
                                   "Increase " + readable_quantity(r, *limit)});
        }
    }
    if (!g.node) {
        out.push_back({"node_capacity", "", "node " + live.node_name + " is not in the cache; increases wait"});
    } else {
        if (g.node->disk_pressure) out.push_back({"node_disk_pressure", "", "node " + g.node->name + " has DiskPressure"});
        if (g.node->pid_pressure) out.push_back({"node_pid_pressure", "", "node " + g.node->name + " has PIDPressure"});
        if (g.node->memory_pressure && std::find(up.begin(), up.end(), kMemory) != up.end())
            out.push_back({"node_memory_pressure", std::string(kMemory), "node " + g.node->name + " has MemoryPressure"});
        for (const auto& r : up) {
            if (!rises(before, plan.pod_requests, r)) continue;  // a limit-only raise needs no room
            if (const auto room = check_node_room(*g.node, g.node_others_requests, plan.pod_requests, r); !room.fits)
                out.push_back({"node_capacity", r, room.message});
        }
    }
    for (const auto& v : check_quota_headroom(live, plan.planned, g.quotas))
        if (std::find(up.begin(), up.end(), v.resource) != up.end()) out.push_back({v.gate, v.resource, v.message});
    return out;
}

// Holds every value of a blocked resource at min(target, live): the
// increase is dropped, a decrease of the same resource stays.
std::vector<ContainerTarget> drop_increases(const Pod& live, std::span<const ContainerTarget> targets,
                                            const std::vector<std::string>& blocked) {
    std::vector<ContainerTarget> out(targets.begin(), targets.end());
    for (auto& t : out) {
        const Container* c = live.find_container(t.name);
        if (!c) continue;
        for (const auto& r : blocked) {
            for (auto [want, have] : {std::pair{&t.resources.requests, &c->resources.requests},
                                      std::pair{&t.resources.limits, &c->resources.limits}}) {
                auto it = want->find(r);
                if (it == want->end()) continue;
                const Quantity* now = find(*have, r);
                if (!now) want->erase(it);
                else if (it->second > *now) it->second = *now;
            }
        }
    }
    return out;
}

void plan_events(const std::vector<std::string>& clamped, const std::vector<std::string>& floored,
                 std::vector<EventIntent>& events) {
    if (!clamped.empty())
        events.push_back({"Warning", std::string(kEventMemoryLimitClamped), "resize",
                          "memory limit decrease not allowed in place on this cluster; kept the live limit for " +
                              join(clamped, ", "),
                          true});
    if (!floored.empty())
        events.push_back({"Warning", std::string(kEventMemoryLimitUsageFloor), "resize",
                          "memory limit held at usage plus margin for " + join(floored, ", "), true});
}

ResizeHeld held_from_skip(const Skip& s, std::string context) {
    ResizeHeld h;
    h.reason = s.reason;
    h.message = context.empty() ? s.message : context + "; " + s.message;
    if (auto ev = skip_event(s.reason, h.message)) h.events.push_back(std::move(*ev));
    plan_events(s.memory_clamped, s.memory_floored, h.events);
    return h;
}

// Held by the first of `found`, which all go into the hold's blocks.
ResizeHeld held_by(std::vector<GateBlock> found, std::vector<std::string> notes) {
    ResizeHeld h;
    h.reason = found.front().gate;
    h.message = found.front().message;
    h.blocks = std::move(found);
    h.notes = std::move(notes);
    if (auto ev = skip_event(h.reason, h.message)) h.events.push_back(std::move(*ev));
    return h;
}

ResourceList request_increase(const Pod& live, const ResizePlan& plan) {
    ResourceList out;
    const ResourceList before = pod_requests(live);
    for (const auto& [r, after] : plan.pod_requests) {
        const Quantity* b = find(before, r);
        const Quantity delta = after - (b ? *b : Quantity{});
        if (delta.sign() > 0) out.emplace(r, delta);
    }
    return out;
}

}  // namespace

std::vector<std::string> resource_increases(const Pod& live, const Pod& planned) {
    std::vector<std::string> out;
    for (std::string_view r : {kCpu, kMemory}) {
        bool up = rises(pod_requests(live), pod_requests(planned), r);
        for (const auto* list : {&planned.containers, &planned.init_containers})
            for (const auto& pc : *list)
                if (const Container* lc = live.find_container(pc.name))
                    up = up || rises(lc->resources.requests, pc.resources.requests, r) ||
                         rises(lc->resources.limits, pc.resources.limits, r);
        if (planned.pod_resources && live.pod_resources)
            up = up || rises(live.pod_resources->requests, planned.pod_resources->requests, r) ||
                 rises(live.pod_resources->limits, planned.pod_resources->limits, r);
        if (up) out.emplace_back(r);
    }
    return out;
}

ResizeDecision decide_resize(const Pod& live, std::span<const ContainerTarget> targets, const Capabilities& caps,
                             ControlledValues cv, const PlanOptions& options, const ResizeGateInputs& gates) {
    if (gates.paused) {
        ResizeHeld h;
        h.reason = "paused";
        h.message = "the policy is paused";
        return h;
    }
    auto first = plan_resize(live, targets, caps, cv, options);
    if (const auto* s = std::get_if<Skip>(&first)) return held_from_skip(*s, "");
    ResizePlan plan = std::move(std::get<ResizePlan>(first));

    // Outside a maintenance window and during the cooldown nothing changes,
    // whichever way it moves: a decrease can throttle or OOM a workload as
    // surely as an increase can crowd a node.
    std::vector<std::string> notes;
    if (const auto s = check_schedule(gates.schedule, gates.zone, gates.now); !s.allowed && !gates.restore) {
        return held_by({GateBlock{"outside_schedule", "", s.message}}, {});
    } else if (s.zone_invalid) {
        notes.push_back(s.message);
    }
    if (const auto c = check_cooldown(gates.cooldown, gates.last_resize_time, gates.now); c.active && !gates.restore)
        return held_by({GateBlock{"cooldown", "", c.message}}, std::move(notes));

    const auto up = resource_increases(live, plan.planned);
    std::vector<GateBlock> found = up.empty() ? std::vector<GateBlock>{} : run_gates(live, plan, up, gates);
    // LimitRange admission refuses a violating value whichever way it moved.
    for (const auto& v : check_limit_ranges(live, plan.planned, gates.limit_ranges))
        found.push_back({v.gate, v.resource, v.message});

    std::vector<std::string> blocked;
    for (std::string_view r : {kCpu, kMemory})
        if (std::any_of(found.begin(), found.end(), [&](const GateBlock& b) { return blocks(b, r); }))
            blocked.emplace_back(r);

    ResizeGo go;
    go.notes = std::move(notes);
    if (!blocked.empty()) {
        const auto reduced = drop_increases(live, targets, blocked);
        auto second = plan_resize(live, reduced, caps, cv, options);
        const bool nothing_left = std::holds_alternative<Skip>(second) ||
                                  !check_limit_ranges(live, std::get<ResizePlan>(second).planned, gates.limit_ranges).empty();
        if (nothing_left) return held_by(std::move(found), std::move(go.notes));
        plan = std::move(std::get<ResizePlan>(second));
        go.dropped = std::move(found);
        for (const auto& b : go.dropped) {
            const std::string what = b.resource.empty() ? "increases" : b.resource + " increase";
            if (auto ev = skip_event(b.gate, what + " dropped, the rest applied: " + b.message))
                go.events.push_back(std::move(*ev));
        }
    }
    plan_events(plan.memory_clamped, plan.memory_floored, go.events);
    go.increase = request_increase(live, plan);
    go.plan = std::move(plan);
    return go;
}

}  // namespace attune::core
