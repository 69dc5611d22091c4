#pragma once
// Asks a workload's source for its recommendation: the two Prometheus range
// queries (one per resource, batched over the workload's containers), the
// two Datadog queries and the two CloudWatch GetMetricData searches (the
// same, decoded to the same series), the VPA object
// the snapshot holds, or the manual overlay. The only I/O of the
// recommendation path; every figure is the core's
// (core/recommend/workload_recommendation.hpp). Expected failures come back as a state
// and a message for the policy's Ready condition, never as an exception.
#include <attune/controller/cloudwatch_clients.hpp>
#include <attune/controller/datadog_clients.hpp>
#include <attune/controller/metrics.hpp>
#include <attune/controller/prometheus_clients.hpp>
#include <attune/controller/secret_reader.hpp>
#include <attune/controller/status_aggregation.hpp>
#include <attune/controller/workload_snapshot.hpp>
#include <attune/core/recommend/recommender.hpp>

#include <boost/asio/awaitable.hpp>

#include <chrono>
#include <functional>
#include <memory>
#include <optional>
#include <string>

namespace attune::controller {

struct SourceResult {
    // recommended | collecting | SourceUnavailable | InvalidConfig
    RecommendationState state = RecommendationState::Recommended;
    std::string message;
    std::string source;                           // prometheus | datadog | cloudwatch | vpa | manual
    core::WorkloadRecommendation recommendation;  // when recommended (or collecting, with no containers)
};

class WorkloadRecommender {
public:
    using WallClock = std::function<std::chrono::system_clock::time_point()>;
    // `secrets` may be null when Secret reads are off (validation refuses
    // such a policy before it gets here).
    WorkloadRecommender(PrometheusClients& clients, DatadogClients& datadog, CloudWatchClients& cloudwatch,
                        SecretReader* secrets, ControllerMetrics* metrics, WallClock now);

    // Only for a snapshot whose next_step() is QuerySource.
    boost::asio::awaitable<SourceResult> recommend(std::shared_ptr<const WorkloadSnapshot> s);

    // The Prometheus client for the policy's merged source, its Secrets read
    // where it names them. Error "invalid_config" (Secret reads off, a Secret
    // that cannot be read, a client that cannot be made) or "no_prometheus"
    // (the source is not a Prometheus).
    boost::asio::awaitable<core::Result<std::shared_ptr<kube::PrometheusClient>>> client_for(
        std::shared_ptr<const core::EffectivePolicy> policy);
    // One instant query against it (the safety monitor's throttling ratio
    // and sloGuardrails): the first sample's value; nullopt when there is no
    // Prometheus, the query failed or returned nothing. A failed query passes
    // (docs/safety.md), so no error is returned: it is logged and counted.
    boost::asio::awaitable<std::optional<double>> instant(std::shared_ptr<const core::EffectivePolicy> policy,
                                                          std::string query);

    PrometheusClients& clients() noexcept { return clients_; }

private:
    boost::asio::awaitable<SourceResult> from_prometheus(std::shared_ptr<const WorkloadSnapshot> s);
    // The Datadog source: its keys from the policy's Secret, each query
    // through the key's request budget (DatadogClients::admit).
    boost::asio::awaitable<SourceResult> from_datadog(std::shared_ptr<const WorkloadSnapshot> s);
    // The CloudWatch source: its credentials (the environment or STS), each
    // query through the region's request budget (CloudWatchClients::admit).
    boost::asio::awaitable<SourceResult> from_cloudwatch(std::shared_ptr<const WorkloadSnapshot> s);
    // Both answers through the core's estimator, as a recommendation or "collecting".
    SourceResult from_usage(const WorkloadSnapshot& s, std::string source, const core::PromResponse& cpu,
                            const core::PromResponse& memory, double now);
    void count_query_error(const WorkloadSnapshot& s, const char* type, const std::string& source,
                           const core::Error& error);
    void count_non_finite(const WorkloadSnapshot& s, const core::WorkloadRecommendation& w);

    PrometheusClients& clients_;
    DatadogClients& datadog_;
    CloudWatchClients& cloudwatch_;
    SecretReader* secrets_;
    ControllerMetrics* metrics_;
    WallClock now_;
};

}  // namespace attune::controller
