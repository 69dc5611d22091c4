#include "attune/core/policy/lifecycle_spec.hpp"

#include <boost/json.hpp>
#include <algorithm>
#include <cmath>

#include "attune/core/util/duration.hpp"
#include "../util/json_decode.hpp"

namespace attune::core {
namespace {

using namespace detail;

inline constexpr std::size_t kMaxSteps = 10;
inline constexpr std::size_t kMaxTokenLength = 253;

// A Go duration string, rounded up to whole seconds so a pause is never
// shorter than written.
std::optional<Seconds> opt_duration(const boost::json::object& o, std::string_view key, const std::string& path) {
    const std::string at = path + "." + std::string(key);
    const auto* v = field(o, key);
    if (!v) return std::nullopt;
    if (!v->is_string()) fail(at, "expected a duration string such as \"5m\"");
    auto d = parse_duration(v->get_string());
    if (!d.ok()) fail(at, d.error().message);
    return std::chrono::ceil<Seconds>(d.value());
}

std::optional<double> opt_number(const boost::json::object& o, std::string_view key, const std::string& path) {
    const auto* v = field(o, key);
    if (!v) return std::nullopt;
    if (v->is_double()) return v->get_double();
    if (v->is_int64()) return static_cast<double>(v->get_int64());
    if (v->is_uint64()) return static_cast<double>(v->get_uint64());
    fail(path + "." + std::string(key), "expected a number");
}

std::optional<bool> opt_flag(const boost::json::object& o, std::string_view key, const std::string& path) {
    if (!field(o, key)) return std::nullopt;
    return opt_bool(o, key, path);
}

constexpr std::string_view kModeNames[] = {"AnyPod", "PercentageOfPods", "Average"};
constexpr std::string_view kUnavailableNames[] = {"Pass", "Fail"};
constexpr std::string_view kPersistenceNames[] = {"AdmissionOnNextPodTemplateChange", "TemplatePatch", "Disabled"};

CpuThrottlingSpec decode_cpu_throttling(const boost::json::object& o, const std::string& path) {
    CpuThrottlingSpec t;
    t.enabled = opt_flag(o, "enabled", path);
    t.threshold_fraction = opt_number(o, "thresholdFraction", path);
    t.window = opt_duration(o, "window", path);
    t.mode = opt_enum<ThrottlingMode>(o, "mode", path, kModeNames);
    if (auto p = opt_int(o, "percentageOfPodsThreshold", path))
        t.percentage_of_pods_threshold = static_cast<unsigned>(std::clamp<std::int64_t>(*p, 0, 1000));
    t.on_metrics_unavailable = opt_enum<OnMetricsUnavailable>(o, "onMetricsUnavailable", path, kUnavailableNames);
    return t;
}

LifecycleSpec decode(const boost::json::value& json, const std::string& path) {
    const auto& o = as_object(json, path);
    LifecycleSpec s;
    if (const auto* steps = opt_array(o, "steps", path)) {
        s.steps.emplace();
        for (std::size_t i = 0; i < steps->size(); ++i) {
            const std::string at = path + ".steps[" + std::to_string(i) + "]";
            const auto& so = as_object((*steps)[i], at);
            const auto percent = opt_int(so, "percent", at);
            if (!percent) fail(at + ".percent", "required");
            // Range checked by validate_lifecycle_spec; clamped so it fits.
            s.steps->push_back({static_cast<unsigned>(std::clamp<std::int64_t>(*percent, 0, 1000)),
                                opt_duration(so, "pause", at)});
        }
    }
    s.initial_delay = opt_duration(o, "initialDelay", path);
    if (auto m = opt_int(o, "maxConcurrentResizes", path))
        s.max_concurrent_resizes = static_cast<int>(std::clamp<std::int64_t>(*m, -1, 1000));
    if (const auto* analysis = opt_object(o, "analysis", path)) {
        if (const auto* cpu = opt_object(*analysis, "cpuThrottling", path + ".analysis"))
            s.cpu_throttling = decode_cpu_throttling(*cpu, path + ".analysis.cpuThrottling");
    }
    if (const auto* persistence = opt_object(o, "persistence", path))
        s.persistence_mode = opt_enum<PersistenceMode>(*persistence, "mode", path + ".persistence", kPersistenceNames);
    s.revalidation_token = opt_string(o, "revalidationToken", path);
    return s;
}

Error invalid(const std::string& at, const std::string& what) {
    return make_error("invalid_lifecycle", at + ": " + what);
}

}  // namespace

std::string_view throttling_mode_name(ThrottlingMode m) noexcept { return kModeNames[static_cast<int>(m)]; }
std::string_view persistence_mode_name(PersistenceMode m) noexcept { return kPersistenceNames[static_cast<int>(m)]; }

Result<LifecycleSpec> decode_lifecycle_spec(const boost::json::value& json, const std::string& path) {
    try {
        return validate_lifecycle_spec(decode(json, path), path);
    } catch (const DecodeFailure& e) {
        return make_error("invalid_lifecycle", e.what());
    }
}

Result<LifecycleSpec> validate_lifecycle_spec(LifecycleSpec spec, const std::string& path) {
    if (spec.steps) {
        const auto& steps = *spec.steps;
        if (steps.empty()) return invalid(path + ".steps", "must have at least one step");
        if (steps.size() > kMaxSteps) return invalid(path + ".steps", "must have at most 10 steps");
        for (std::size_t i = 0; i < steps.size(); ++i) {
            const std::string at = path + ".steps[" + std::to_string(i) + "]";
            if (steps[i].percent < 1 || steps[i].percent > 100) return invalid(at + ".percent", "must be between 1 and 100");
            if (i > 0 && steps[i].percent <= steps[i - 1].percent)
                return invalid(path + ".steps", "percents must be strictly increasing (step " + std::to_string(i) + " has " +
                                                    std::to_string(steps[i].percent) + " after " +
                                                    std::to_string(steps[i - 1].percent) + ")");
            if (steps[i].pause && *steps[i].pause < Seconds{0}) return invalid(at + ".pause", "must not be negative");
        }
        if (steps.back().percent != 100) return invalid(path + ".steps", "the last step must be percent 100");
    }
    if (spec.initial_delay && *spec.initial_delay < Seconds{0}) return invalid(path + ".initialDelay", "must not be negative");
    if (spec.max_concurrent_resizes && (*spec.max_concurrent_resizes < 1 || *spec.max_concurrent_resizes > 50))
        return invalid(path + ".maxConcurrentResizes", "must be between 1 and 50");
    if (spec.cpu_throttling) {
        const auto& t = *spec.cpu_throttling;
        const std::string at = path + ".analysis.cpuThrottling";
        if (t.threshold_fraction &&
            (!std::isfinite(*t.threshold_fraction) || *t.threshold_fraction <= 0 || *t.threshold_fraction > 1))
            return invalid(at + ".thresholdFraction", "must be a fraction greater than 0 and at most 1");
        if (t.window && (*t.window < Seconds{60} || *t.window > Seconds{3600}))
            return invalid(at + ".window", "must be between 1m and 1h");
        if (t.percentage_of_pods_threshold && (*t.percentage_of_pods_threshold < 1 || *t.percentage_of_pods_threshold > 100))
            return invalid(at + ".percentageOfPodsThreshold", "must be between 1 and 100");
    }
    if (spec.revalidation_token.size() > kMaxTokenLength)
        return invalid(path + ".revalidationToken", "must be at most 253 characters");
    return spec;
}

EffectiveLifecycle effective_lifecycle(const std::optional<LifecycleSpec>& spec,
                                       const std::optional<CanaryShorthand>& canary,
                                       std::optional<int> fallback_max_concurrent) {
    EffectiveLifecycle e;
    if (spec && spec->steps) {
        for (const auto& s : *spec->steps) e.steps.push_back({s.percent, s.pause.value_or(Seconds{0}), false});
    } else if (canary && canary->percentage > 0) {
        const Seconds observe = canary->observation_period > Seconds{0} ? canary->observation_period : kDefaultObservationPeriod;
        if (canary->percentage >= 100) {
            e.steps.push_back({100, observe, false});
        } else {
            e.steps.push_back({canary->percentage, observe, !canary->auto_promote});
            e.steps.push_back({100, Seconds{0}, false});
        }
    } else {
        e.steps = {{10, kDefaultObservationPeriod, false}, {50, kDefaultObservationPeriod, false},
                   {100, kDefaultObservationPeriod, false}};
    }
    if (spec && spec->max_concurrent_resizes) e.max_concurrent_resizes = *spec->max_concurrent_resizes;
    else if (fallback_max_concurrent && *fallback_max_concurrent > 0) e.max_concurrent_resizes = *fallback_max_concurrent;
    if (!spec) return e;
    e.initial_delay = spec->initial_delay.value_or(Seconds{0});
    if (spec->cpu_throttling) {
        const auto& t = *spec->cpu_throttling;
        auto& a = e.cpu_throttling;
        a.enabled = t.enabled.value_or(a.enabled);
        a.threshold_fraction = t.threshold_fraction.value_or(a.threshold_fraction);
        a.window = t.window.value_or(a.window);
        a.mode = t.mode.value_or(a.mode);
        a.percentage_of_pods_threshold = t.percentage_of_pods_threshold.value_or(a.percentage_of_pods_threshold);
        a.on_metrics_unavailable = t.on_metrics_unavailable.value_or(a.on_metrics_unavailable);
    }
    e.persistence = spec->persistence_mode.value_or(e.persistence);
    e.revalidation_token = spec->revalidation_token;
    return e;
}

}  // namespace attune::core
