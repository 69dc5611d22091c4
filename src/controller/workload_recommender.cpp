#include <attune/controller/workload_recommender.hpp>

#include <attune/core/recommend/workload_recommendation.hpp>

#include <spdlog/spdlog.h>

#include <array>

namespace attune::controller {
namespace asio = boost::asio;

namespace {
SourceResult failed(RecommendationState state, std::string source, std::string message) {
    SourceResult r;
    r.state = state;
    r.source = std::move(source);
    r.message = std::move(message);
    return r;
}

// A recommendation, or "collecting" when no container has enough points yet.
SourceResult outcome(std::string source, core::WorkloadRecommendation w, std::string collecting_message) {
    SourceResult r;
    r.source = std::move(source);
    if (w.containers.empty()) {
        r.state = RecommendationState::Collecting;
        r.message = std::move(collecting_message);
    }
    r.recommendation = std::move(w);
    return r;
}

double seconds_since_epoch(std::chrono::system_clock::time_point t) {
    return std::chrono::duration<double>(t.time_since_epoch()).count();
}
}  // namespace

WorkloadRecommender::WorkloadRecommender(PrometheusClients& clients, SecretReader* secrets, ControllerMetrics* metrics,
                                         WallClock now)
    : clients_(clients), secrets_(secrets), metrics_(metrics), now_(std::move(now)) {}

asio::awaitable<SourceResult> WorkloadRecommender::recommend(std::shared_ptr<const WorkloadSnapshot> s) {
    const auto& e = *s->effective();
    const double now = seconds_since_epoch(now_());
    if (std::holds_alternative<core::PrometheusSource>(e.metrics.provider)) co_return co_await from_prometheus(s);
    if (const auto* vpa = std::get_if<core::VpaSource>(&e.metrics.provider)) {
        if (s->vpa_not_synced)
            co_return failed(RecommendationState::Collecting, "vpa", "waiting for the VerticalPodAutoscaler cache");
        if (!s->vpa) co_return failed(RecommendationState::SourceUnavailable, "vpa", s->vpa_problem);
        auto w = core::recommend_from_vpa(e, vpa->selection, s->baseline, *s->vpa, now);
        if (!w) co_return failed(RecommendationState::SourceUnavailable, "vpa", w.error().message);
        co_return outcome("vpa", std::move(w).value(),
                          "VerticalPodAutoscaler " + std::string(kube::meta_string(*s->vpa, "namespace")) + "/" +
                              vpa->name + " has no recommendation for these containers yet");
    }
    if (const auto* manual = std::get_if<core::ManualSource>(&e.metrics.provider)) {
        auto w = core::recommend_from_manual(e, manual->containers, s->baseline, now);
        if (!w)
            co_return failed(RecommendationState::InvalidConfig, "manual",
                             "spec.metricsSource.manual: " + w.error().message);
        co_return outcome("manual", std::move(w).value(), "spec.metricsSource.manual names none of its containers");
    }
    co_return failed(RecommendationState::SourceUnavailable, "", "no usable metrics source");
}

asio::awaitable<core::Result<std::shared_ptr<kube::PrometheusClient>>> WorkloadRecommender::client_for(
    std::shared_ptr<const core::EffectivePolicy> policy) {
    // The provider's Prometheus, or for Manual/VPA a defaults object's (instant queries).
    const auto& src = policy->metrics.prometheus;
    if (!src) co_return core::make_error("no_prometheus", "the policy has no Prometheus");
    const auto& ns = policy->namespace_;
    // Secrets exist here only with --allow-secret-reads (validation refuses them otherwise).
    std::string token, ca;
    if (src->bearer_token_secret || src->ca_secret) {
        if (!secrets_) co_return core::make_error("invalid_config", "Secret reads are off in this manager");
        if (const auto& ref = src->bearer_token_secret) {
            auto t = co_await secrets_->read(ns, ref->name, ref->key);
            if (!t) co_return core::make_error("invalid_config", "bearerTokenSecret: " + t.error().message);
            token = std::move(t).value();
        }
        if (const auto& ref = src->ca_secret) {
            auto c = co_await secrets_->read(ns, ref->name, ref->key);
            if (!c) co_return core::make_error("invalid_config", "tls.caSecret: " + c.error().message);
            ca = std::move(c).value();
        }
    }
    auto client = clients_.get(*src, token, ca, std::chrono::steady_clock::now());
    if (!client) co_return core::make_error("invalid_config", src->origin + ": " + client.error().message);
    co_return std::move(client).value();
}

asio::awaitable<std::optional<double>> WorkloadRecommender::instant(std::shared_ptr<const core::EffectivePolicy> policy,
                                                                    std::string query) {
    auto client = co_await client_for(policy);
    if (!client) co_return std::nullopt;
    auto keep = client.value();  // alive across the await even if the cache drops it
    auto r = co_await keep->query(std::move(query), seconds_since_epoch(now_()));
    if (metrics_) metrics_->observe_query("instant", std::chrono::duration<double>(r.duration).count());
    if (!r.result) {
        if (metrics_)
            metrics_->prometheus_query_errors.Add({{"namespace", policy->namespace_}, {"query_type", "instant"}}).Increment();
        spdlog::warn("prometheus instant query failed; it passes namespace={} policy={} error_code={} error=\"{}\"",
                     policy->namespace_, policy->name, r.result.error().code, r.result.error().message);
        co_return std::nullopt;
    }
    for (const auto& series : r.result.value().series)
        if (!series.samples.empty()) co_return series.samples.front().value;
    co_return std::nullopt;
}

asio::awaitable<SourceResult> WorkloadRecommender::from_prometheus(std::shared_ptr<const WorkloadSnapshot> s) {
    const auto& e = *s->effective();
    const auto& ns = s->key.ns;
    auto client = co_await client_for(s->policy.effective);
    if (!client) co_return failed(RecommendationState::InvalidConfig, "prometheus", client.error().message);
    const double now = seconds_since_epoch(now_());
    auto queries = core::usage_queries(e, s->key.kind, s->key.name, s->pod_names, now);
    if (!queries) co_return failed(RecommendationState::InvalidConfig, "prometheus", queries.error().message);
    const auto& q = queries.value();

    // Keep the client alive across the awaits even if the cache drops it.
    auto keep = client.value();
    std::vector<core::PromResponse> answers;
    // Named, not a braced temporary in the loop header (GCC 12 coroutines).
    const std::array<std::pair<const char*, const std::string*>, 2> plan = {
        std::pair<const char*, const std::string*>("cpu", &q.cpu), std::pair<const char*, const std::string*>("memory", &q.memory)};
    for (const auto& [type, text] : plan) {
        if (auto held = clients_.holding_back(keep, std::chrono::steady_clock::now()); !held.empty())
            co_return failed(RecommendationState::SourceUnavailable, "prometheus",
                             std::string(type) + " query: " + held);
        std::string query = *text;
        auto r = co_await keep->query_range(std::move(query), q.start, q.end, q.step);
        if (metrics_) metrics_->observe_query(type, std::chrono::duration<double>(r.duration).count());
        if (!r.result) {
            if (metrics_) metrics_->prometheus_query_errors.Add({{"namespace", ns}, {"query_type", type}}).Increment();
            spdlog::warn("prometheus query failed namespace={} kind={} name={} policy={} query_type={} error_code={} "
                         "error=\"{}\"",
                         ns, s->key.kind, s->key.name, e.name, type, r.result.error().code, r.result.error().message);
            // The memory query is not sent after a failed cpu query: the
            // answer could not be used, and a hung Prometheus costs one timeout.
            const auto& code = r.result.error().code;
            if (code == "unreachable" || code == "timeout")
                clients_.note_unanswered(keep, r.result.error().message, std::chrono::steady_clock::now());
            co_return failed(RecommendationState::SourceUnavailable, "prometheus",
                             std::string(type) + " query: " + r.result.error().message);
        }
        clients_.note_answered(keep);
        answers.push_back(std::move(r.result).value());
    }
    auto w = core::recommend_from_usage(e, s->baseline, answers[0], answers[1], now);
    count_non_finite(*s, w);
    std::string collecting = core::insufficient_data_message(w.max_data_points, e.metrics.minimum_data_points,
                                                             std::chrono::duration<double>(e.metrics.query_step).count());
    co_return outcome("prometheus", std::move(w), std::move(collecting));
}

void WorkloadRecommender::count_non_finite(const WorkloadSnapshot& s, const core::WorkloadRecommendation& w) {
    if (!metrics_) return;
    auto add = [&](const std::string& container, const char* type, int n) {
        if (n <= 0) return;
        metrics_->nan_inf_samples
            .Add({{"namespace", s.key.ns}, {"policy", s.effective()->name}, {"container", container}, {"metric_type", type}})
            .Increment(n);
    };
    for (const auto& c : w.containers) {
        add(c.name, "cpu", c.non_finite_dropped_cpu);
        add(c.name, "memory", c.non_finite_dropped_memory);
    }
    for (const auto& c : w.insufficient) {
        add(c.name, "cpu", c.non_finite_dropped_cpu);
        add(c.name, "memory", c.non_finite_dropped_memory);
    }
}

}  // namespace attune::controller
