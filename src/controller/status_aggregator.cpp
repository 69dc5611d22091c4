#include <attune/controller/status_aggregator.hpp>

#include <boost/asio/as_tuple.hpp>
#include <boost/asio/use_awaitable.hpp>

#include <spdlog/spdlog.h>

// GCC 12 reports a false -Wmismatched-new-delete when it inlines Asio's
// aligned frame allocation into a coroutine's destroy path (GCC PR 109224).
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic ignored "-Wmismatched-new-delete"
#endif

namespace attune::controller {
namespace asio = boost::asio;

status_aggregator::status_aggregator(asio::any_io_executor ex, kube::client& client, kube::event_recorder* events,
                                     controller_metrics* metrics, write_outcome_fn on_write)
    : client_(client), events_(events), metrics_(metrics), on_write_(std::move(on_write)),
      wake_(ex, asio::steady_timer::time_point::max()) {}

void status_aggregator::begin_pass(policy_pass_plan plan) { push(std::move(plan)); }
void status_aggregator::report(workload_report r) { push(std::move(r)); }

void status_aggregator::push(message m) {
    if (stopping_) return;
    inbox_.push_back(std::move(m));
    wake_.cancel();
}

void status_aggregator::stop() {
    stopping_ = true;
    wake_.cancel();
}

asio::awaitable<void> status_aggregator::run() {
    while (!stopping_) {
        if (inbox_.empty()) {
            co_await wake_.async_wait(asio::as_tuple(asio::use_awaitable));
            continue;
        }
        auto m = std::move(inbox_.front());
        inbox_.pop_front();
        co_await handle(std::move(m));
    }
}

asio::awaitable<void> status_aggregator::handle(message m) {
    // The state change happens synchronously here; only the resulting writes await.
    std::vector<completed_pass> done;
    if (auto* plan = std::get_if<policy_pass_plan>(&m)) {
        const auto& p = plan->policy;
        if (plan->deleted) {
            state_.forget_policy(p.ns, p.name);
            if (metrics_) metrics_->remove_idle(p.ns, p.name);
            spdlog::info("policy forgotten namespace={} name={}", p.ns, p.name);
            co_return;
        }
        if (!p.error.empty())
            spdlog::warn("policy is invalid; it targets nothing namespace={} name={} uid={} error=\"{}\"", p.ns,
                         p.name, p.uid, p.error);
        spdlog::debug("policy pass begins namespace={} name={} generation={} targets={}", p.ns, p.name,
                      p.generation, plan->targets.size());
        if (auto c = state_.begin_pass(p.ns, p.name, p.generation, plan->targets, plan->written))
            done.push_back(std::move(*c));
    } else {
        done = state_.report(std::get<workload_report>(m));
    }
    for (auto& c : done) co_await finish(std::move(c));
}

asio::awaitable<void> status_aggregator::finish(completed_pass c) {
    if (metrics_) {
        metrics_->passes.Add({{"result", "complete"}}).Increment();
        metrics_->set_idle(c.ns, c.policy, c.hpa_scaled_to_zero, c.manual_zero);
    }
    for (const auto& w : c.entered_hpa_scaled_to_zero) {
        spdlog::info("workload held at zero by its HPA namespace={} kind={} name={} uid={} hpa={} policy={}", w.ns,
                     w.kind, w.name, w.uid, w.hpa_name, c.policy);
        if (!events_) continue;
        kube::k8s_event ev;
        ev.regarding = {w.api_version, w.kind, w.ns, w.name, w.uid};
        ev.type = "Normal";
        ev.reason = "HPAScaledToZero";
        ev.action = "SkipResize";
        ev.note = "HorizontalPodAutoscaler " + w.hpa_name + " reports ScaledToZero=True; Attune leaves this " + w.kind +
                  " alone until it scales up again";
        co_await events_->emit(std::move(ev));
    }
    if (!c.changed) co_return;
    const auto policy_key = c.ns + "/" + std::string(kPolicyKind) + "/" + c.policy;
    const auto body = status_patch_body(c.status);
    auto r = co_await client_.patch(kube::resources::attune_policies(), c.ns, c.policy, kube::patch_type::json_merge,
                                    body, "status");
    if (r) {
        state_.mark_written(c.ns, c.policy, c.status);
        if (on_write_) on_write_(policy_key, false);
        if (metrics_) metrics_->status_writes.Add({{"result", "ok"}}).Increment();
        spdlog::info("policy status written namespace={} name={} resourceVersion={} idleWorkloads={} "
                     "observedGeneration={}",
                     c.ns, c.policy, kube::meta_string(r.value(), "resourceVersion"), c.status.idle_workloads.size(),
                     c.status.observed_generation);
    } else if (r.error().is_not_found()) {
        if (metrics_) metrics_->status_writes.Add({{"result", "not_found"}}).Increment();
        spdlog::info("policy gone before its status was written namespace={} name={}", c.ns, c.policy);
    } else {
        if (metrics_) metrics_->status_writes.Add({{"result", "error"}}).Increment();
        spdlog::warn("policy status write failed; pass re-queued namespace={} name={} error=\"{}\"", c.ns, c.policy,
                     r.error().describe());
        if (on_write_) on_write_(policy_key, true);
    }
}

}  // namespace attune::controller
