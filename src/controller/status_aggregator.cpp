#include <attune/controller/status_aggregator.hpp>

#include <boost/asio/as_tuple.hpp>
#include <boost/asio/use_awaitable.hpp>

#include <spdlog/spdlog.h>

namespace attune::controller {
namespace asio = boost::asio;

namespace {
std::string policy_id(const std::string& ns, const std::string& name) { return ns + "/" + name; }
}  // namespace

StatusAggregator::StatusAggregator(asio::any_io_executor ex, kube::Client& client, EventQueue* events,
                                   ControllerMetrics* metrics, const RecommendationStore* store,
                                   WriteOutcomeFn on_write, WallClock now)
    : client_(client), events_(events), metrics_(metrics), on_write_(std::move(on_write)), now_(std::move(now)),
      state_(store), wake_(ex, asio::steady_timer::time_point::max()),
      wake_writer_(ex, asio::steady_timer::time_point::max()), batch_(ex) {}

void StatusAggregator::begin_pass(PolicyPassPlan plan) {
    if (stopping_) return;
    auto id = policy_id(plan.policy.ns, plan.policy.name);
    auto [it, fresh] = plans_.insert_or_assign(id, std::move(plan));
    if (fresh) plan_order_.push_back(std::move(id));
    wake(wake_);
}

void StatusAggregator::report(WorkloadReport r) {
    if (stopping_) return;
    auto key = r.key();
    auto [it, fresh] = reports_.insert_or_assign(key, std::move(r));
    if (fresh) report_order_.push_back(std::move(key));
    wake(wake_);
}

void StatusAggregator::refresh(const std::string& ns, const std::string& policy) {
    if (stopping_) return;
    refreshes_.insert_or_assign(policy_id(ns, policy), std::make_pair(ns, policy));
    wake(wake_);
}

void StatusAggregator::set_pull_request(const std::string& ns, const std::string& policy, PullRequestStatus pr) {
    if (stopping_) return;
    pull_requests_.insert_or_assign({ns, policy}, std::move(pr));
    wake(wake_);
}

void StatusAggregator::stop() {
    stopping_ = true;
    batch_.cancel();
    wake(wake_);
    wake(wake_writer_);
}

const PolicyStatus* StatusAggregator::latest(const std::string& ns, const std::string& policy) const {
    auto it = latest_.find(policy_id(ns, policy));
    return it == latest_.end() ? nullptr : it->second.get();
}

asio::awaitable<void> StatusAggregator::run() {
    while (!stopping_) {
        if (plans_.empty() && reports_.empty() && refreshes_.empty() && pull_requests_.empty()) {
            co_await wake_.async_wait(asio::as_tuple(asio::use_awaitable));
            continue;
        }
        drain();
        // What arrives within the window is applied together, so a policy's
        // status is computed at most once a window however many of its
        // workloads report (docs/manager.md, "What a pass reads").
        if (batch_window_.count() > 0 && !stopping_) {
            batch_.expires_after(batch_window_);
            co_await batch_.async_wait(asio::as_tuple(asio::use_awaitable));
        }
    }
}

// Pass starts first, so a pass is open when its targets' reports arrive.
void StatusAggregator::drain() {
    const auto now = now_();
    auto plans = std::exchange(plans_, {});
    auto plan_order = std::exchange(plan_order_, {});
    auto reports = std::exchange(reports_, {});
    auto report_order = std::exchange(report_order_, {});
    for (const auto& id : plan_order) {
        auto& plan = plans.at(id);
        const auto& p = plan.policy;
        if (plan.deleted) {
            state_.forget_policy(p.ns, p.name);
            latest_.erase(id);
            policy_uids_.erase(id);
            if (writes_.erase(id)) std::erase(write_order_, id);
            if (metrics_) {
                metrics_->remove_idle(p.ns, p.name);
                metrics_->remove_savings(p.ns, p.name);
            }
            spdlog::info("policy forgotten namespace={} name={}", p.ns, p.name);
            continue;
        }
        if (!p.error.empty())
            spdlog::warn("policy is invalid; it targets nothing namespace={} name={} uid={} error=\"{}\"", p.ns,
                         p.name, p.uid, p.error);
        spdlog::debug("policy pass begins namespace={} name={} generation={} targets={}", p.ns, p.name,
                      p.generation, plan.targets.size());
        if (auto c = state_.begin_pass(p.ns, p.name, plan.context, plan.targets, plan.written, now))
            finish(std::move(*c));
    }
    // Each policy a report leaves complete is completed once below, with the
    // refreshes: not once per report of the batch.
    for (const auto& key : report_order)
        for (auto& which : state_.absorb(reports.at(key)))
            refreshes_.insert_or_assign(policy_id(which.first, which.second), std::move(which));
    for (const auto& [which, pr] : std::exchange(pull_requests_, {}))
        if (state_.set_pull_request(which.first, which.second, pr))
            refreshes_.insert_or_assign(policy_id(which.first, which.second), which);
    for (const auto& [id, which] : std::exchange(refreshes_, {}))
        if (auto c = state_.refresh(which.first, which.second, now)) finish(std::move(*c));
}

void StatusAggregator::finish(CompletedPass c) {
    if (metrics_) {
        metrics_->passes.Add({{"result", "complete"}}).Increment();
        metrics_->set_idle(c.ns, c.policy, c.hpa_scaled_to_zero, c.manual_zero);
        metrics_->set_savings(c.ns, c.policy,
                              {c.reclaimed_cpu_cores, c.reclaimed_memory_bytes, c.monthly_savings_dollars});
    }
    for (const auto& w : c.entered_hpa_scaled_to_zero) {
        spdlog::info("workload held at zero by its HPA namespace={} kind={} name={} uid={} hpa={} policy={}", w.ns,
                     w.kind, w.name, w.uid, w.hpa_name, c.policy);
        if (!events_) continue;
        QueuedEvent q;
        q.event =
            kube::K8sEvent({w.api_version, w.kind, w.ns, w.name, w.uid}, "Normal", "HPAScaledToZero", "SkipResize",
                           "HorizontalPodAutoscaler " + w.hpa_name + " reports ScaledToZero=True; Attune leaves this " +
                               w.kind + " alone until it scales up again");
        events_->push(std::move(q));
    }
    if (c.first_recommendations && events_) {
        const auto& w = c.status.workloads;
        core::EventIntent intent{"Normal", "RecommendationsReady", "recommend",
                                 "First recommendations available: " + std::to_string(w.with_recommendations) +
                                     " of " + std::to_string(w.discovered) + " workloads have sizing data",
                                 false};
        events_->push(policy_event({"attune.io/v1alpha1", std::string(kPolicyKind), c.ns, c.policy, c.policy_uid},
                                   intent, ""));
    }
    const auto id = policy_id(c.ns, c.policy);
    auto status = std::make_shared<const PolicyStatus>(std::move(c.status));
    latest_[id] = status;
    if (on_pass_complete_) on_pass_complete_(c.ns, c.policy);
    if (!c.policy_uid.empty()) policy_uids_[id] = c.policy_uid;
    if (c.changed) {
        queue_write(c.ns, c.policy, std::move(status));
    } else if (writes_.erase(id)) {
        // Back to what the server holds: the pending write is moot.
        std::erase(write_order_, id);
    }
}

void StatusAggregator::queue_write(const std::string& ns, const std::string& policy, SharedStatus status) {
    const auto id = policy_id(ns, policy);
    auto [it, fresh] = writes_.insert_or_assign(id, PendingWrite{ns, policy, std::move(status)});
    if (fresh) write_order_.push_back(id);
    wake(wake_writer_);
}

asio::awaitable<void> StatusAggregator::run_writer() {
    while (!stopping_) {
        if (write_order_.empty()) {
            co_await wake_writer_.async_wait(asio::as_tuple(asio::use_awaitable));
            continue;
        }
        const auto id = write_order_.front();
        write_order_.pop_front();
        auto node = writes_.extract(id);
        if (node.empty()) continue;
        auto w = std::move(node.mapped());
        const auto policy_key = w.ns + "/" + std::string(kPolicyKind) + "/" + w.policy;
        const auto body = status_patch_body(*w.status);
        auto r = co_await client_.patch(kube::resources::attune_policies(), w.ns, w.policy, kube::PatchType::JsonMerge,
                                        body, "status");
        if (r) {
            state_.mark_written(w.ns, w.policy, *w.status);
            if (on_write_) on_write_(policy_key, false);
            if (metrics_) metrics_->status_writes.Add({{"result", "ok"}}).Increment();
            const auto* ready = core::find_condition(w.status->conditions, "Ready");
            spdlog::info(
                "policy status written namespace={} name={} resourceVersion={} idleWorkloads={} "
                "recommendations={} ready={} observedGeneration={}",
                w.ns, w.policy, kube::meta_string(r.value(), "resourceVersion"), w.status->idle_workloads.size(),
                w.status->recommendations.size(), ready ? ready->reason : "", w.status->observed_generation);
            // A newer status computed while this one was on the wire, and
            // then found equal to the older written one, was not queued:
            // queue it now, so the server ends at the newest.
            if (auto it = latest_.find(id); it != latest_.end() && !(*it->second == *w.status) && !writes_.contains(id))
                queue_write(w.ns, w.policy, it->second);
        } else if (r.error().is_not_found()) {
            if (metrics_) metrics_->status_writes.Add({{"result", "not_found"}}).Increment();
            spdlog::info("policy gone before its status was written namespace={} name={}", w.ns, w.policy);
        } else {
            if (metrics_) metrics_->status_writes.Add({{"result", "error"}}).Increment();
            spdlog::warn("policy status write failed; pass re-queued namespace={} name={} error=\"{}\"", w.ns,
                         w.policy, r.error().describe());
            // RBAC without attunepolicies/status: the status cannot say so,
            // an Event on the policy can (the apiserver's message names the
            // verb and the resource). Deduplicated like every "D" Event.
            if (r.error().is_forbidden() && events_) {
                const auto uid = policy_uids_.find(id);
                core::EventIntent intent{"Warning", "StatusWriteForbidden", "write-status",
                                         "the status of this policy cannot be written: " + r.error().message, true};
                events_->push(policy_event({"attune.io/v1alpha1", std::string(kPolicyKind), w.ns, w.policy,
                                            uid == policy_uids_.end() ? std::string() : uid->second},
                                           intent, ""));
            }
            if (on_write_) on_write_(policy_key, true);
        }
    }
}

}  // namespace attune::controller
