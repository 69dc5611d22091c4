#include <attune/controller/resize_ledger.hpp>

#include <attune/core/json_path.hpp>

#include <spdlog/spdlog.h>

namespace attune::controller {

resize_ledger::book& resize_ledger::get(const std::string& ns, const std::string& policy,
                                        const boost::json::value* policy_object) {
    auto [it, fresh] = books_.try_emplace({ns, policy});
    if (fresh && policy_object) {
        if (const auto* h = core::json_at(*policy_object, {"status", "resizeHistory"})) {
            auto decoded = core::decode_history(*h);
            if (decoded) {
                it->second.history = std::move(decoded).value();
            } else {
                spdlog::warn("status.resizeHistory does not decode; starting a new one namespace={} name={} error=\"{}\"",
                             ns, policy, decoded.error().message);
            }
        }
    }
    return it->second;
}

const resize_ledger::book* resize_ledger::find(const std::string& ns, const std::string& policy) const {
    const auto it = books_.find({ns, policy});
    return it == books_.end() ? nullptr : &it->second;
}

void resize_ledger::append(book& b, std::vector<core::HistoryEntry> entries) {
    if (entries.empty()) return;
    for (auto& e : entries) core::append_history(b.history, std::move(e));
    ++b.version;
}

void resize_ledger::set_pods(book& b, const std::string& workload, std::map<std::string, core::ResizeState> pods) {
    auto it = b.workloads.find(workload);
    if (pods.empty()) {
        if (it == b.workloads.end()) return;
        b.workloads.erase(it);
    } else {
        if (it != b.workloads.end() && it->second == pods) return;
        b.workloads[workload] = std::move(pods);
    }
    ++b.version;
}

void resize_ledger::set_cycle(book& b, bool resized_this_cycle, bool cooldown_active,
                              std::optional<bool> inside_schedule_window) {
    if (b.resized_this_cycle == resized_this_cycle && b.cooldown_active == cooldown_active &&
        b.inside_schedule_window == inside_schedule_window)
        return;
    b.resized_this_cycle = resized_this_cycle;
    b.cooldown_active = cooldown_active;
    b.inside_schedule_window = inside_schedule_window;
    ++b.version;
}

void resize_ledger::forget(const std::string& ns, const std::string& policy) { books_.erase({ns, policy}); }

core::WorkloadCounts resize_ledger::counts(const book& b) {
    std::vector<core::WorkloadResizeView> views;
    views.reserve(b.workloads.size());
    for (const auto& [name, pods] : b.workloads) {
        core::WorkloadResizeView v;
        v.workload = name;
        for (const auto& [uid, state] : pods) v.pods.push_back(state);
        views.push_back(std::move(v));
    }
    return core::count_workloads(views);
}

}  // namespace attune::controller
