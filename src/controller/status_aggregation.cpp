#include <attune/controller/status_aggregation.hpp>

#include <attune/controller/policy_conditions.hpp>
#include <attune/core/util/duration.hpp>
#include <attune/core/resize/resize_status.hpp>
#include <attune/controller/status_recommendations.hpp>
#include <attune/core/recommend/savings.hpp>
#include <attune/core/util/json_path.hpp>

#include <boost/json/object.hpp>
#include <boost/json/serialize.hpp>

#include <algorithm>

namespace attune::controller {
namespace json = boost::json;

namespace {
bool scaleable_kind(std::string_view kind) {
    return kind == "Deployment" || kind == "StatefulSet" || kind == "ReplicaSet";
}

void sort_idle(std::vector<IdleWorkload>& v) {
    std::sort(v.begin(), v.end(), [](const IdleWorkload& a, const IdleWorkload& b) {
        return std::tie(a.kind, a.workload) < std::tie(b.kind, b.workload);
    });
}

// One managed workload's report, counted into the pass.
void count(PassFacts& f, const WorkloadReport& r) {
    ++f.managed;
    const bool scaleable = scaleable_kind(r.kind);
    f.scaleable += scaleable ? 1 : 0;
    if (r.idle != core::IdleKind::None) {
        ++f.idle;
        f.scaleable_idle += scaleable ? 1 : 0;
        ++(r.idle == core::IdleKind::HPAScaledToZero ? f.hpa_idle : f.manual_idle);
        return;  // an idle workload is not queried: its last recommendation stays as it was
    }
    const auto& rec = r.recommendation;
    f.max_points = std::max(f.max_points, rec.points_collected);
    switch (rec.state) {
        case RecommendationState::SourceUnavailable:
            if (f.source_failures++ == 0) f.source_failure = r.kind + " " + r.name + ": " + rec.message;
            break;
        case RecommendationState::InvalidConfig:
            if (f.invalid++ == 0) f.invalid_message = r.kind + " " + r.name + ": " + rec.message;
            break;
        case RecommendationState::Collecting:
            if (f.collecting++ == 0 || rec.points_collected >= f.max_points) f.collecting_message = rec.message;
            break;
        default: break;
    }
}
}  // namespace

std::string_view idle_status_reason(core::IdleKind kind) noexcept { return core::idle_reason(kind); }

std::optional<CompletedPass> StatusAggregation::refresh(const std::string& ns, const std::string& policy,
                                                        core::Timestamp now) {
    auto it = policies_.find({ns, policy});
    if (it == policies_.end() || !it->second.pending.empty()) return std::nullopt;
    return complete(ns, policy, it->second, now);
}

std::optional<CompletedPass> StatusAggregation::begin_pass(const std::string& ns, const std::string& policy,
                                                           const PolicyContext& context,
                                                           const std::vector<std::string>& target_keys,
                                                           std::optional<PolicyStatus> written, core::Timestamp now) {
    auto [it, fresh] = policies_.try_emplace({ns, policy});
    auto& st = it->second;
    if (fresh && written) {
        st.written = written;
        st.conditions = written->conditions;
        st.with_recommendations_before = written->workloads.with_recommendations;
        for (const auto& w : written->idle_workloads)
            if (w.reason == core::idle_reason(core::IdleKind::HPAScaledToZero))
                st.hpa_zero_before.insert(ns + "/" + w.kind + "/" + w.workload);
    }
    st.context = context;
    std::map<std::string, Member> kept;
    for (const auto& k : target_keys) {
        auto m = st.members.find(k);
        kept.emplace(k, m == st.members.end() ? Member{} : std::move(m->second));
    }
    st.members = std::move(kept);
    st.pending = std::set<std::string>(target_keys.begin(), target_keys.end());
    if (st.pending.empty()) return complete(ns, policy, st, now);
    return std::nullopt;
}

std::vector<CompletedPass> StatusAggregation::report(const WorkloadReport& r, core::Timestamp now) {
    std::vector<CompletedPass> out;
    for (const auto& [ns, policy] : absorb(r))
        if (auto c = refresh(ns, policy, now)) out.push_back(std::move(*c));
    return out;
}

std::vector<std::pair<std::string, std::string>> StatusAggregation::absorb(const WorkloadReport& r) {
    std::vector<std::pair<std::string, std::string>> out;
    const auto key = r.key();
    for (auto& [id, st] : policies_) {
        if (id.first != r.ns) continue;
        const std::string& policy = id.second;  // a structured binding cannot be captured before clang 16
        auto names = [&policy](const std::vector<std::string>& v) {
            return std::find(v.begin(), v.end(), policy) != v.end();
        };
        const bool selected = names(r.selected_by);
        const bool matched_only = !selected && (names(r.conflicting_policies) || names(r.opted_out_of));
        const bool was_member = st.members.contains(key);
        if (selected || matched_only) {
            st.members[key] = Member{true, r, matched_only};
        } else if (was_member) {
            st.members.erase(key);  // deleted, or its labels no longer match
        } else {
            continue;  // nothing to do with this policy
        }
        st.pending.erase(key);
        if (st.pending.empty()) out.push_back(id);
    }
    return out;
}

CompletedPass StatusAggregation::complete(const std::string& ns, const std::string& policy, PolicyState& st,
                                          core::Timestamp now) {
    CompletedPass c;
    c.ns = ns;
    c.policy = policy;
    c.policy_uid = st.context.uid;
    c.status.observed_generation = st.context.generation;
    PassFacts facts;
    std::vector<const StoredRecommendation*> recs;
    recs.reserve(st.members.size());
    std::set<std::string> hpa_zero_now;
    for (const auto& [key, m] : st.members) {
        if (!m.reported) continue;
        if (m.matched_only) {
            ++facts.matched_only;
            continue;
        }
        count(facts, m.last);
        if (const auto* e = store_ ? store_->get({m.last.ns, m.last.kind, m.last.name}) : nullptr;
            e && e->policy == policy)
            recs.push_back(e);
        if (m.last.idle == core::IdleKind::None) continue;
        c.status.idle_workloads.push_back({m.last.name, m.last.kind, std::string(core::idle_reason(m.last.idle))});
        if (m.last.idle == core::IdleKind::HPAScaledToZero) {
            ++c.hpa_scaled_to_zero;
            hpa_zero_now.insert(key);
            if (!st.hpa_zero_before.contains(key)) c.entered_hpa_scaled_to_zero.push_back(m.last);
        } else {
            ++c.manual_zero;
        }
    }
    sort_idle(c.status.idle_workloads);
    st.hpa_zero_before = std::move(hpa_zero_now);

    facts.with_recommendations = static_cast<int>(recs.size());
    auto& w = c.status.workloads;
    // As the Go Attune counts: every workload the targetRef matches, also
    // those another policy outranks and those that opted out (docs/api.md).
    w.discovered = facts.managed + facts.matched_only;
    w.with_recommendations = facts.with_recommendations;
    w.pending = w.with_recommendations - w.resized;
    w.data_points_collected = facts.max_points;
    w.data_points_required = st.context.minimum_data_points;

    auto ready = ready_condition(st.context, facts);
    ready.last_transition_time = now;
    core::set_condition(st.conditions, std::move(ready));
    if (auto zero = scaled_to_zero_condition(st.context, facts)) {
        zero->last_transition_time = now;
        core::set_condition(st.conditions, std::move(*zero));
    } else {
        core::remove_condition(st.conditions, kConditionScaledToZero);
    }
    // The executor's part: what it resized and where the kubelet holds it.
    const auto* book = ledger_ ? ledger_->find(ns, policy) : nullptr;
    const auto counts = book ? ResizeLedger::counts(*book) : core::WorkloadCounts{};
    w.resized = counts.resized;
    w.pending = std::max(0, w.with_recommendations - w.resized);
    w.deferred = counts.deferred;
    w.infeasible = counts.infeasible;
    if (book) c.status.resize_history = book->history;
    if (book && book->lifecycle_owned) {
        c.status.lifecycle = ResizeLedger::lifecycle_entries(*book);
        c.status.lifecycle_owned = true;
    }
    if (st.context.resizing_mode)
        c.status.cooldown = core::cooldown_state(st.context.cooldown, core::count_consecutive_reverts(c.status.resize_history));
    core::ResizeConditionInputs rin;
    rin.now = now;
    rin.generation = st.context.generation;
    rin.resizing_mode = st.context.resizing_mode;
    rin.resized_this_cycle = book && book->resized_this_cycle;
    rin.cooldown_active = book && book->cooldown_active;
    rin.counts = counts;
    rin.history = c.status.resize_history;
    if (book) rin.inside_schedule_window = book->inside_schedule_window;
    if (book) rin.lifecycle_blocked = ResizeLedger::lifecycle_block(*book);
    core::apply_resize_conditions(st.conditions, rin);
    if (st.pull_request) {
        if (auto pr = st.pull_request->condition) {
            pr->last_transition_time = now;
            core::set_condition(st.conditions, std::move(*pr));
        } else {
            core::remove_condition(st.conditions, core::kConditionGitOpsPullRequest);
        }
    }
    c.status.gitops_pr = st.pull_request && st.pull_request->record ? st.pull_request->record
                         : st.written                                ? st.written->gitops_pr
                                                                     : std::nullopt;
    c.status.conditions = st.conditions;
    if (!recs.empty()) {
        core::RequestSavings saved;
        for (const auto* e : recs) core::add_savings(saved, e->recommendation);
        // Every entry of one policy was computed with its merged settings; the first one's prices stand for all.
        const auto& effective = recs.front()->effective;
        const auto pricing = effective ? effective->cost_pricing : core::CostPricing{};
        c.status.savings = core::savings_status_json(saved, pricing);
        c.reclaimed_cpu_cores = static_cast<double>(saved.cpu_reduction_milli) / 1000.0;
        c.reclaimed_memory_bytes = static_cast<double>(saved.memory_reduction_bytes);
        c.monthly_savings_dollars =
            core::monthly_cost(saved.cpu_reduction_milli, saved.memory_reduction_bytes, pricing);
    }
    c.status.recommendations = status_recommendations(std::move(recs), st.context.max_status_recommendations,
                                                      st.context.include_explanations);

    c.first_recommendations = st.with_recommendations_before == 0 && facts.with_recommendations > 0;
    st.with_recommendations_before = facts.with_recommendations;
    c.changed = !st.written || *st.written != c.status;
    if (c.changed) c.status.last_reconcile_time = now;
    return c;
}

void StatusAggregation::forget_policy(const std::string& ns, const std::string& policy) {
    policies_.erase({ns, policy});
}

bool StatusAggregation::set_pull_request(const std::string& ns, const std::string& policy,
                                         const PullRequestStatus& pr) {
    auto it = policies_.find({ns, policy});
    if (it == policies_.end() || it->second.pull_request == pr) return false;
    it->second.pull_request = pr;
    return true;
}

void StatusAggregation::mark_written(const std::string& ns, const std::string& policy, const PolicyStatus& status) {
    if (auto it = policies_.find({ns, policy}); it != policies_.end()) it->second.written = status;
}

bool StatusAggregation::tracks(const std::string& ns, const std::string& policy) const {
    return policies_.contains({ns, policy});
}

std::size_t StatusAggregation::pending(const std::string& ns, const std::string& policy) const {
    auto it = policies_.find({ns, policy});
    return it == policies_.end() ? 0 : it->second.pending.size();
}

PolicyStatus policy_status_from(const json::value& policy) {
    PolicyStatus out;
    out.observed_generation = core::int_at(policy, {"status", "observedGeneration"}).value_or(0);
    if (const auto* iw = core::array_at(policy, {"status", "idleWorkloads"})) {
        for (const auto& e : *iw) {
            if (!e.is_object()) continue;
            auto str = [&](std::string_view k) { return std::string(core::string_at(e, {k})); };
            out.idle_workloads.push_back({str("workload"), str("kind"), str("reason")});
        }
    }
    sort_idle(out.idle_workloads);
    if (core::object_at(policy, {"status", "workloads"})) {
        auto n = [&](std::string_view k) {
            return static_cast<int>(core::int_at(policy, {"status", "workloads", k}).value_or(0));
        };
        out.workloads = {n("discovered"),          n("withRecommendations"), n("resized"),  n("pending"),
                         n("dataPointsCollected"), n("dataPointsRequired"),  n("deferred"), n("infeasible")};
    }
    if (const auto* conds = core::json_at(policy, {"status", "conditions"})) {
        // Conditions the server holds that do not decode are dropped: ours
        // replace them on the next write.
        if (auto decoded = core::decode_conditions(*conds)) out.conditions = std::move(decoded).value();
    }
    if (const auto* recs = core::array_at(policy, {"status", "recommendations"})) out.recommendations = *recs;
    if (const auto* saved = core::object_at(policy, {"status", "savings"})) out.savings = *saved;
    if (const auto* h = core::json_at(policy, {"status", "resizeHistory"}))
        if (auto decoded = core::decode_history(*h)) out.resize_history = std::move(decoded).value();
    if (core::object_at(policy, {"status", "cooldown"})) {
        core::CooldownState cd;
        auto parsed = core::parse_duration(core::string_at(policy, {"status", "cooldown", "effectiveCooldown"}));
        if (parsed) cd.effective = std::chrono::duration_cast<std::chrono::seconds>(parsed.value());
        cd.backoff_multiplier = static_cast<int>(core::int_at(policy, {"status", "cooldown", "backoffMultiplier"}).value_or(1));
        cd.consecutive_reverts = static_cast<int>(core::int_at(policy, {"status", "cooldown", "consecutiveReverts"}).value_or(0));
        out.cooldown = cd;
    }
    if (auto t = core::parse_timestamp(core::string_at(policy, {"status", "lastReconcileTime"}))) out.last_reconcile_time = t.value();
    if (core::object_at(policy, {"status", "gitopsPR"})) {
        core::PullRequestRecord r;
        r.drift_fingerprint = std::string(core::string_at(policy, {"status", "gitopsPR", "driftFingerprint"}));
        r.url = std::string(core::string_at(policy, {"status", "gitopsPR", "url"}));
        if (auto t = core::parse_timestamp(core::string_at(policy, {"status", "gitopsPR", "lastAttempt"})))
            r.last_attempt = t.value();
        out.gitops_pr = std::move(r);
    }
    if (const auto* l = core::json_at(policy, {"status", "lifecycle"})) {
        out.lifecycle_owned = true;
        if (auto decoded = core::decode_lifecycle_status(*l)) out.lifecycle = std::move(decoded).value();
    }
    return out;
}

std::string status_patch_body(const PolicyStatus& status) {
    json::array idle;
    for (const auto& w : status.idle_workloads)
        idle.push_back(json::object{{"workload", w.workload}, {"kind", w.kind}, {"reason", w.reason}});
    const auto& w = status.workloads;
    json::object st{{"idleWorkloads", std::move(idle)},
                    {"observedGeneration", status.observed_generation},
                    {"workloads", json::object{{"discovered", w.discovered},
                                               {"withRecommendations", w.with_recommendations},
                                               {"resized", w.resized},
                                               {"pending", w.pending},
                                               {"deferred", w.deferred},
                                               {"infeasible", w.infeasible},
                                               {"dataPointsCollected", w.data_points_collected},
                                               {"dataPointsRequired", w.data_points_required}}},
                    {"conditions", core::conditions_json(status.conditions)},
                    {"recommendations", status.recommendations},
                    // A merge patch keeps what it does not name: null removes savings that no longer apply.
                    {"savings", status.savings.empty() ? json::value(nullptr) : json::value(status.savings)}};
    // The executor's part (core/resize/resize_history.hpp, core/resize/cooldown.hpp).
    st["resizeHistory"] = core::history_json(status.resize_history);
    if (status.cooldown) st["cooldown"] = core::cooldown_status_json(*status.cooldown);
    if (status.lifecycle_owned) st["lifecycle"] = core::encode_lifecycle_status(status.lifecycle);
    if (status.gitops_pr) st["gitopsPR"] = core::pull_request_record_json(*status.gitops_pr);
    if (status.last_reconcile_time) st["lastReconcileTime"] = core::format_timestamp(*status.last_reconcile_time);
    return json::serialize(json::object{{"status", std::move(st)}});
}

}  // namespace attune::controller
