#include <attune/controller/executor/resize_ledger.hpp>

#include <attune/core/util/json_path.hpp>

#include <spdlog/spdlog.h>

namespace attune::controller {

ResizeLedger::Book& ResizeLedger::get(const std::string& ns, const std::string& policy,
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
        if (const auto* l = core::json_at(*policy_object, {"status", "lifecycle"})) {
            // Status is ours: an entry that does not decode is a bug; say so
            // and start over rather than act on half of it.
            auto decoded = core::decode_lifecycle_status(*l);
            it->second.lifecycle_owned = true;
            if (decoded) {
                for (auto& e : decoded.value()) it->second.lifecycle.emplace(e.kind + "/" + e.workload, std::move(e));
            } else {
                spdlog::error("status.lifecycle does not decode; every attempt starts over namespace={} name={} "
                              "error=\"{}\"",
                              ns, policy, decoded.error().message);
            }
        }
    }
    return it->second;
}

const ResizeLedger::Book* ResizeLedger::find(const std::string& ns, const std::string& policy) const {
    const auto it = books_.find({ns, policy});
    return it == books_.end() ? nullptr : &it->second;
}

void ResizeLedger::append(Book& b, std::vector<core::HistoryEntry> entries) {
    if (entries.empty()) return;
    for (auto& e : entries) core::append_history(b.history, std::move(e));
    ++b.version;
}

void ResizeLedger::set_pods(Book& b, const std::string& workload, std::map<std::string, core::ResizeState> pods) {
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

void ResizeLedger::set_cycle(Book& b, bool resized_this_cycle, bool cooldown_active,
                             std::optional<bool> inside_schedule_window) {
    if (b.resized_this_cycle == resized_this_cycle && b.cooldown_active == cooldown_active &&
        b.inside_schedule_window == inside_schedule_window)
        return;
    b.resized_this_cycle = resized_this_cycle;
    b.cooldown_active = cooldown_active;
    b.inside_schedule_window = inside_schedule_window;
    ++b.version;
}

const core::LifecycleStatusEntry* ResizeLedger::lifecycle_entry(const Book& b, const std::string& kind,
                                                                const std::string& name) {
    const auto it = b.lifecycle.find(kind + "/" + name);
    return it == b.lifecycle.end() ? nullptr : &it->second;
}

void ResizeLedger::set_lifecycle(Book& b, core::LifecycleStatusEntry entry,
                                 std::optional<std::pair<std::string, std::string>> blocked) {
    bool changed = !b.lifecycle_owned;
    b.lifecycle_owned = true;
    const std::string name = entry.kind + "/" + entry.workload;
    auto& slot = b.lifecycle[entry.kind + "/" + entry.workload];
    if (!(slot == entry)) {
        slot = std::move(entry);
        changed = true;
    }
    const auto it = b.lifecycle_blocked.find(name);
    if (blocked) {
        if (it == b.lifecycle_blocked.end() || it->second != *blocked) {
            b.lifecycle_blocked[name] = std::move(*blocked);
            changed = true;
        }
    } else if (it != b.lifecycle_blocked.end()) {
        b.lifecycle_blocked.erase(it);
        changed = true;
    }
    if (changed) ++b.version;
}

void ResizeLedger::drop_lifecycle(Book& b, const std::string& kind, const std::string& name) {
    const bool entry = b.lifecycle.erase(kind + "/" + name) > 0;
    const bool block = b.lifecycle_blocked.erase(kind + "/" + name) > 0;
    if (entry || block) ++b.version;
}

std::vector<core::LifecycleStatusEntry> ResizeLedger::lifecycle_entries(const Book& b) {
    std::vector<core::LifecycleStatusEntry> out;
    out.reserve(b.lifecycle.size());
    for (const auto& [k, e] : b.lifecycle) out.push_back(e);
    return out;
}

std::optional<std::pair<std::string, std::string>> ResizeLedger::lifecycle_block(const Book& b) {
    if (b.lifecycle_blocked.empty()) return std::nullopt;
    return b.lifecycle_blocked.begin()->second;
}

void ResizeLedger::forget(const std::string& ns, const std::string& policy) { books_.erase({ns, policy}); }

core::WorkloadCounts ResizeLedger::counts(const Book& b) {
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
