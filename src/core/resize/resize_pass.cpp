#include "attune/core/resize/resize_pass.hpp"

#include <algorithm>

namespace attune::core {
namespace {

void add(ResourceList& to, const ResourceList& what, int sign) {
    for (const auto& [r, q] : what) {
        auto it = to.find(r);
        Quantity base = it == to.end() ? Quantity{} : it->second;
        Quantity next = sign > 0 ? base + q : base - q;
        if (next.sign() <= 0) {
            if (it != to.end()) to.erase(it);
        } else {
            to.insert_or_assign(r, next);
        }
    }
}

}  // namespace

PassSelection select_pass_pods(UpdateMode mode, std::span<const PassCandidate> candidates) {
    PassSelection out;
    if (mode != UpdateMode::Auto && mode != UpdateMode::OneShot) return out;
    if (mode == UpdateMode::OneShot &&
        std::any_of(candidates.begin(), candidates.end(), [](const PassCandidate& c) { return c.in_flight; })) {
        out.waiting = true;
        return out;
    }
    for (std::size_t i = 0; i < candidates.size(); ++i)
        if (candidates[i].eligible && !candidates[i].in_flight) out.pods.push_back(i);
    std::sort(out.pods.begin(), out.pods.end(),
              [&](std::size_t a, std::size_t b) { return candidates[a].name < candidates[b].name; });
    out.max_submissions = mode == UpdateMode::OneShot ? 1 : -1;
    return out;
}

CycleView ResizeCycleBook::view(std::string_view policy) const {
    CycleView v;
    const auto it = cycles_.find(policy);
    if (it == cycles_.end()) return v;
    v.open = true;
    v.cooldown_applies = it->second.evicted;
    v.in_flight = static_cast<int>(it->second.in_flight.size());
    v.increase_used = it->second.increase_used;
    return v;
}

void ResizeCycleBook::submit(const std::string& policy, const std::string& /*workload*/, const std::string& pod_uid,
                             const ResourceList& increase) {
    auto& c = cycles_[policy];
    if (auto it = c.in_flight.find(pod_uid); it != c.in_flight.end()) add(c.increase_used, it->second, -1);
    c.in_flight.insert_or_assign(pod_uid, increase);
    add(c.increase_used, increase, +1);
}

void ResizeCycleBook::acted(const std::string& policy) {
    auto& c = cycles_[policy];
    c.applied_any = true;
    c.evicted = true;
}

void ResizeCycleBook::withdraw(const std::string& policy, const std::string& pod_uid) {
    settle(policy, pod_uid, false);
}

void ResizeCycleBook::settle(const std::string& policy, const std::string& pod_uid, bool applied) {
    const auto it = cycles_.find(policy);
    if (it == cycles_.end()) return;
    auto& c = it->second;
    const auto f = c.in_flight.find(pod_uid);
    if (f == c.in_flight.end()) return;
    if (!applied) add(c.increase_used, f->second, -1);
    c.applied_any = c.applied_any || applied;
    c.in_flight.erase(f);
}

std::optional<CycleClose> ResizeCycleBook::pass_done(const std::string& policy, const std::string& workload,
                                                     bool work_left, bool holds_open) {
    const auto it = cycles_.find(policy);
    if (it == cycles_.end()) return std::nullopt;
    auto& c = it->second;
    if (work_left) c.waiting.insert(workload);
    else c.waiting.erase(workload);
    if (holds_open) c.holding.insert(workload);
    else c.holding.erase(workload);
    if (!c.in_flight.empty() || !c.waiting.empty() || !c.holding.empty()) return std::nullopt;
    CycleClose close{c.applied_any};
    cycles_.erase(it);
    return close;
}

std::vector<std::string> ResizeCycleBook::waiting_workloads(std::string_view policy) const {
    const auto it = cycles_.find(policy);
    if (it == cycles_.end()) return {};
    return {it->second.waiting.begin(), it->second.waiting.end()};
}

void ResizeCycleBook::forget(std::string_view policy) {
    if (const auto it = cycles_.find(policy); it != cycles_.end()) cycles_.erase(it);
}

}  // namespace attune::core
