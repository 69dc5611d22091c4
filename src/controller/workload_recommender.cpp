#include <attune/controller/workload_recommender.hpp>

#include <attune/core/recommend/workload_recommendation.hpp>

#include <spdlog/spdlog.h>

#include <algorithm>
#include <array>
#include <functional>
#include <tuple>

#include <boost/asio/as_tuple.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/this_coro.hpp>
#include <boost/asio/use_awaitable.hpp>

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

// Waits out a request budget's reservation in slices of a second, so a
// shutdown (`stopped`) does not wait out a budget of up to a query timeout.
asio::awaitable<void> wait_in_slices(asio::steady_timer& timer, std::chrono::nanoseconds wait,
                                     const std::function<bool()>& stopped) {
    for (auto left = wait; left.count() > 0 && !stopped(); left -= std::chrono::seconds(1)) {
        timer.expires_after(std::min<std::chrono::nanoseconds>(left, std::chrono::seconds(1)));
        co_await timer.async_wait(asio::as_tuple(asio::use_awaitable));
    }
}
}  // namespace

WorkloadRecommender::WorkloadRecommender(PrometheusClients& clients, DatadogClients& datadog,
                                         CloudWatchClients& cloudwatch, SecretReader* secrets,
                                         ControllerMetrics* metrics, WallClock now)
    : clients_(clients), datadog_(datadog), cloudwatch_(cloudwatch), secrets_(secrets), metrics_(metrics),
      now_(std::move(now)) {}

asio::awaitable<SourceResult> WorkloadRecommender::recommend(std::shared_ptr<const WorkloadSnapshot> s) {
    const auto& e = *s->effective();
    const double now = seconds_since_epoch(now_());
    if (std::holds_alternative<core::PrometheusSource>(e.metrics.provider)) co_return co_await from_prometheus(s);
    if (std::holds_alternative<core::DatadogSource>(e.metrics.provider)) co_return co_await from_datadog(s);
    if (std::holds_alternative<core::CloudWatchSource>(e.metrics.provider)) co_return co_await from_cloudwatch(s);
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
            count_query_error(*s, type, "prometheus", r.result.error());
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
    co_return from_usage(*s, "prometheus", answers[0], answers[1], now);
}

asio::awaitable<SourceResult> WorkloadRecommender::from_datadog(std::shared_ptr<const WorkloadSnapshot> s) {
    const auto& e = *s->effective();
    const auto& dd = std::get<core::DatadogSource>(e.metrics.provider);
    const auto& ns = s->key.ns;
    const std::string field = "spec.metricsSource.datadog";
    // Validation refuses a Datadog policy without Secret reads before it gets here.
    if (!secrets_)
        co_return failed(RecommendationState::InvalidConfig, "datadog", "Secret reads are off in this manager");
    const auto& ref = dd.api_key_secret_ref;
    auto api_key = co_await secrets_->read(ns, ref.name, ref.key);
    if (!api_key)
        co_return failed(RecommendationState::InvalidConfig, "datadog",
                         field + ".apiKeySecretRef: " + api_key.error().message);
    // The application key is the same Secret's "app-key", when it has one,
    // as the Go original reads it: optional, so its absence is no error.
    auto app_key = co_await secrets_->read(ns, ref.name, "app-key");
    auto client =
        datadog_.get(dd, api_key.value(), app_key ? app_key.value() : std::string(), std::chrono::steady_clock::now());
    if (!client) co_return failed(RecommendationState::InvalidConfig, "datadog", field + ": " + client.error().message);
    const double now = seconds_since_epoch(now_());
    auto queries = core::datadog_usage_queries(e, s->key.kind, s->key.name, now);
    if (!queries) co_return failed(RecommendationState::InvalidConfig, "datadog", queries.error().message);
    const auto& q = queries.value();

    auto keep = client.value();  // alive across the awaits even if the cache drops it
    std::vector<core::PromResponse> answers;
    using Plan = std::tuple<const char*, core::ResourceKind, const std::string*>;
    const std::array<Plan, 2> plan = {Plan("cpu", core::ResourceKind::Cpu, &q.cpu),
                                      Plan("memory", core::ResourceKind::Memory, &q.memory)};
    asio::steady_timer timer(co_await asio::this_coro::executor);
    for (const auto& [type, resource, text] : plan) {
        auto admitted = datadog_.admit(keep, std::chrono::steady_clock::now(), datadog_.options().query_timeout);
        if (!admitted.wait)
            co_return failed(RecommendationState::SourceUnavailable, "datadog",
                             std::string(type) + " query: " + admitted.why);
        co_await wait_in_slices(timer, *admitted.wait, [this] { return datadog_.stopped(); });
        if (datadog_.stopped())
            co_return failed(RecommendationState::SourceUnavailable, "datadog", "datadog clients shut down");
        std::string query = *text;
        auto r = co_await keep->query(std::move(query), resource, static_cast<long long>(q.start),
                                      static_cast<long long>(q.end));
        if (metrics_) metrics_->observe_query(type, std::chrono::duration<double>(r.duration).count());
        if (!r.result) {
            count_query_error(*s, type, "datadog", r.result.error());
            const auto& code = r.result.error().code;
            auto message = r.result.error().message;
            const auto at = std::chrono::steady_clock::now();
            if (code == "rate_limited") {
                datadog_.note_rate_limited(keep, r.retry_after, message, at);
                message += "; not asked again for " + std::to_string(r.retry_after.count()) + " s";
            } else if (code == "unreachable" || code == "timeout") {
                datadog_.note_unanswered(keep, message, at);
            }
            co_return failed(RecommendationState::SourceUnavailable, "datadog",
                             std::string(type) + " query: " + message);
        }
        datadog_.note_answered(keep);
        answers.push_back(std::move(r.result).value());
    }
    co_return from_usage(*s, "datadog", answers[0], answers[1], now);
}

asio::awaitable<SourceResult> WorkloadRecommender::from_cloudwatch(std::shared_ptr<const WorkloadSnapshot> s) {
    const auto& e = *s->effective();
    const auto& cw = std::get<core::CloudWatchSource>(e.metrics.provider);
    const std::string field = "spec.metricsSource.cloudwatch";
    const double now = seconds_since_epoch(now_());
    auto queries = core::cloudwatch_usage_queries(e, s->key.kind, s->key.name, now);
    if (!queries) co_return failed(RecommendationState::InvalidConfig, "cloudwatch", queries.error().message);
    const auto& q = queries.value();
    auto client = cloudwatch_.get(cw, std::chrono::steady_clock::now());
    if (!client)
        co_return failed(RecommendationState::InvalidConfig, "cloudwatch", field + ": " + client.error().message);
    auto keep = client.value();  // alive across the awaits even if the cache drops it
    auto credentials = co_await cloudwatch_.credentials(cw);
    if (!credentials) {
        spdlog::warn("cloudwatch credentials failed namespace={} kind={} name={} policy={} error_code={} error=\"{}\"",
                     s->key.ns, s->key.kind, s->key.name, e.name, credentials.error().code,
                     credentials.error().message);
        co_return failed(RecommendationState::SourceUnavailable, "cloudwatch",
                         field + ": AWS credentials: " + credentials.error().message);
    }

    std::vector<core::PromResponse> answers;
    using Plan = std::tuple<const char*, core::ResourceKind, const std::string*>;
    const std::array<Plan, 2> plan = {Plan("cpu", core::ResourceKind::Cpu, &q.usage.cpu),
                                      Plan("memory", core::ResourceKind::Memory, &q.usage.memory)};
    asio::steady_timer timer(co_await asio::this_coro::executor);
    for (const auto& [type, resource, text] : plan) {
        auto admitted = cloudwatch_.admit(keep, std::chrono::steady_clock::now(), cloudwatch_.options().query_timeout);
        if (!admitted.wait)
            co_return failed(RecommendationState::SourceUnavailable, "cloudwatch",
                             std::string(type) + " query: " + admitted.why);
        co_await wait_in_slices(timer, *admitted.wait, [this] { return cloudwatch_.stopped(); });
        if (cloudwatch_.stopped())
            co_return failed(RecommendationState::SourceUnavailable, "cloudwatch", "cloudwatch clients shut down");
        kube::CloudWatchQuery query;
        query.expression = *text;
        query.resource = resource;
        query.cpu_unit = cw.cpu_unit;
        query.pod_prefix = q.pod_prefix;
        query.period = q.period;
        query.start = static_cast<long long>(q.usage.start);
        query.end = static_cast<long long>(q.usage.end);
        auto r = co_await keep->query(std::move(query), credentials.value());
        if (metrics_) metrics_->observe_query(type, std::chrono::duration<double>(r.duration).count());
        if (!r.result) {
            count_query_error(*s, type, "cloudwatch", r.result.error());
            const auto& code = r.result.error().code;
            auto message = r.result.error().message;
            const auto at = std::chrono::steady_clock::now();
            if (code == "rate_limited") {
                cloudwatch_.note_throttled(keep, message, at);
                message +=
                    "; not asked again for " + std::to_string(cloudwatch_.options().hold_after_throttle.count()) + " s";
            } else if (code == "unreachable" || code == "timeout") {
                cloudwatch_.note_unanswered(keep, message, at);
            }
            co_return failed(RecommendationState::SourceUnavailable, "cloudwatch",
                             std::string(type) + " query: " + message);
        }
        cloudwatch_.note_answered(keep);
        answers.push_back(std::move(r.result).value());
    }
    co_return from_usage(*s, "cloudwatch", answers[0], answers[1], now);
}

SourceResult WorkloadRecommender::from_usage(const WorkloadSnapshot& s, std::string source,
                                             const core::PromResponse& cpu, const core::PromResponse& memory,
                                             double now) {
    const auto& e = *s.effective();
    auto w = core::recommend_from_usage(e, s.baseline, cpu, memory, now);
    count_non_finite(s, w);
    std::string collecting = core::insufficient_data_message(w.max_data_points, e.metrics.minimum_data_points,
                                                             std::chrono::duration<double>(e.metrics.query_step).count());
    return outcome(std::move(source), std::move(w), std::move(collecting));
}

// The query metrics are the Go original's, shared by every metrics backend.
void WorkloadRecommender::count_query_error(const WorkloadSnapshot& s, const char* type, const std::string& source,
                                            const core::Error& error) {
    if (metrics_) metrics_->prometheus_query_errors.Add({{"namespace", s.key.ns}, {"query_type", type}}).Increment();
    spdlog::warn("{} query failed namespace={} kind={} name={} policy={} query_type={} error_code={} error=\"{}\"",
                 source, s.key.ns, s.key.kind, s.key.name, s.effective()->name, type, error.code, error.message);
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
