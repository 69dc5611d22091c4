#include <attune/controller/controller.hpp>

#include <attune/controller/event_keys.hpp>
#include <attune/controller/prometheus_discoverer.hpp>
#include <attune/core/util/json_path.hpp>
#include <attune/core/recommend/workload_recommendation.hpp>

#include <boost/asio/as_tuple.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/use_awaitable.hpp>

#include <spdlog/spdlog.h>

namespace attune::controller {

namespace {
// The connect-time SSRF rule and the plaintext opt-in follow the same flags
// as policy validation: one switch each, not two that could disagree.
PrometheusClientsOptions with_validation_flags(PrometheusClientsOptions o, const core::PolicyValidationOptions& v) {
    o.allow_local_addresses = v.allow_local_metrics_addresses;
    o.allow_plaintext_credentials = v.allow_plaintext_credentials;
    return o;
}
DatadogClientsOptions with_validation_flags(DatadogClientsOptions o, const core::PolicyValidationOptions& v) {
    o.allow_local_addresses = v.allow_local_metrics_addresses;
    return o;
}
CloudWatchClientsOptions with_validation_flags(CloudWatchClientsOptions o, const core::PolicyValidationOptions& v) {
    o.allow_local_addresses = v.allow_local_metrics_addresses;
    return o;
}
PullRequestOptions with_validation_flags(PullRequestOptions o, const core::PolicyValidationOptions& v) {
    o.allow_local_addresses = v.allow_local_metrics_addresses;
    return o;
}
}  // namespace
namespace asio = boost::asio;

namespace {
std::string policy_key(std::string_view ns, std::string_view name) {
    return std::string(ns) + "/" + std::string(kPolicyKind) + "/" + std::string(name);
}

long long generation_of(const kube::ObjectCache::ObjectPtr& obj) {
    return obj ? core::int_at(*obj, {"metadata", "generation"}).value_or(0) : 0;
}

std::string_view state_name(RecommendationState s) {
    switch (s) {
        case RecommendationState::None: return "none";
        case RecommendationState::Observe: return "observe";
        case RecommendationState::Paused: return "paused";
        case RecommendationState::InvalidConfig: return "invalid_config";
        case RecommendationState::SourceUnavailable: return "source_unavailable";
        case RecommendationState::Collecting: return "collecting";
        case RecommendationState::Recommended: return "recommended";
    }
    return "";
}
}  // namespace

Controller::Controller(asio::any_io_executor ex, kube::Client& client, kube::EventRecorder* events,
                       ControllerMetrics& metrics, policy::CacheViews caches, ControllerOptions opts, WallClock now)
    : client_(client), metrics_(metrics), caches_(std::move(caches)), opts_(std::move(opts)),
      now_(now ? std::move(now) : WallClock([] { return std::chrono::system_clock::now(); })),
      queue_(ex, opts_.rate, &metrics),
      events_(ex, events, opts_.event_queue_capacity, &metrics, [this] { return now_seconds(); }),
      exporter_(ex, client, events_, [this] { return now_seconds(); }),
      aggregator_(
          ex, client, &events_, &metrics, &store_,
          [this](const std::string& key, bool failed) {
              if (failed) queue_.add_rate_limited(key);
              else queue_.forget(key);
          },
          [this] { return now_seconds(); }),
      policies_(opts_.validation),
      secrets_(opts_.validation.allow_secret_reads ? std::make_unique<SecretReader>(client) : nullptr),
      prometheus_(ex, with_validation_flags(opts_.prometheus, opts_.validation)),
      datadog_(ex, with_validation_flags(opts_.datadog, opts_.validation)),
      cloudwatch_(ex, with_validation_flags(opts_.cloudwatch, opts_.validation)),
      recommender_(prometheus_, datadog_, cloudwatch_, secrets_.get(), &metrics, now_),
      pull_requests_(
          ex, client, caches_, store_, aggregator_, events_, &metrics, secrets_.get(),
          [this](const kube::ObjectCache::ObjectPtr& p) { return policies_.resolve(caches_, p).effective; },
          [this] { return now_seconds(); }, with_validation_flags(opts_.pull_requests, opts_.validation)) {
    aggregator_.on_pass_complete(
        [this](const std::string& ns, const std::string& policy) { pull_requests_.policy_changed(ns, policy); });
    // The recommendation gauges follow the store: set with an entry, gone with it.
    store_.on_change([this](const ObjectKey& k) { publish_gauges(k); });
}

core::Timestamp Controller::now_seconds() const { return std::chrono::floor<std::chrono::seconds>(now_()); }

kube::Informer::Handler Controller::on_workload_change(std::string kind) {
    return [this, kind = std::move(kind)](const kube::ObjectCache::Delta& d) {
        for (const auto& k : keys_for_workload_change(kind, d)) queue_.add(k);
    };
}

kube::Informer::Handler Controller::on_hpa_change() {
    return [this](const kube::ObjectCache::Delta& d) {
        for (const auto& k : keys_for_hpa_change(d)) queue_.add(k);
    };
}

kube::Informer::Handler Controller::on_policy_change() {
    return [this](const kube::ObjectCache::Delta& d) {
        for (const auto& k : keys_for_policy_change(d)) queue_.add(k);
    };
}

kube::Informer::Handler Controller::on_defaults_change(bool cluster_scoped) {
    return [this, cluster_scoped](const kube::ObjectCache::Delta& d) {
        if (cluster_scoped || !caches_.policies) return enqueue_all_policies();
        const auto ns = d.key.substr(0, d.key.find('/'));
        for (const auto& p : caches_.policies->in_namespace(ns))
            queue_.add(policy_key(ns, kube::meta_string(*p, "name")));
    };
}

kube::Informer::Handler Controller::on_pod_change() {
    return [this](const kube::ObjectCache::Delta& d) {
        for (const auto& k : keys_for_pod_change(d, caches_.replicasets, caches_.jobs))
            queue_.add_settled(k, opts_.pod_change_delay);
    };
}

kube::Informer::Handler Controller::on_vpa_change() {
    // Only the policies that read this VPA: a VPA recommender updates its
    // status every minute, and other policies have nothing to do with it.
    return [this](const kube::ObjectCache::Delta& d) {
        if (!caches_.policies) return;
        const auto slash = d.key.find('/');
        if (slash == std::string::npos) return;
        const auto vns = d.key.substr(0, slash), vname = d.key.substr(slash + 1);
        for (const auto& p : caches_.policies->all()) {
            const auto resolved = policies_.resolve(caches_, p);
            if (!resolved.effective) continue;
            const auto* vpa = std::get_if<core::VpaSource>(&resolved.effective->metrics.provider);
            if (!vpa || vpa->name != vname) continue;
            const auto ns = kube::meta_string(*p, "namespace");
            if ((vpa->namespace_.empty() ? std::string(ns) : vpa->namespace_) == vns)
                queue_.add(policy_key(ns, kube::meta_string(*p, "name")));
        }
    };
}

void Controller::enqueue_all_policies() {
    if (!caches_.policies) return;
    for (const auto& p : caches_.policies->all()) {
        const auto ns = kube::meta_string(*p, "namespace");
        const auto name = kube::meta_string(*p, "name");
        if (!ns.empty() && !name.empty()) queue_.add(policy_key(ns, name));
    }
}

asio::awaitable<bool> Controller::refresh_prometheus_discovery() {
    auto found = co_await look_for_prometheus(client_, opts_.watch_namespaces);
    if (!found) {
        spdlog::warn("prometheus discovery failed; keeping the last answer error=\"{}\"", found.error().message);
        co_return false;
    }
    // Resolved and applied in one step: no co_await between them.
    if (!policies_.set_discovered_prometheus(found.value())) co_return false;
    if (const auto& d = policies_.discovered_prometheus())
        spdlog::info("prometheus auto-discovered address={} found_by=\"{}\"", d->address, d->found_by);
    else spdlog::info("prometheus auto-discovery found none");
    enqueue_all_policies();
    co_return true;
}

asio::awaitable<void> Controller::run_prometheus_discovery(std::chrono::seconds period) {
    asio::steady_timer t(co_await asio::this_coro::executor);
    discovery_timer_ = &t;
    while (!stopped_) {
        t.expires_after(period);
        co_await t.async_wait(asio::as_tuple(asio::use_awaitable));
        if (stopped_) break;
        co_await refresh_prometheus_discovery();
    }
    discovery_timer_ = nullptr;
}

void Controller::set_vpa_cache(const kube::ObjectCache* vpas) {
    caches_.vpas = vpas;
    enqueue_all_policies();
}

void Controller::set_capabilities(core::Capabilities caps) {
    capabilities_ = std::move(caps);
    capabilities_probed_ = true;
}

asio::awaitable<void> Controller::process(std::string key) {
    auto k = parse_object_key(key);
    if (!k) {
        spdlog::warn("dropping malformed workqueue key key={}", key);
        co_return;
    }
    if (k->kind == kPolicyKind) {
        // Its backoff starts over only with a successful status write.
        process_policy(*k);
    } else {
        co_await process_workload(*k);
        queue_.forget(key);
    }
    metrics_.reconciles.Add({{"kind", k->kind}, {"result", "ok"}}).Increment();
}

void Controller::process_policy(const ObjectKey& k) {
    auto plan = plan_policy_pass(caches_, k);
    std::vector<std::string> again;
    if (plan.deleted) {
        policies_.forget(k.ns, k.name);
        // A workload it won may go to another policy of the namespace now:
        // their passes look at their targets again.
        if (caches_.policies)
            for (const auto& p : caches_.policies->in_namespace(k.ns)) again.push_back(policy_key(k.ns, kube::meta_string(*p, "name")));
    } else if (!plan.policy.error.empty()) {
        plan.context.config_error = plan.policy.error;
    } else {
        fill_context(plan.context, policies_.resolve(caches_, caches_.policies->get(k.cache_key())));
    }
    // Workloads whose entry names this policy but that it no longer targets
    // (deleted policy, narrowed selector) are looked at again, so their
    // entry goes or moves to the policy that manages them now.
    again.insert(again.end(), plan.targets.begin(), plan.targets.end());
    for (const auto* e : store_.in_namespace(k.ns))
        if (e->policy == k.name) again.push_back(e->workload.str());
    // begin_pass goes to the aggregator before any target is queued, so the
    // pass is open when the first report arrives.
    aggregator_.begin_pass(std::move(plan));
    for (const auto& t : again) queue_.add(t);
}

asio::awaitable<void> Controller::process_workload(ObjectKey k) {
    auto snap = std::make_shared<const WorkloadSnapshot>(take_snapshot(caches_, policies_, k));
    const auto step = next_step(*snap);
    emit_selection_events(*snap);
    if (step != WorkloadStep::QuerySource) {
        apply(*snap, step, nullptr);
        co_return;
    }
    auto got = co_await recommender_.recommend(snap);
    // The caches moved on during the queries. A policy whose spec changed,
    // or a workload deleted or recreated meanwhile, has had its key queued
    // again (by the pass or the watch), and that run sees the new state:
    // this result is dropped rather than applied over it.
    const auto policy = caches_.policies->get(k.ns + "/" + snap->report.selected_by.front());
    const auto* cache = caches_.for_kind(k.kind);
    const auto workload = cache ? cache->get(k.cache_key()) : nullptr;
    if (!policy || generation_of(policy) != snap->policy_generation() || !workload ||
        kube::meta_string(*workload, "uid") != snap->report.uid) {
        spdlog::debug("recommendation dropped: the policy or workload changed during the query namespace={} kind={} "
                      "name={}",
                      k.ns, k.kind, k.name);
        co_return;
    }
    apply(*snap, step, &got);
}

void Controller::emit_selection_events(const WorkloadSnapshot& s) {
    const auto& r = s.report;
    for (const auto& p : s.outranked) {
        core::EventIntent intent{"Warning", "PolicyConflict", "recommend",
                                 "Workload " + r.name + " is managed by policy " +
                                     (r.selected_by.empty() ? std::string("?") : r.selected_by.front()) +
                                     ", which takes precedence (a higher weight, or the same weight and a smaller "
                                     "name)",
                                 true};
        events_.push(policy_event(p.ref, intent, p.suppress_warnings));
    }
    for (const auto& p : s.opted_out) {
        core::EventIntent intent{"Normal", "WorkloadOptOut", "recommend",
                                 "Workload " + r.name + " opted out via attune.io/skip annotation", true};
        events_.push(policy_event(p.ref, intent, p.suppress_warnings));
    }
}

void Controller::apply(const WorkloadSnapshot& s, WorkloadStep step, const SourceResult* got) {
    auto report = s.report;
    auto& rr = report.recommendation;
    std::optional<core::RefreshReason> refresh;
    const auto* old = store_.get(s.key);
    // An entry carried over from an earlier cycle whose read failed now is
    // stale by definition (the executor does not act on it).
    auto keep_stale = [&] {
        if (!old || old->recommendation.stale) return;
        auto copy = *old;
        copy.recommendation.stale = true;
        store_.put(std::move(copy));
    };
    // The workload left the policy its entry names (deleted, opted out, or
    // taken by another policy): that policy's export ConfigMap goes.
    if (old && (s.report.selected_by.empty() || old->policy != s.report.selected_by.front()))
        exporter_.workload_left(*old);
    switch (step) {
        case WorkloadStep::Unmanaged: store_.erase(s.key); break;
        case WorkloadStep::Idle: break;  // not queried; its last recommendation stays for the scale-up
        case WorkloadStep::ConfigFailed:
            store_.erase(s.key);
            rr = {RecommendationState::InvalidConfig, s.policy.config_error, 0};
            refresh = core::RefreshReason::ConfigFailed;
            break;
        case WorkloadStep::Paused:
            if (old) {
                auto copy = *old;
                copy.effective = s.policy.effective;  // the apply path sees the pause through the store
                store_.put(std::move(copy));
            }
            rr.state = RecommendationState::Paused;
            break;
        case WorkloadStep::Observe:
            store_.erase(s.key);
            rr.state = RecommendationState::Observe;
            break;
        case WorkloadStep::SourceFailed:
            keep_stale();
            rr = {RecommendationState::SourceUnavailable, s.policy.source_error, 0};
            refresh = core::RefreshReason::SourceFailed;
            break;
        case WorkloadStep::NothingToSize:
            store_.erase(s.key);
            rr = {RecommendationState::InvalidConfig,
                  s.baseline_error.empty() ? "no container to size (every container is excluded)" : s.baseline_error,
                  0};
            break;
        case WorkloadStep::QuerySource: {
            rr = {got->state, got->message, got->recommendation.max_data_points};
            if (got->state == RecommendationState::Recommended) {
                StoredRecommendation e;
                e.workload = s.key;
                e.workload_uid = s.report.uid;
                e.policy = s.report.selected_by.front();
                e.effective = s.policy.effective;
                e.recommendation = got->recommendation;
                e.source = got->source;
                e.computed_at = now_seconds();
                const bool changed = store_.put(std::move(e));
                if (const auto* stored = store_.get(s.key))
                    exporter_.recommended(*stored, policy_reference(s.policy.object), s.suppress_warnings());
                if (changed) {
                    for (const auto& c : got->recommendation.containers)
                        for (const auto& sup : c.suppressed) {
                            core::EventIntent intent{"Normal", "DecreaseSuppressed", "recommend",
                                                     "Workload " + s.key.name + ": " + sup.message, false};
                            events_.push(policy_event(policy_reference(s.policy.object), intent, ""));
                        }
                }
                // The working set has its points before rate() has: until every
                // resource has its own, look again every queryStep.
                refresh = core::refresh_after_recommendation(got->source, core::partly_collecting(got->recommendation));
            } else if (got->state == RecommendationState::Collecting) {
                store_.erase(s.key);  // minimumDataPoints may have been raised
                refresh = core::RefreshReason::Collecting;
            } else if (got->state == RecommendationState::SourceUnavailable) {
                keep_stale();
                refresh = core::RefreshReason::SourceFailed;
            } else {
                store_.erase(s.key);
                refresh = core::RefreshReason::ConfigFailed;
            }
            break;
        }
    }
    if (s.hpa_conflict && step != WorkloadStep::Unmanaged && step != WorkloadStep::Idle) {
        core::EventIntent intent{"Warning", "HPAConflict", "recommend",
                                 "HPA " + s.hpa_conflict->hpa_name + " targets workload " + s.key.name + ": " +
                                     s.hpa_conflict->message,
                                 true};
        events_.push(policy_event(policy_reference(s.policy.object), intent, s.suppress_warnings()));
    }
    spdlog::debug("workload looked at namespace={} kind={} name={} uid={} idle={} policies={} recommendation={} "
                  "points={} message=\"{}\"",
                  s.key.ns, s.key.kind, s.key.name, report.uid, core::idle_reason(report.idle),
                  report.selected_by.size(), state_name(rr.state), rr.points_collected, rr.message);
    aggregator_.report(std::move(report));
    if (refresh && s.effective()) {
        if (auto delay = core::refresh_delay(*refresh, s.effective()->metrics.query_step))
            queue_.add_after(s.key.str(), std::chrono::duration_cast<std::chrono::milliseconds>(*delay));
    } else if (refresh) {
        queue_.add_after(s.key.str(), std::chrono::minutes(1));
    }
}

void Controller::publish_gauges(const ObjectKey& k) {
    std::vector<ControllerMetrics::ContainerFigures> figures;
    if (const auto* e = store_.get(k))
        for (const auto& c : e->recommendation.containers)
            figures.push_back({c.name, static_cast<double>(c.recommended.cpu_request.milli_value()) / 1000.0,
                               static_cast<double>(c.recommended.memory_request.value()), c.confidence});
    metrics_.set_recommendation(k.ns, k.name, figures);
}

asio::awaitable<void> Controller::run_worker() {
    for (;;) {
        auto key = co_await queue_.get();
        if (!key) co_return;
        try {
            co_await process(*key);
        } catch (...) {
            metrics_.reconciles.Add({{"kind", "unknown"}, {"result", "error"}}).Increment();
            queue_.done(*key);
            queue_.add_rate_limited(*key);
            throw;  // the spawn site logs, counts and restarts this worker
        }
        queue_.done(*key);
    }
}

void Controller::shut_down() {
    stopped_ = true;
    if (discovery_timer_ != nullptr) discovery_timer_->cancel();
    queue_.shut_down();
    aggregator_.stop();
    exporter_.stop();
    pull_requests_.stop();
    events_.stop();
    prometheus_.shutdown();
    datadog_.shutdown();
    cloudwatch_.shutdown();
}

}  // namespace attune::controller
