#include "attune/core/recommend/workload_recommendation.hpp"

#include <algorithm>
#include <cmath>

#include "attune/core/recommend/cloudwatch_query.hpp"
#include "attune/core/recommend/datadog_query.hpp"
#include "attune/core/recommend/manual_source.hpp"
#include "attune/core/recommend/promql.hpp"
#include "attune/core/recommend/vpa_source.hpp"

namespace attune::core {

namespace {
std::chrono::seconds whole_seconds(Duration d) { return std::chrono::duration_cast<std::chrono::seconds>(d); }

double step_seconds(const EffectivePolicy& p) {
    return std::chrono::duration<double>(p.metrics.query_step).count();
}

void add_non_finite(ContainerOutcome& outcome, int cpu, int memory) {
    std::visit(
        [&](auto& o) {
            o.non_finite_dropped_cpu += cpu;
            o.non_finite_dropped_memory += memory;
        },
        outcome);
}
}  // namespace

RecommenderSettings recommender_settings(const EffectivePolicy& policy, std::string_view container) {
    RecommenderSettings s;
    s.cpu = policy.tuning_for(container, ResourceKind::Cpu);
    s.memory = policy.tuning_for(container, ResourceKind::Memory);
    s.minimum_data_points = policy.metrics.minimum_data_points;
    return s;
}

Result<UsageQueries> usage_queries(const EffectivePolicy& policy, std::string_view kind, std::string_view name,
                                   std::span<const std::string> live_pod_names, double now) {
    auto regex = workload_pod_regex(kind, name, live_pod_names);
    if (!regex) return regex.error();
    UsageQuerySpec spec;
    spec.namespace_ = policy.namespace_;
    spec.pod_regex = std::move(regex).value();
    spec.aggregation = policy.metrics.pod_aggregation;
    spec.rate_window = whole_seconds(policy.metrics.rate_window);
    spec.cpu_recording_metric = policy.metrics.cpu_recording_metric;
    spec.memory_recording_metric = policy.metrics.memory_recording_metric;
    auto cpu = usage_query(ResourceKind::Cpu, spec);
    if (!cpu) return cpu.error();
    auto memory = usage_query(ResourceKind::Memory, spec);
    if (!memory) return memory.error();
    UsageQueries q;
    q.cpu = std::move(cpu).value();
    q.memory = std::move(memory).value();
    q.end = now;
    q.start = now - std::chrono::duration<double>(policy.metrics.history_window).count();
    q.step = std::max(whole_seconds(policy.metrics.query_step), std::chrono::seconds(1));
    return q;
}

Result<UsageQueries> datadog_usage_queries(const EffectivePolicy& policy, std::string_view kind, std::string_view name,
                                           double now) {
    DatadogQuerySpec spec;
    spec.namespace_ = policy.namespace_;
    spec.pod_prefix = datadog_pod_prefix(kind, name);
    spec.rollup = whole_seconds(policy.metrics.rate_window);
    auto cpu = datadog_usage_query(ResourceKind::Cpu, spec);
    if (!cpu) return cpu.error();
    auto memory = datadog_usage_query(ResourceKind::Memory, spec);
    if (!memory) return memory.error();
    UsageQueries q;
    q.cpu = std::move(cpu).value();
    q.memory = std::move(memory).value();
    q.end = std::floor(now);
    q.start = q.end - std::floor(std::chrono::duration<double>(policy.metrics.history_window).count());
    q.step = std::max(whole_seconds(policy.metrics.query_step), std::chrono::seconds(1));
    return q;
}

Result<CloudWatchQueries> cloudwatch_usage_queries(const EffectivePolicy& policy, std::string_view kind,
                                                   std::string_view name, double now) {
    const auto* source = std::get_if<CloudWatchSource>(&policy.metrics.provider);
    CloudWatchQuerySpec spec;
    spec.cluster_name = source ? source->cluster_name : std::string();
    spec.namespace_ = policy.namespace_;
    spec.period = cloudwatch_period(whole_seconds(policy.metrics.rate_window));
    auto cpu = cloudwatch_search_expression(ResourceKind::Cpu, spec);
    if (!cpu) return cpu.error();
    auto memory = cloudwatch_search_expression(ResourceKind::Memory, spec);
    if (!memory) return memory.error();
    CloudWatchQueries q;
    q.usage.cpu = std::move(cpu).value();
    q.usage.memory = std::move(memory).value();
    q.usage.end = std::floor(now);
    q.usage.start = q.usage.end - std::floor(std::chrono::duration<double>(policy.metrics.history_window).count());
    q.usage.step = std::max(whole_seconds(policy.metrics.query_step), std::chrono::seconds(1));
    q.period = spec.period;
    // The same prefix as Datadog's pod_name filter: the Go original's literal prefix of the pod regex.
    q.pod_prefix = datadog_pod_prefix(kind, name);
    return q;
}

WorkloadRecommendation recommend_from_usage(const EffectivePolicy& policy, const FrozenBaseline& baseline,
                                            const PromResponse& cpu, const PromResponse& memory, double now) {
    const auto cpu_by = group_by_label(cpu, "container");
    const auto memory_by = group_by_label(memory, "container");
    static const GroupedSamples kNone;
    auto samples_of = [](const auto& by, const std::string& name) -> const GroupedSamples& {
        auto it = by.find(name);
        return it == by.end() ? kNone : it->second;
    };
    std::vector<ContainerOutcome> outcomes;
    for (const auto& [name, current] : baseline.containers) {
        const auto& c = samples_of(cpu_by, name);
        const auto& m = samples_of(memory_by, name);
        ContainerUsage usage;
        usage.name = name;
        usage.cpu = c.samples;
        usage.memory = m.samples;
        usage.current = current;
        auto outcome = recommend_container(usage, recommender_settings(policy, name), now);
        add_non_finite(outcome, c.non_finite_dropped, m.non_finite_dropped);
        outcomes.push_back(std::move(outcome));
    }
    return collect_workload(std::move(outcomes), now, step_seconds(policy));
}

Result<WorkloadRecommendation> recommend_from_vpa(const EffectivePolicy& policy, VpaSelection selection,
                                                  const FrozenBaseline& baseline, const boost::json::value& vpa,
                                                  double now) {
    auto recs = decode_vpa_recommendations(vpa);
    if (!recs) return recs.error();
    std::vector<LiveContainer> live;
    for (const auto& [name, rr] : baseline.containers) live.push_back({name, rr});
    WorkloadRecommendation w;
    for (const auto& point : vpa_point_estimates(recs.value(), selection, live))
        w.containers.push_back(recommend_from_point(point, recommender_settings(policy, point.name), now, "source: VPA"));
    w.max_data_points = w.containers.empty() ? 0 : 1;
    return w;
}

Result<WorkloadRecommendation> recommend_from_manual(const EffectivePolicy& policy, const ContainerResourceMap& overlay,
                                                     const FrozenBaseline& baseline, double now) {
    ContainerResourceMap sized = overlay;
    std::erase_if(sized, [&](const auto& e) { return policy.excludes(e.first); });
    auto recs = manual_recommendations(baseline, sized, now);
    if (!recs) return recs.error();
    WorkloadRecommendation w;
    w.containers = std::move(recs).value();
    return w;
}

bool partly_collecting(const WorkloadRecommendation& w) {
    if (!w.insufficient.empty()) return true;
    return std::any_of(w.containers.begin(), w.containers.end(),
                       [](const ContainerRecommendation& c) { return !c.cpu || !c.memory; });
}

std::optional<std::chrono::seconds> refresh_delay(RefreshReason why, Duration query_step) {
    using std::chrono::seconds;
    const auto step = std::max(whole_seconds(query_step), seconds(1));
    switch (why) {
        case RefreshReason::Collecting: return step;
        case RefreshReason::Recommended: return std::max(step, seconds(60));
        case RefreshReason::SourceFailed: return std::min(step, seconds(60));
        case RefreshReason::ConfigFailed: return seconds(60);
        case RefreshReason::None: break;
    }
    return std::nullopt;
}

RefreshReason refresh_after_recommendation(std::string_view source, bool partly_collecting) {
    if (source == "manual" || source == "vpa") return RefreshReason::None;
    return partly_collecting ? RefreshReason::Collecting : RefreshReason::Recommended;
}

}  // namespace attune::core
