#include <attune/controller/status_aggregation.hpp>

#include <attune/core/json_path.hpp>

#include <boost/json/array.hpp>
#include <boost/json/object.hpp>
#include <boost/json/serialize.hpp>

#include <algorithm>

namespace attune::controller {
namespace json = boost::json;

std::string_view idle_status_reason(core::IdleKind kind) noexcept { return core::idle_reason(kind); }

std::optional<completed_pass> status_aggregation::begin_pass(const std::string& ns, const std::string& policy, long long generation,
                                    const std::vector<std::string>& target_keys,
                                    std::optional<policy_status> written) {
    auto [it, fresh] = policies_.try_emplace({ns, policy});
    auto& st = it->second;
    if (fresh && written) {
        st.written = written;
        for (const auto& w : written->idle_workloads)
            if (w.reason == core::idle_reason(core::IdleKind::HPAScaledToZero))
                st.hpa_zero_before.insert(ns + "/" + w.kind + "/" + w.workload);
    }
    st.generation = generation;
    std::map<std::string, member> kept;
    for (const auto& k : target_keys) {
        auto m = st.members.find(k);
        kept.emplace(k, m == st.members.end() ? member{} : std::move(m->second));
    }
    st.members = std::move(kept);
    st.pending = std::set<std::string>(target_keys.begin(), target_keys.end());
    if (st.pending.empty()) return complete(ns, policy, st);
    return std::nullopt;
}

std::vector<completed_pass> status_aggregation::report(const workload_report& r) {
    std::vector<completed_pass> out;
    const auto key = r.key();
    for (auto& [id, st] : policies_) {
        if (id.first != r.ns) continue;
        const bool selected = std::find(r.selected_by.begin(), r.selected_by.end(), id.second) != r.selected_by.end();
        const bool was_member = st.members.contains(key);
        if (selected) {
            st.members[key] = member{true, r};
        } else if (was_member) {
            st.members.erase(key);  // deleted, or its labels no longer match
        } else {
            continue;  // nothing to do with this policy
        }
        st.pending.erase(key);
        if (st.pending.empty()) out.push_back(complete(id.first, id.second, st));
    }
    return out;
}

completed_pass status_aggregation::complete(const std::string& ns, const std::string& policy, policy_state& st) {
    completed_pass c;
    c.ns = ns;
    c.policy = policy;
    c.status.observed_generation = st.generation;
    std::set<std::string> hpa_zero_now;
    for (const auto& [key, m] : st.members) {
        if (!m.reported || m.last.idle == core::IdleKind::None) continue;
        c.status.idle_workloads.push_back({m.last.name, m.last.kind, std::string(core::idle_reason(m.last.idle))});
        if (m.last.idle == core::IdleKind::HPAScaledToZero) {
            ++c.hpa_scaled_to_zero;
            hpa_zero_now.insert(key);
            if (!st.hpa_zero_before.contains(key)) c.entered_hpa_scaled_to_zero.push_back(m.last);
        } else {
            ++c.manual_zero;
        }
    }
    std::sort(c.status.idle_workloads.begin(), c.status.idle_workloads.end(),
              [](const idle_workload& a, const idle_workload& b) {
                  return std::tie(a.kind, a.workload) < std::tie(b.kind, b.workload);
              });
    st.hpa_zero_before = std::move(hpa_zero_now);
    c.changed = !st.written || *st.written != c.status;
    return c;
}

void status_aggregation::forget_policy(const std::string& ns, const std::string& policy) {
    policies_.erase({ns, policy});
}

void status_aggregation::mark_written(const std::string& ns, const std::string& policy, const policy_status& status) {
    if (auto it = policies_.find({ns, policy}); it != policies_.end()) it->second.written = status;
}

bool status_aggregation::tracks(const std::string& ns, const std::string& policy) const {
    return policies_.contains({ns, policy});
}

std::size_t status_aggregation::pending(const std::string& ns, const std::string& policy) const {
    auto it = policies_.find({ns, policy});
    return it == policies_.end() ? 0 : it->second.pending.size();
}

policy_status policy_status_from(const json::value& policy) {
    policy_status out;
    out.observed_generation = core::int_at(policy, {"status", "observedGeneration"}).value_or(0);
    if (const auto* iw = core::array_at(policy, {"status", "idleWorkloads"})) {
        for (const auto& e : *iw) {
            if (!e.is_object()) continue;
            auto str = [&](std::string_view k) { return std::string(core::string_at(e, {k})); };
            out.idle_workloads.push_back({str("workload"), str("kind"), str("reason")});
        }
    }
    std::sort(out.idle_workloads.begin(), out.idle_workloads.end(),
              [](const idle_workload& a, const idle_workload& b) {
                  return std::tie(a.kind, a.workload) < std::tie(b.kind, b.workload);
              });
    return out;
}

std::string status_patch_body(const policy_status& status) {
    json::array idle;
    for (const auto& w : status.idle_workloads)
        idle.push_back(json::object{{"workload", w.workload}, {"kind", w.kind}, {"reason", w.reason}});
    // A merge patch replaces lists whole, so an empty list clears the field.
    json::object body{{"status", json::object{{"idleWorkloads", std::move(idle)},
                                              {"observedGeneration", status.observed_generation}}}};
    return json::serialize(body);
}

}  // namespace attune::controller
