#include <attune/controller/controller.hpp>

#include <attune/controller/event_keys.hpp>

#include <spdlog/spdlog.h>

namespace attune::controller {
namespace asio = boost::asio;

controller::controller(asio::any_io_executor ex, kube::client& client, kube::event_recorder* events,
                       controller_metrics& metrics, cache_views caches, controller_options opts)
    : metrics_(metrics), caches_(caches), opts_(opts), queue_(ex, opts.rate, &metrics),
      aggregator_(ex, client, events, &metrics, [this](const std::string& key, bool failed) {
          if (failed) queue_.add_rate_limited(key);
          else queue_.forget(key);
      }) {}

kube::informer::handler controller::on_workload_change(std::string kind) {
    return [this, kind = std::move(kind)](const kube::object_cache::delta& d) {
        for (const auto& k : keys_for_workload_change(kind, d)) queue_.add(k);
    };
}

kube::informer::handler controller::on_hpa_change() {
    return [this](const kube::object_cache::delta& d) {
        for (const auto& k : keys_for_hpa_change(d)) queue_.add(k);
    };
}

kube::informer::handler controller::on_policy_change() {
    return [this](const kube::object_cache::delta& d) {
        for (const auto& k : keys_for_policy_change(d)) queue_.add(k);
    };
}

void controller::enqueue_all_policies() {
    if (!caches_.policies) return;
    for (const auto& p : caches_.policies->all()) {
        const auto ns = kube::meta_string(*p, "namespace");
        const auto name = kube::meta_string(*p, "name");
        if (!ns.empty() && !name.empty())
            queue_.add(std::string(ns) + "/" + std::string(kPolicyKind) + "/" + std::string(name));
    }
}

void controller::process(const std::string& key) {
    auto k = parse_object_key(key);
    if (!k) {
        spdlog::warn("dropping malformed workqueue key key={}", key);
        return;
    }
    if (k->kind == kPolicyKind) {
        auto plan = plan_policy_pass(caches_, *k);
        // begin_pass goes to the aggregator before any target is queued, so
        // the pass is open when the first report arrives.
        const auto targets = plan.targets;
        aggregator_.begin_pass(std::move(plan));
        for (const auto& t : targets) queue_.add(t);
        metrics_.reconciles.Add({{"kind", k->kind}, {"result", "ok"}}).Increment();
        return;
    }
    auto report = classify_workload(caches_, *k);
    spdlog::debug("workload classified namespace={} kind={} name={} uid={} idle={} policies={}", k->ns, k->kind,
                  k->name, report.uid, core::idle_reason(report.idle), report.selected_by.size());
    aggregator_.report(std::move(report));
    queue_.forget(key);
    metrics_.reconciles.Add({{"kind", k->kind}, {"result", "ok"}}).Increment();
}

asio::awaitable<void> controller::run_worker() {
    for (;;) {
        auto key = co_await queue_.get();
        if (!key) co_return;
        try {
            process(*key);
        } catch (...) {
            metrics_.reconciles.Add({{"kind", "unknown"}, {"result", "error"}}).Increment();
            queue_.done(*key);
            queue_.add_rate_limited(*key);
            throw;  // the spawn site logs, counts and restarts this worker
        }
        queue_.done(*key);
    }
}

void controller::shut_down() {
    queue_.shut_down();
    aggregator_.stop();
}

}  // namespace attune::controller
