// The defaults merge (docs/api.md#the-defaults-merge): built-in < AttuneDefaults <
// AttuneNamespaceDefaults < AttunePolicy, then the built-ins, the runtime
// profile and the operator's clamps.
#include <algorithm>
#include <cmath>

#include "attune/core/policy/policy.hpp"

namespace attune::core {
namespace {

using namespace std::chrono_literals;

// Per-field fill: a lower layer only fills what the higher one left unset.
class Filler {
public:
    explicit Filler(std::vector<std::string>* inherited) : inherited_(inherited) {}

    template <class T>
    void operator()(std::optional<T>& dst, const std::optional<T>& src, std::string_view path) {
        if (dst || !src) return;
        dst = src;
        note(path);
    }
    template <class T>
    void operator()(std::vector<T>& dst, const std::vector<T>& src, std::string_view path) {
        if (!dst.empty() || src.empty()) return;
        dst = src;
        note(path);
    }

private:
    void note(std::string_view path) {
        if (inherited_ && std::find(inherited_->begin(), inherited_->end(), path) == inherited_->end())
            inherited_->emplace_back(path);
    }
    std::vector<std::string>* inherited_;
};

void fill_resource(ResourceConfigSpec& d, const ResourceConfigSpec& s, const std::string& p, Filler& f) {
    f(d.percentile, s.percentile, p + ".percentile");
    f(d.overhead_percent, s.overhead_percent, p + ".overhead");
    f(d.min_allowed, s.min_allowed, p + ".minAllowed");
    f(d.max_allowed, s.max_allowed, p + ".maxAllowed");
    f(d.controlled_values, s.controlled_values, p + ".controlledValues");
    f(d.burst_sensitivity, s.burst_sensitivity, p + ".burstSensitivity");
    f(d.allow_decrease, s.allow_decrease, p + ".allowDecrease");
    f(d.memory_from_cpu_ratio, s.memory_from_cpu_ratio, p + ".memoryFromCpuRatio");
    f(d.startup_boost, s.startup_boost, p + ".startupBoost");
    f(d.max_change_percent, s.max_change_percent, p + ".maxChangePercent");
    f(d.max_increase_percent, s.max_increase_percent, p + ".maxIncreasePercent");
    f(d.max_decrease_percent, s.max_decrease_percent, p + ".maxDecreasePercent");
    f(d.decrease_usage_margin_percent, s.decrease_usage_margin_percent, p + ".decreaseUsageMarginPercent");
    f(d.limit_multiplier, s.limit_multiplier, p + ".limitMultiplier");
    f(d.oom_bump, s.oom_bump, p + ".oomBump");
    f(d.surge, s.surge, p + ".surge");
}

// Scalars only: the source blocks never merge (see prometheus_block).
void fill_metrics(MetricsSourceSpec& d, const MetricsSourceSpec& s, Filler& f) {
    f(d.history_window, s.history_window, "metricsSource.historyWindow");
    f(d.minimum_data_points, s.minimum_data_points, "metricsSource.minimumDataPoints");
    f(d.query_step, s.query_step, "metricsSource.queryStep");
    f(d.rate_window, s.rate_window, "metricsSource.rateWindow");
    f(d.pod_aggregation, s.pod_aggregation, "metricsSource.podAggregation");
    f(d.cpu_recording_metric, s.cpu_recording_metric, "metricsSource.cpuRecordingMetric");
    f(d.memory_recording_metric, s.memory_recording_metric, "metricsSource.memoryRecordingMetric");
}

void fill_strategy(UpdateStrategySpec& d, const UpdateStrategySpec& s, Filler& f) {
    const std::string p = "updateStrategy.";
    f(d.type, s.type, p + "type");
    f(d.canary, s.canary, p + "canary");
    f(d.cooldown, s.cooldown, p + "cooldown");
    f(d.initial_sizing, s.initial_sizing, p + "initialSizing");
    f(d.auto_revert, s.auto_revert, p + "autoRevert");
    f(d.resize_method, s.resize_method, p + "resizeMethod");
    f(d.schedule, s.schedule, p + "schedule");
    f(d.max_concurrent_resizes, s.max_concurrent_resizes, p + "maxConcurrentResizes");
    f(d.max_status_recommendations, s.max_status_recommendations, p + "maxStatusRecommendations");
    f(d.include_explanations_in_status, s.include_explanations_in_status, p + "includeExplanationsInStatus");
    f(d.max_total_cpu_increase, s.max_total_cpu_increase, p + "maxTotalCpuIncrease");
    f(d.max_total_memory_increase, s.max_total_memory_increase, p + "maxTotalMemoryIncrease");
    f(d.safety_observation_period, s.safety_observation_period, p + "safetyObservationPeriod");
    f(d.export_, s.export_, p + "export");
    f(d.slo_guardrails, s.slo_guardrails, p + "sloGuardrails");
    f(d.template_persistence, s.template_persistence, p + "templatePersistence");
    f(d.max_cpu_increase_per_minute, s.max_cpu_increase_per_minute, p + "maxCpuIncreasePerMinute");
    f(d.max_memory_increase_per_minute, s.max_memory_increase_per_minute, p + "maxMemoryIncreasePerMinute");
    f(d.hpa_target_bounds, s.hpa_target_bounds, p + "hpaTargetBounds");
}

void fill_defaults(AttunePolicySpec& d, const DefaultsSpec& s, Filler& f) {
    fill_resource(d.cpu, s.cpu, "cpu", f);
    fill_resource(d.memory, s.memory, "memory", f);
    fill_metrics(d.metrics_source, s.metrics_source, f);
    fill_strategy(d.update_strategy, s.update_strategy, f);
    f(d.exclude_known_sidecars, s.exclude_known_sidecars, "excludeKnownSidecars");
}

// Only fields left unset (Go applyRuntimeProfileDefaults).
void apply_runtime_profile(std::optional<RuntimeProfile> profile, ResourceConfigSpec& memory) {
    if (!profile) return;
    switch (*profile) {
        case RuntimeProfile::Java:
            if (!memory.allow_decrease) memory.allow_decrease = false;
            if (!memory.overhead_percent) memory.overhead_percent = 40;
            break;
        case RuntimeProfile::Python:
        case RuntimeProfile::Nodejs:
            if (!memory.allow_decrease) memory.allow_decrease = false;
            break;
        case RuntimeProfile::Generic:
        case RuntimeProfile::Golang:
            break;
    }
}

ResourceTuning finish_tuning(const ResourceConfigSpec& s, ResourceKind kind) {
    ResourceTuning t = builtin_tuning(kind);
    if (s.percentile) t.percentile = *s.percentile;
    if (s.overhead_percent) t.overhead_percent = *s.overhead_percent;
    if (s.min_allowed) t.min_allowed = *s.min_allowed;
    if (s.max_allowed) t.max_allowed = *s.max_allowed;
    if (s.controlled_values) t.controlled_values = *s.controlled_values;
    if (s.burst_sensitivity) t.burst_sensitivity = *s.burst_sensitivity;
    if (s.allow_decrease) t.allow_decrease = *s.allow_decrease;
    const int change = s.max_change_percent.value_or(t.max_increase_percent);
    t.max_increase_percent = s.max_increase_percent.value_or(change);
    t.max_decrease_percent = s.max_decrease_percent.value_or(change);
    if (s.decrease_usage_margin_percent) t.decrease_usage_margin_percent = *s.decrease_usage_margin_percent;
    t.limit_multiplier = s.limit_multiplier;
    if (s.surge) {
        Surge surge;
        if (s.surge->trigger_ratio) surge.trigger_ratio = *s.surge->trigger_ratio;
        if (s.surge->percentile) surge.percentile = *s.surge->percentile;
        if (s.surge->window) surge.window = *s.surge->window;
        t.surge = surge;
    }
    // Go reads memoryFromCpuRatio and oomBump on memory, startupBoost on cpu only.
    if (kind == ResourceKind::Memory) {
        t.memory_from_cpu_ratio = s.memory_from_cpu_ratio;
        if (s.oom_bump) {
            OomBump bump;
            bump.min_bump = Quantity::from_value(100ll << 20, Quantity::Format::BinarySI);
            if (s.oom_bump->ratio) bump.ratio = *s.oom_bump->ratio;
            if (s.oom_bump->min_bump) bump.min_bump = *s.oom_bump->min_bump;
            if (s.oom_bump->max_bumps) bump.max_bumps = *s.oom_bump->max_bumps;
            if (s.oom_bump->hold) bump.hold = *s.oom_bump->hold;
            t.oom_bump = bump;
        }
    } else if (s.startup_boost) {
        StartupBoost boost;
        boost.multiplier = s.startup_boost->multiplier;
        boost.duration = std::chrono::ceil<std::chrono::seconds>(s.startup_boost->duration);
        boost.exclude_from_history = s.startup_boost->exclude_from_history;
        t.startup_boost = boost;
    }
    return t;
}

// Raises or lowers `value` into [lo, hi] (lo <= hi) and says so in `clamped`.
void clamp_duration(Duration& value, Duration lo, Duration hi, std::string_view field,
                    std::vector<std::string>& clamped) {
    const Duration before = value;
    value = std::clamp(value, lo, hi);
    if (value != before)
        clamped.push_back(std::string(field) + " " + format_duration(before) + (value > before ? " raised" : " lowered") +
                          " to " + format_duration(value));
}

// The prometheus block the defaults offer: with both scopes present only the
// namespace object's counts, even when it sets none (Go CombineDefaultsLayers
// never copies the cluster's block).
const AttuneDefaults* defaults_prometheus(const AttuneDefaults* cluster, const AttuneDefaults* ns) {
    const AttuneDefaults* layer = ns ? ns : cluster;
    if (!layer || !layer->spec.metrics_source.prometheus) return nullptr;
    return layer->spec.metrics_source.prometheus->address.empty() ? nullptr : layer;
}

PrometheusSource to_source(const PrometheusSpec& p, std::string origin) {
    PrometheusSource s;
    s.origin = std::move(origin);
    s.address = p.address;
    s.headers = p.headers;
    s.query_parameters = p.query_parameters;
    s.bearer_token_secret = p.bearer_token_secret;
    if (p.tls) {
        s.insecure_skip_verify = p.tls->insecure_skip_verify;
        s.ca = p.tls->ca;
        s.ca_secret = p.tls->ca_secret;
    }
    return s;
}

std::optional<PrometheusSource> defaults_prometheus_source(const AttuneDefaults* cluster, const AttuneDefaults* ns) {
    const auto* d = defaults_prometheus(cluster, ns);
    if (!d) return std::nullopt;
    const std::string kind = d == ns ? "AttuneNamespaceDefaults " : "AttuneDefaults ";
    return to_source(*d->spec.metrics_source.prometheus, kind + d->meta.name + ": spec.metricsSource.prometheus");
}

MetricsProvider provider(const AttunePolicy& policy, const AttuneDefaults* cluster, const AttuneDefaults* ns) {
    const auto& m = policy.spec.metrics_source;
    // vpa, manual, datadog and cloudwatch come from the policy only.
    if (m.vpa) {
        VpaSource v;
        v.name = m.vpa->name;
        v.namespace_ = m.vpa->namespace_.empty() ? policy.meta.namespace_ : m.vpa->namespace_;
        v.selection = m.vpa->selection.value_or(VpaSelection::Target);
        return v;
    }
    if (m.manual) return ManualSource{m.manual->containers};
    if (m.datadog) {
        DatadogSource d;
        if (!m.datadog->site.empty()) d.site = m.datadog->site;
        d.api_key_secret_ref = m.datadog->api_key_secret_ref;
        return d;
    }
    if (m.cloudwatch) {
        CloudWatchSource c;
        c.region = m.cloudwatch->region;
        c.cluster_name = m.cloudwatch->cluster_name;
        c.role_arn = m.cloudwatch->role_arn;
        const auto& unit = m.cloudwatch->cpu_unit;
        if (unit == "Cores") c.cpu_unit = CloudWatchCpuUnit::Cores;
        else if (unit == "Nanocores") c.cpu_unit = CloudWatchCpuUnit::Nanocores;
        else if (!unit.empty() && unit != "Millicores") c.invalid_cpu_unit = unit;
        return c;
    }
    if (m.prometheus && !m.prometheus->address.empty())
        return to_source(*m.prometheus, "spec.metricsSource.prometheus");
    if (auto d = defaults_prometheus_source(cluster, ns)) return std::move(*d);
    return NoMetricsSource{};
}

EffectiveCanary finish_canary(const CanarySpec& c) {
    EffectiveCanary e;
    e.percentage = c.percentage;
    if (c.observation_period > Duration{0}) e.observation_period = c.observation_period;
    e.auto_promote = c.auto_promote;
    return e;
}

EffectiveExport finish_export(const std::optional<ExportSpec>& spec) {
    EffectiveExport e;
    if (!spec) return e;
    e.config_map = spec->config_map;
    if (spec->pull_request) {
        const auto& s = *spec->pull_request;
        EffectivePullRequest p;
        p.enabled = s.enabled.value_or(false);
        if (!s.provider.empty()) p.provider = s.provider;
        p.token_secret_ref = s.token_secret_ref;
        p.repository = s.repository;
        if (!s.base_branch.empty()) p.base_branch = s.base_branch;
        p.api_url = s.api_url;
        if (s.cooldown) p.cooldown = *s.cooldown;
        if (s.min_change_percent) p.min_change_percent = *s.min_change_percent;
        p.labels = s.labels;
        p.dry_run = s.dry_run.value_or(false);
        p.allow_private_endpoints = s.allow_private_endpoints.value_or(false);
        e.pull_request = std::move(p);
    }
    return e;
}

EffectiveUpdateStrategy finish_strategy(const UpdateStrategySpec& s, std::vector<std::string>& clamped) {
    EffectiveUpdateStrategy u;
    if (s.type) u.type = *s.type;
    if (s.cooldown) {
        u.cooldown = *s.cooldown;
        clamp_duration(u.cooldown, kMinCooldown, Duration::max(), "updateStrategy.cooldown", clamped);
    }
    if (s.initial_sizing) u.initial_sizing = *s.initial_sizing;
    if (s.auto_revert) u.auto_revert = *s.auto_revert;
    if (s.resize_method) u.resize_method = *s.resize_method;
    if (s.max_concurrent_resizes) u.max_concurrent_resizes = *s.max_concurrent_resizes;
    if (s.max_status_recommendations) u.max_status_recommendations = *s.max_status_recommendations;
    if (s.include_explanations_in_status) u.include_explanations_in_status = *s.include_explanations_in_status;
    u.max_total_cpu_increase = s.max_total_cpu_increase;
    u.max_total_memory_increase = s.max_total_memory_increase;
    u.max_cpu_increase_per_minute = s.max_cpu_increase_per_minute;
    u.max_memory_increase_per_minute = s.max_memory_increase_per_minute;
    if (s.canary) u.canary = finish_canary(*s.canary);
    if (s.safety_observation_period && *s.safety_observation_period > Duration{0})
        u.safety_observation_period = *s.safety_observation_period;
    else if (s.canary && s.canary->observation_period > Duration{0})
        u.safety_observation_period = s.canary->observation_period;
    if (s.schedule) {
        EffectiveSchedule sched;
        sched.windows = s.schedule->windows;
        sched.days_of_week = s.schedule->days_of_week;
        if (!s.schedule->timezone.empty()) sched.timezone = s.schedule->timezone;
        u.schedule = std::move(sched);
    }
    for (const auto& g : s.slo_guardrails) {
        EffectiveSloGuardrail e;
        e.name = g.name;
        e.query = g.query;
        e.threshold = g.threshold;
        e.comparison = g.comparison.value_or(SloComparison::Above);
        if (g.evaluation_window && *g.evaluation_window > Duration{0}) e.evaluation_window = *g.evaluation_window;
        u.slo_guardrails.push_back(std::move(e));
    }
    if (s.template_persistence) {
        u.template_persistence.enabled = s.template_persistence->enabled.value_or(false);
        u.template_persistence.when =
            s.template_persistence->when.value_or(TemplatePersistenceWhen::AfterSuccessfulResize);
    }
    u.export_ = finish_export(s.export_);
    u.hpa_target_bounds = s.hpa_target_bounds;
    return u;
}

EffectiveMetricsSource finish_metrics(const MetricsSourceSpec& s, std::vector<std::string>& clamped) {
    EffectiveMetricsSource m;
    if (s.history_window) {
        m.history_window = *s.history_window;
        clamp_duration(m.history_window, kMinHistoryWindow, kMaxHistoryWindow, "metricsSource.historyWindow", clamped);
    }
    if (s.query_step) {
        m.query_step = *s.query_step;
        clamp_duration(m.query_step, kMinQueryStep, kMaxQueryStep, "metricsSource.queryStep", clamped);
    }
    m.rate_window = m.query_step;
    if (s.rate_window) {
        m.rate_window = *s.rate_window;
        // A rate window longer than the history has no sample to rate over.
        clamp_duration(m.rate_window, Duration::min(), m.history_window, "metricsSource.rateWindow", clamped);
    }
    if (s.minimum_data_points) m.minimum_data_points = std::max(1, *s.minimum_data_points);
    if (s.pod_aggregation) m.pod_aggregation = *s.pod_aggregation;
    m.cpu_recording_metric = s.cpu_recording_metric.value_or("");
    m.memory_recording_metric = s.memory_recording_metric.value_or("");
    return m;
}

std::vector<ContainerTuning> container_tunings(const AttunePolicySpec& merged) {
    const ContainerPolicySpec* star = nullptr;
    for (const auto& c : merged.container_policies)
        if (c.container_name == "*" && !star) star = &c;
    Filler quiet(nullptr);
    auto finish = [&](ResourceConfigSpec cpu, ResourceConfigSpec memory, const std::string& name) {
        if (star && name != "*") {
            fill_resource(cpu, star->cpu, "", quiet);
            fill_resource(memory, star->memory, "", quiet);
        }
        fill_resource(cpu, merged.cpu, "", quiet);
        fill_resource(memory, merged.memory, "", quiet);
        apply_runtime_profile(merged.runtime_profile, memory);
        return ContainerTuning{name, finish_tuning(cpu, ResourceKind::Cpu), finish_tuning(memory, ResourceKind::Memory)};
    };
    std::vector<ContainerTuning> out;
    for (const auto& c : merged.container_policies) {
        if (c.container_name == "*") continue;
        if (std::any_of(out.begin(), out.end(), [&](const ContainerTuning& t) { return t.container_name == c.container_name; }))
            continue;  // the first entry for a name wins
        out.push_back(finish(c.cpu, c.memory, c.container_name));
    }
    std::sort(out.begin(), out.end(),
              [](const ContainerTuning& a, const ContainerTuning& b) { return a.container_name < b.container_name; });
    if (star) out.push_back(finish(star->cpu, star->memory, "*"));
    return out;
}

}  // namespace

const AttuneDefaults* pick_defaults(std::span<const AttuneDefaults> at_one_scope) {
    const AttuneDefaults* best = nullptr;
    for (const auto& d : at_one_scope)
        if (!best || d.meta.name < best->meta.name) best = &d;
    return best;
}

EffectivePolicy merge_effective_policy(const AttunePolicy& policy, std::span<const AttuneDefaults> cluster_objects,
                                       std::span<const AttuneDefaults> namespace_objects) {
    const AttuneDefaults* cluster = pick_defaults(cluster_objects);
    const AttuneDefaults* ns = pick_defaults(namespace_objects);

    EffectivePolicy e;
    e.namespace_ = policy.meta.namespace_;
    e.name = policy.meta.name;
    e.cluster_defaults = cluster ? cluster->meta.name : "";
    e.namespace_defaults = ns ? ns->meta.name : "";

    // Policy first, then the namespace object, then the cluster object: the
    // first layer that sets a field wins.
    AttunePolicySpec merged = policy.spec;
    Filler fill(&e.inherited);
    if (ns) fill_defaults(merged, ns->spec, fill);
    if (cluster) fill_defaults(merged, cluster->spec, fill);
    apply_runtime_profile(merged.runtime_profile, merged.memory);

    e.target_ref = merged.target_ref;
    e.weight = merged.weight.value_or(100);
    e.paused = merged.paused.value_or(false);
    e.runtime_profile = merged.runtime_profile;
    e.cpu = finish_tuning(merged.cpu, ResourceKind::Cpu);
    e.memory = finish_tuning(merged.memory, ResourceKind::Memory);
    e.metrics = finish_metrics(merged.metrics_source, e.clamped);
    e.metrics.provider = provider(policy, cluster, ns);
    if (const auto* p = std::get_if<PrometheusSource>(&e.metrics.provider)) e.metrics.prometheus = *p;
    else e.metrics.prometheus = defaults_prometheus_source(cluster, ns);
    e.update_strategy = finish_strategy(merged.update_strategy, e.clamped);
    e.exclude_known_sidecars = merged.exclude_known_sidecars.value_or(true);
    e.excluded_containers = merged.excluded_containers;
    if (e.exclude_known_sidecars)
        for (auto s : kKnownSidecars) e.excluded_containers.emplace_back(s);
    std::sort(e.excluded_containers.begin(), e.excluded_containers.end());
    e.excluded_containers.erase(std::unique(e.excluded_containers.begin(), e.excluded_containers.end()),
                                e.excluded_containers.end());

    // costPricing: the namespace block whole, else the cluster block, else built-ins.
    const CostPricingSpec* cost = ns && ns->spec.cost_pricing ? &*ns->spec.cost_pricing
                                  : cluster && cluster->spec.cost_pricing ? &*cluster->spec.cost_pricing
                                                                          : nullptr;
    if (cost) {
        if (cost->cpu_per_core_hour) e.cost_pricing.cpu_per_core_hour = *cost->cpu_per_core_hour;
        if (cost->memory_per_gib_hour) e.cost_pricing.memory_per_gib_hour = *cost->memory_per_gib_hour;
    }
    e.container_tunings = container_tunings(merged);
    // spec.lifecycle is the policy's own; the canary shorthand and
    // maxConcurrentResizes may come from a defaults object.
    std::optional<CanaryShorthand> canary;
    if (const auto& c = merged.update_strategy.canary)
        canary = CanaryShorthand{static_cast<unsigned>(std::clamp(c->percentage, 1, 100)),
                                 std::chrono::duration_cast<Seconds>(c->observation_period), c->auto_promote};
    e.lifecycle = effective_lifecycle(policy.spec.lifecycle, canary, merged.update_strategy.max_concurrent_resizes);
    return e;
}

}  // namespace attune::core
