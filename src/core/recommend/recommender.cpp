#include "attune/core/recommend/recommender.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <limits>

#include "attune/core/model/pod_model.hpp"
#include "attune/core/model/readable_units.hpp"

namespace attune::core {

namespace {

constexpr double kInt64Max = static_cast<double>(std::numeric_limits<std::int64_t>::max());
constexpr double kBytesPerGiB = 1024.0 * 1024.0 * 1024.0;

// ceil into [0, INT64_MAX]; NaN reads as 0. Every figure of the chain goes
// through here, so no NaN or wrapped value can reach a Quantity.
std::int64_t saturating_ceil(double v) {
    if (std::isnan(v) || v <= 0) return 0;
    const double c = std::ceil(v);
    if (c >= kInt64Max) return std::numeric_limits<std::int64_t>::max();
    return static_cast<std::int64_t>(c);
}

std::int64_t saturating_floor(double v) {
    if (std::isnan(v) || v <= 0) return 0;
    const double f = std::floor(v);
    if (f >= kInt64Max) return std::numeric_limits<std::int64_t>::max();
    return static_cast<std::int64_t>(f);
}

// cpu: millicores, DecimalSI; memory: bytes, BinarySI.
Quantity cpu_milli(std::int64_t m) { return Quantity::from_milli(m, Quantity::Format::DecimalSI); }
Quantity memory_bytes(std::int64_t b) { return Quantity::from_value(b, Quantity::Format::BinarySI); }

// A usage figure (cores or bytes) as a quantity, rounded up.
Quantity from_figure(ResourceKind kind, double v) {
    return kind == ResourceKind::Cpu ? cpu_milli(saturating_ceil(v * 1000)) : memory_bytes(saturating_ceil(v));
}

// q x factor, rounded up to the resource's unit. A factor that is not a
// positive finite number leaves q alone (defence in depth against bad tuning).
Quantity scale(ResourceKind kind, const Quantity& q, double factor) {
    if (!std::isfinite(factor) || factor <= 0) return q;
    if (kind == ResourceKind::Cpu) return cpu_milli(saturating_ceil(static_cast<double>(q.milli_value()) * factor));
    return memory_bytes(saturating_ceil(static_cast<double>(q.value()) * factor));
}

double clamp_percent_cap(int v) { return std::clamp(static_cast<double>(v), 1.0, 100.0); }

std::string_view resource_label(ResourceKind kind) { return kind == ResourceKind::Cpu ? "CPU" : "memory"; }

// A quantity in the explanation's notes and the DecreaseSuppressed Event:
// as people read them (docs/cli.md#numbers-in-text-output).
std::string readable(ResourceKind kind, const Quantity& q) {
    return readable_quantity(kind == ResourceKind::Cpu ? kCpu : kMemory, q);
}

std::string format_number(const char* fmt, double v) {
    char buf[64];
    std::snprintf(buf, sizeof buf, fmt, v);
    return buf;
}

void append_note(std::string& adjustment, std::string_view note) {
    if (!adjustment.empty()) adjustment += "; ";
    adjustment += note;
}

// The profile of a single figure: every percentile is the figure, full
// confidence, no burst.
UsageProfile point_profile(double figure) {
    UsageProfile p;
    p.percentile_value = p.max = figure;
    p.data_points = 1;
    p.confidence = 1;
    return p;
}

double figure_of(ResourceKind kind, const Quantity& q) {
    return kind == ResourceKind::Cpu ? static_cast<double>(q.milli_value()) / 1000.0 : static_cast<double>(q.value());
}

const ResourceTuning& tuning_for(ResourceKind kind, const RecommenderSettings& s) {
    return kind == ResourceKind::Cpu ? s.cpu : s.memory;
}

// allowDecrease=false: a final below the current value is held at it, the
// explanation says so and the caller gets a DecreaseSuppressed to report.
void hold_decrease(ResourceKind kind, ResourceExplanation& e, const Quantity& current, const std::string& container,
                   std::vector<SuppressedDecrease>& suppressed, std::string adjustment) {
    SuppressedDecrease d;
    d.resource = kind;
    d.current = current;
    d.unclamped = e.final;
    d.message = std::string(resource_label(kind)) + " decrease blocked by allowDecrease=false for container " +
                container + " (current: " + readable(kind, current) + ")";
    suppressed.push_back(std::move(d));
    e.final = current;
    e.final_adjustment = std::move(adjustment);
}

ResourceExplanation decide(ResourceKind kind, const UsageProfile& profile, const Quantity& current,
                           const ResourceTuning& tuning, const std::string& container,
                           std::vector<SuppressedDecrease>& suppressed) {
    ResourceExplanation e = explain_resource(kind, profile, current, tuning);
    if (!tuning.allow_decrease && e.final < current) {
        std::string why = std::string(resource_label(kind)) + " decrease from " + readable(kind, current) + " to " +
                          readable(kind, e.final) + " blocked by allowDecrease=false";
        hold_decrease(kind, e, current, container, suppressed, std::move(why));
    }
    return e;
}

Quantity& request_of(ResourceValues& v, ResourceKind kind) {
    return kind == ResourceKind::Cpu ? v.cpu_request : v.memory_request;
}

void scale_limits(ContainerRecommendation& rec, const RecommenderSettings& s) {
    if (s.cpu.controlled_values == ControlledValues::RequestsAndLimits)
        rec.recommended.cpu_limit =
            scale_limit(ResourceKind::Cpu, rec.current.cpu_request, rec.current.cpu_limit, rec.recommended.cpu_request);
    if (s.memory.controlled_values == ControlledValues::RequestsAndLimits)
        rec.recommended.memory_limit = scale_limit(ResourceKind::Memory, rec.current.memory_request,
                                                   rec.current.memory_limit, rec.recommended.memory_request);
}

bool usable_ratio(const std::optional<double>& r) { return r && std::isfinite(*r) && *r > 0 && *r <= 1000; }

std::optional<double> newest(std::optional<double> a, const UsageProfile& p) {
    if (p.data_points == 0) return a;
    if (!a || p.newest_timestamp > *a) return p.newest_timestamp;
    return a;
}

// The samples capped as the settings say; no copy when already under the cap.
struct CappedSamples {
    std::vector<UsageSample> owned;
    std::span<const UsageSample> view;
};
CappedSamples cap(std::span<const UsageSample> s, std::size_t max) {
    CappedSamples c;
    if (max == 0 || s.size() <= max) {
        c.view = s;
    } else {
        c.owned = downsample(s, max);
        c.view = c.owned;
    }
    return c;
}

}  // namespace

ResourceValues resource_values_of(const ResourceRequirements& live) {
    ResourceValues v;
    if (const auto* q = find(live.requests, kCpu)) v.cpu_request = *q;
    if (const auto* q = find(live.limits, kCpu)) v.cpu_limit = *q;
    if (const auto* q = find(live.requests, kMemory)) v.memory_request = *q;
    if (const auto* q = find(live.limits, kMemory)) v.memory_limit = *q;
    return v;
}

ResourceExplanation explain_resource(ResourceKind kind, const UsageProfile& profile, const Quantity& current,
                                     const ResourceTuning& tuning) {
    ResourceExplanation e;
    // Usage of zero (or a non-finite figure) keeps the current value as the
    // raw figure, as the Go original does.
    const double v = profile.percentile_value;
    e.raw_percentile = (std::isfinite(v) && v > 0) ? from_figure(kind, v) : current;

    // Non-finite tuning or ratios count as no factor: nothing NaN or infinite
    // may reach the status (JSON has no such numbers).
    e.overhead = std::isfinite(tuning.overhead_percent) ? tuning.overhead_percent : 0;
    e.after_overhead = scale(kind, e.raw_percentile, 1 + e.overhead / 100);

    const double sensitivity = std::isfinite(tuning.burst_sensitivity) ? std::clamp(tuning.burst_sensitivity, 0.0, 1.0) : 0;
    e.burst_factor = 1;
    if (profile.burst_detected && profile.burst_magnitude > 1 && sensitivity > 0)
        e.burst_factor = 1 + std::log2(profile.burst_magnitude) * sensitivity;
    if (!std::isfinite(e.burst_factor)) e.burst_factor = 1;
    e.after_burst = scale(kind, e.after_overhead, e.burst_factor);

    e.confidence = std::isfinite(profile.confidence) ? std::clamp(profile.confidence, 0.0, 1.0) : 0;
    e.confidence_factor = 1 + (1 - e.confidence) * (1 - e.confidence);
    e.after_confidence = scale(kind, e.after_burst, e.confidence_factor);

    e.bound_min = tuning.min_allowed;
    e.bound_max = tuning.max_allowed;
    e.after_bounds = e.after_confidence;
    if (e.after_bounds < tuning.min_allowed) {
        e.after_bounds = tuning.min_allowed;
        e.bounds_applied = "min";
    } else if (!tuning.max_allowed.is_zero() && e.after_bounds > tuning.max_allowed) {  // zero: no upper bound
        e.after_bounds = tuning.max_allowed;
        e.bounds_applied = "max";
    }

    // The change filter works in millis of both values, as the Go original.
    const double increase_cap = clamp_percent_cap(tuning.max_increase_percent);
    const double decrease_cap = clamp_percent_cap(tuning.max_decrease_percent);
    e.max_change_percent = increase_cap;  // reported when there is no current value to filter against
    e.after_change_filter = e.after_bounds;
    const auto current_milli = static_cast<double>(current.milli_value());
    if (current_milli > 0) {
        const auto target_milli = static_cast<double>(e.after_bounds.milli_value());
        const bool increase = target_milli > current_milli;
        const double change = std::abs(target_milli - current_milli) / current_milli * 100;
        e.max_change_percent = increase ? increase_cap : decrease_cap;
        if (change < kMinChangePercent) {
            e.after_change_filter = current;
            e.change_filter_applied = "min_change_filtered";
        } else if (change > e.max_change_percent) {
            const double delta = current_milli * e.max_change_percent / 100;
            const double capped = increase ? current_milli + delta : current_milli - delta;
            e.after_change_filter =
                kind == ResourceKind::Cpu ? cpu_milli(saturating_ceil(capped)) : memory_bytes(saturating_ceil(capped / 1000));
            e.change_filter_applied = "max_change_capped";
        }
    }
    e.final = e.after_change_filter;
    return e;
}

Quantity scale_limit(ResourceKind kind, const Quantity& current_request, const Quantity& current_limit,
                     const Quantity& new_request) {
    if (current_request.sign() <= 0 || current_limit.sign() <= 0) return Quantity{};
    const double ratio =
        static_cast<double>(current_limit.milli_value()) / static_cast<double>(current_request.milli_value());
    if (!std::isfinite(ratio) || ratio <= 0) return new_request;
    const double product = static_cast<double>(new_request.milli_value()) * ratio;
    if (!(product < kInt64Max)) return current_limit;
    Quantity limit = kind == ResourceKind::Cpu ? cpu_milli(saturating_floor(product))
                                               : memory_bytes(saturating_floor(product / 1000));
    // A live limit >= request must stay so: rounding must never produce a
    // limit the apiserver would refuse.
    if (ratio >= 1 && limit < new_request) limit = new_request;
    return limit;
}

ContainerOutcome recommend_container(const ContainerUsage& usage, const RecommenderSettings& s, double now) {
    const CappedSamples cpu_samples = cap(usage.cpu, s.max_samples);
    const CappedSamples memory_samples = cap(usage.memory, s.max_samples);
    const UsageProfile cpu = build_usage_profile(cpu_samples.view, s.cpu.percentile);
    const UsageProfile memory = build_usage_profile(memory_samples.view, s.memory.percentile);

    if (cpu.data_points < s.minimum_data_points && memory.data_points < s.minimum_data_points) {
        InsufficientData d;
        d.name = usage.name;
        d.cpu_points = cpu.data_points;
        d.memory_points = memory.data_points;
        d.non_finite_dropped_cpu = cpu.non_finite_dropped;
        d.non_finite_dropped_memory = memory.non_finite_dropped;
        d.required = s.minimum_data_points;
        return d;
    }

    ContainerRecommendation rec;
    rec.name = usage.name;
    rec.current = resource_values_of(usage.current);
    rec.recommended = rec.current;
    rec.cpu_points = cpu.data_points;
    rec.memory_points = memory.data_points;
    rec.data_points = cpu.data_points + memory.data_points;
    rec.non_finite_dropped_cpu = cpu.non_finite_dropped;
    rec.non_finite_dropped_memory = memory.non_finite_dropped;
    rec.confidence = (cpu.confidence + memory.confidence) / 2;
    rec.last_updated = now;
    rec.last_data_time = newest(newest(std::nullopt, cpu), memory);

    if (cpu.data_points >= s.minimum_data_points) {
        rec.cpu = decide(ResourceKind::Cpu, cpu, rec.current.cpu_request, s.cpu, usage.name, rec.suppressed);
        rec.recommended.cpu_request = rec.cpu->final;
    }

    if (usable_ratio(s.memory.memory_from_cpu_ratio) && rec.cpu) {
        // Memory follows the cpu recommendation (GiB per core) through the
        // memory chain at full confidence: a derived figure carries no
        // statistical uncertainty.
        const double ratio = *s.memory.memory_from_cpu_ratio;
        const double cores = static_cast<double>(rec.recommended.cpu_request.milli_value()) / 1000.0;
        const auto derived = static_cast<double>(saturating_floor(cores * ratio * kBytesPerGiB));
        ResourceExplanation e = explain_resource(ResourceKind::Memory, point_profile(derived),
                                                 rec.current.memory_request, s.memory);
        if (!s.memory.allow_decrease && e.final < rec.current.memory_request) {
            hold_decrease(ResourceKind::Memory, e, rec.current.memory_request, usage.name, rec.suppressed,
                          "Memory decrease blocked by allowDecrease=false (derived from CPU via ratio " +
                              format_number("%.4g", ratio) + ")");
        }
        append_note(e.final_adjustment, "derived from CPU via memoryFromCpuRatio=" + format_number("%g", ratio));
        rec.memory = std::move(e);
        rec.recommended.memory_request = rec.memory->final;
    } else if (memory.data_points >= s.minimum_data_points) {
        rec.memory =
            decide(ResourceKind::Memory, memory, rec.current.memory_request, s.memory, usage.name, rec.suppressed);
        rec.recommended.memory_request = rec.memory->final;
    }

    scale_limits(rec, s);
    return rec;
}

ContainerRecommendation recommend_from_point(const PointEstimate& point, const RecommenderSettings& s, double now,
                                             const std::string& source) {
    ContainerRecommendation rec;
    rec.name = point.name;
    rec.current = resource_values_of(point.current);
    rec.recommended = rec.current;
    rec.confidence = 1;
    rec.last_updated = now;
    for (const ResourceKind kind : {ResourceKind::Cpu, ResourceKind::Memory}) {
        const auto& figure = kind == ResourceKind::Cpu ? point.cpu : point.memory;
        if (!figure) continue;
        ++(kind == ResourceKind::Cpu ? rec.cpu_points : rec.memory_points);
        ResourceExplanation e = decide(kind, point_profile(figure_of(kind, *figure)), request_of(rec.current, kind),
                                       tuning_for(kind, s), point.name, rec.suppressed);
        append_note(e.final_adjustment, source);
        request_of(rec.recommended, kind) = e.final;
        (kind == ResourceKind::Cpu ? rec.cpu : rec.memory) = std::move(e);
    }
    rec.data_points = rec.cpu_points + rec.memory_points;
    scale_limits(rec, s);
    return rec;
}

bool is_stale(std::optional<double> last_data_time, double now, double query_step_seconds) {
    if (!last_data_time) return true;
    const double threshold = std::max(2 * query_step_seconds, 600.0);
    return now - *last_data_time > threshold;
}

WorkloadRecommendation recommend_workload(std::span<const ContainerUsage> containers, const RecommenderSettings& s,
                                          double now, double query_step_seconds) {
    std::vector<ContainerOutcome> outcomes;
    outcomes.reserve(containers.size());
    for (const auto& c : containers) outcomes.push_back(recommend_container(c, s, now));
    return collect_workload(std::move(outcomes), now, query_step_seconds);
}

WorkloadRecommendation collect_workload(std::vector<ContainerOutcome> outcomes, double now,
                                        double query_step_seconds) {
    WorkloadRecommendation w;
    for (auto& outcome : outcomes) {
        if (auto* rec = std::get_if<ContainerRecommendation>(&outcome)) {
            w.max_data_points = std::max({w.max_data_points, rec->cpu_points, rec->memory_points});
            if (rec->last_data_time && (!w.last_data_time || *rec->last_data_time > *w.last_data_time))
                w.last_data_time = rec->last_data_time;
            w.containers.push_back(std::move(*rec));
        } else {
            auto& d = std::get<InsufficientData>(outcome);
            w.max_data_points = std::max(w.max_data_points, d.collected());
            w.insufficient.push_back(std::move(d));
        }
    }
    w.stale = !w.containers.empty() && is_stale(w.last_data_time, now, query_step_seconds);
    return w;
}

std::string insufficient_data_message(int collected, int required, double query_step_seconds) {
    const int remaining = std::max(0, required - collected);
    const auto minutes = static_cast<long long>(std::floor(remaining * std::max(query_step_seconds, 0.0) / 60));
    std::string eta = "under a minute";
    if (minutes >= 60) {
        eta = "about " + std::to_string(minutes / 60) + "h";
        if (minutes % 60) eta += std::to_string(minutes % 60) + "m";
    } else if (minutes > 0) {
        eta = "about " + std::to_string(minutes) + "m";
    }
    return "Collecting data: " + std::to_string(collected) + " of " + std::to_string(required) + " points, " + eta +
           " remaining";
}

}  // namespace attune::core
