// Decoders for AttunePolicy, AttuneDefaults and AttuneNamespaceDefaults.
// Every error names the JSON path at fault; nothing is asserted.
#include <boost/json.hpp>

#include <charconv>
#include <cmath>
#include <limits>

#include "attune/core/policy/policy.hpp"
#include "../util/json_decode.hpp"

namespace attune::core {
namespace {

namespace json = boost::json;
using namespace detail;

std::string join(const std::string& path, std::string_view key) {
    return path.empty() ? std::string(key) : path + "." + std::string(key);
}

// ------------------------------------------------------------ scalars ---

// A non-pointer Go string: "" (or absent) is unset.
std::optional<std::string> opt_nonempty(const json::object& o, std::string_view key, const std::string& path) {
    auto s = opt_string(o, key, path);
    if (s.empty()) return std::nullopt;
    return s;
}

std::string required_string(const json::object& o, std::string_view key, const std::string& path) {
    auto s = opt_string(o, key, path);
    if (s.empty()) fail(join(path, key), "required");
    return s;
}

// A Go pointer bool: an explicit false is set.
std::optional<bool> opt_bool_set(const json::object& o, std::string_view key, const std::string& path) {
    const auto* v = field(o, key);
    if (!v) return std::nullopt;
    if (!v->is_bool()) fail(join(path, key), "expected a boolean");
    return v->get_bool();
}

std::optional<int> opt_int32(const json::object& o, std::string_view key, const std::string& path) {
    const auto v = opt_int(o, key, path);
    if (!v) return std::nullopt;
    if (*v < std::numeric_limits<std::int32_t>::min() || *v > std::numeric_limits<std::int32_t>::max())
        fail(join(path, key), "out of the int32 range");
    return static_cast<int>(*v);
}

// A non-pointer Go int32: 0 is unset.
std::optional<int> opt_int32_nonzero(const json::object& o, std::string_view key, const std::string& path) {
    auto v = opt_int32(o, key, path);
    if (v && *v == 0) return std::nullopt;
    return v;
}

// Numbers the API carries as strings ("20", "0.1"). "" is unset.
std::optional<double> opt_number_string(const json::object& o, std::string_view key, const std::string& path) {
    const auto s = opt_string(o, key, path);
    if (s.empty()) return std::nullopt;
    double d = 0;
    const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), d, std::chars_format::general);
    if (ec != std::errc() || end != s.data() + s.size() || !std::isfinite(d))
        fail(join(path, key), "\"" + s + "\" is not a finite number");
    return d;
}

double required_number_string(const json::object& o, std::string_view key, const std::string& path) {
    auto d = opt_number_string(o, key, path);
    if (!d) fail(join(path, key), "required");
    return *d;
}

// resource.Quantity: a string or a number (int-or-string).
std::optional<Quantity> opt_quantity(const json::object& o, std::string_view key, const std::string& path) {
    const auto* v = field(o, key);
    if (!v) return std::nullopt;
    std::string text;
    if (v->is_string()) text = std::string(v->get_string());
    else if (v->is_number()) text = json::serialize(*v);
    else fail(join(path, key), "expected a quantity (string or number)");
    auto q = Quantity::parse(text);
    if (!q) fail(join(path, key), q.error().message);
    return std::move(q).value();
}

std::optional<Duration> opt_duration(const json::object& o, std::string_view key, const std::string& path) {
    const auto* v = field(o, key);
    if (!v) return std::nullopt;
    if (!v->is_string()) fail(join(path, key), "expected a duration string such as \"5m\"");
    auto d = parse_duration(v->get_string());
    if (!d) fail(join(path, key), d.error().message);
    return d.value();
}

Duration required_duration(const json::object& o, std::string_view key, const std::string& path) {
    auto d = opt_duration(o, key, path);
    if (!d) fail(join(path, key), "required");
    return *d;
}

template <class E, std::size_t N>
std::optional<E> opt_enum(const json::object& o, std::string_view key, const std::string& path,
                          const E (&values)[N]) {
    const auto s = opt_string(o, key, path);
    if (s.empty()) return std::nullopt;
    for (E e : values)
        if (to_string(e) == s) return e;
    std::string allowed;
    for (E e : values) allowed += (allowed.empty() ? "" : ", ") + std::string(to_string(e));
    fail(join(path, key), "\"" + s + "\" is not one of " + allowed);
}

std::vector<std::string> string_list(const json::object& o, std::string_view key, const std::string& path) {
    std::vector<std::string> out;
    const auto* a = opt_array(o, key, path);
    if (!a) return out;
    for (std::size_t i = 0; i < a->size(); ++i) {
        if (!(*a)[i].is_string()) fail(join(path, key) + "[" + std::to_string(i) + "]", "expected a string");
        out.emplace_back((*a)[i].get_string());
    }
    return out;
}

std::optional<SecretKeyRef> opt_secret_ref(const json::object& o, std::string_view key, const std::string& path) {
    const auto* r = opt_object(o, key, path);
    if (!r) return std::nullopt;
    const auto at = join(path, key);
    return SecretKeyRef{required_string(*r, "name", at), required_string(*r, "key", at)};
}

// ------------------------------------------------------------- blocks ---

constexpr ControlledValues kControlledValues[] = {ControlledValues::RequestsOnly, ControlledValues::RequestsAndLimits};
constexpr TargetKind kTargetKinds[] = {TargetKind::Deployment, TargetKind::StatefulSet, TargetKind::DaemonSet,
                                       TargetKind::ReplicaSet, TargetKind::Job,         TargetKind::CronJob};
constexpr UpdateMode kModes[] = {UpdateMode::Observe, UpdateMode::Recommend, UpdateMode::OneShot, UpdateMode::Canary,
                                 UpdateMode::Auto};
constexpr ResizeMethod kResizeMethods[] = {ResizeMethod::InPlaceOnly, ResizeMethod::InPlaceOrRecreate};
constexpr PodAggregation kAggregations[] = {PodAggregation::Max, PodAggregation::Avg, PodAggregation::None};
constexpr VpaSelection kSelections[] = {VpaSelection::Target, VpaSelection::LowerBound, VpaSelection::UpperBound};
constexpr RuntimeProfile kProfiles[] = {RuntimeProfile::Generic, RuntimeProfile::Java, RuntimeProfile::Python,
                                        RuntimeProfile::Golang, RuntimeProfile::Nodejs};
constexpr SloComparison kComparisons[] = {SloComparison::Above, SloComparison::Below};
constexpr TemplatePersistenceWhen kWhens[] = {TemplatePersistenceWhen::AfterSuccessfulResize,
                                              TemplatePersistenceWhen::OnRecommendation};

ResourceConfigSpec resource_config(const json::object* o, const std::string& path) {
    ResourceConfigSpec r;
    if (!o) return r;
    r.percentile = opt_int32_nonzero(*o, "percentile", path);
    r.overhead_percent = opt_number_string(*o, "overhead", path);
    r.min_allowed = opt_quantity(*o, "minAllowed", path);
    r.max_allowed = opt_quantity(*o, "maxAllowed", path);
    r.controlled_values = opt_enum(*o, "controlledValues", path, kControlledValues);
    r.burst_sensitivity = opt_number_string(*o, "burstSensitivity", path);
    r.allow_decrease = opt_bool_set(*o, "allowDecrease", path);
    r.memory_from_cpu_ratio = opt_number_string(*o, "memoryFromCpuRatio", path);
    if (const auto* b = opt_object(*o, "startupBoost", path)) {
        const auto at = join(path, "startupBoost");
        r.startup_boost = StartupBoostSpec{required_number_string(*b, "multiplier", at),
                                           required_duration(*b, "duration", at),
                                           opt_bool(*b, "excludeFromHistory", at)};
    }
    r.max_change_percent = opt_int32(*o, "maxChangePercent", path);
    r.max_increase_percent = opt_int32(*o, "maxIncreasePercent", path);
    r.max_decrease_percent = opt_int32(*o, "maxDecreasePercent", path);
    r.decrease_usage_margin_percent = opt_int32(*o, "decreaseUsageMarginPercent", path);
    r.limit_multiplier = opt_number_string(*o, "limitMultiplier", path);
    if (const auto* b = opt_object(*o, "oomBump", path)) {
        const auto at = join(path, "oomBump");
        r.oom_bump = OomBumpSpec{opt_number_string(*b, "ratio", at), opt_quantity(*b, "minBump", at),
                                 opt_int32(*b, "maxBumps", at), opt_duration(*b, "hold", at)};
    }
    if (const auto* s = opt_object(*o, "surge", path)) {
        const auto at = join(path, "surge");
        r.surge = SurgeSpec{opt_number_string(*s, "triggerRatio", at), opt_int32_nonzero(*s, "percentile", at),
                            opt_duration(*s, "window", at)};
    }
    return r;
}

ManualSpec manual(const json::object& o, const std::string& path) {
    ManualSpec m;
    const auto* list = opt_array(o, "containers", path);
    if (!list) return m;
    for (std::size_t i = 0; i < list->size(); ++i) {
        const auto at = path + ".containers[" + std::to_string(i) + "]";
        const auto& c = as_object((*list)[i], at);
        auto name = required_string(c, "name", at);
        ResourceRequirements req;
        if (const auto* res = field(c, "resources")) {
            auto decoded = decode_requirements(*res, at + ".resources");
            if (!decoded) throw DecodeFailure(decoded.error().message);
            req = std::move(decoded).value();
        }
        if (!m.containers.emplace(name, std::move(req)).second) fail(at + ".name", "\"" + name + "\" is listed twice");
    }
    return m;
}

MetricsSourceSpec metrics_source(const json::object* o, const std::string& path) {
    MetricsSourceSpec m;
    if (!o) return m;
    m.history_window = opt_duration(*o, "historyWindow", path);
    m.minimum_data_points = opt_int32(*o, "minimumDataPoints", path);
    m.query_step = opt_duration(*o, "queryStep", path);
    m.rate_window = opt_duration(*o, "rateWindow", path);
    m.pod_aggregation = opt_enum(*o, "podAggregation", path, kAggregations);
    m.cpu_recording_metric = opt_nonempty(*o, "cpuRecordingMetric", path);
    m.memory_recording_metric = opt_nonempty(*o, "memoryRecordingMetric", path);
    if (const auto* p = opt_object(*o, "prometheus", path)) {
        const auto at = join(path, "prometheus");
        PrometheusSpec ps;
        ps.address = opt_string(*p, "address", at);
        ps.headers = opt_string_map(*p, "headers", at);
        ps.query_parameters = opt_string_map(*p, "queryParameters", at);
        ps.bearer_token_secret = opt_secret_ref(*p, "bearerTokenSecret", at);
        if (const auto* t = opt_object(*p, "tls", at)) {
            const auto tat = join(at, "tls");
            ps.tls = PrometheusTlsSpec{opt_bool(*t, "insecureSkipVerify", tat), opt_string(*t, "ca", tat),
                                       opt_secret_ref(*t, "caSecret", tat)};
        }
        m.prometheus = std::move(ps);
    }
    if (const auto* v = opt_object(*o, "vpa", path)) {
        const auto at = join(path, "vpa");
        m.vpa = VpaSpec{required_string(*v, "name", at), opt_string(*v, "namespace", at),
                        opt_enum(*v, "selection", at, kSelections)};
    }
    if (const auto* mm = opt_object(*o, "manual", path)) m.manual = manual(*mm, join(path, "manual"));
    if (const auto* d = opt_object(*o, "datadog", path)) {
        const auto at = join(path, "datadog");
        auto key = opt_secret_ref(*d, "apiKeySecretRef", at);
        if (!key) fail(join(at, "apiKeySecretRef"), "required");
        m.datadog = DatadogSpec{opt_string(*d, "site", at), *key};
    }
    if (const auto* c = opt_object(*o, "cloudwatch", path)) {
        const auto at = join(path, "cloudwatch");
        m.cloudwatch = CloudWatchSpec{required_string(*c, "region", at), required_string(*c, "clusterName", at),
                                      opt_string(*c, "roleArn", at), opt_string(*c, "cpuUnit", at)};
    }
    return m;
}

int minute_of_day(const json::object& o, std::string_view key, const std::string& path) {
    const auto s = required_string(o, key, path);
    auto digit = [&](std::size_t i) { return s[i] >= '0' && s[i] <= '9'; };
    if (s.size() != 5 || s[2] != ':' || !digit(0) || !digit(1) || !digit(3) || !digit(4))
        fail(join(path, key), "\"" + s + "\" is not HH:MM");
    const int h = (s[0] - '0') * 10 + (s[1] - '0');
    const int m = (s[3] - '0') * 10 + (s[4] - '0');
    if (h > 23 || m > 59) fail(join(path, key), "\"" + s + "\" is not a time between 00:00 and 23:59");
    return h * 60 + m;
}

ScheduleSpec schedule(const json::object& o, const std::string& path) {
    ScheduleSpec s;
    if (const auto* ws = opt_array(o, "windows", path)) {
        for (std::size_t i = 0; i < ws->size(); ++i) {
            const auto at = path + ".windows[" + std::to_string(i) + "]";
            const auto& w = as_object((*ws)[i], at);
            s.windows.push_back({minute_of_day(w, "start", at), minute_of_day(w, "end", at)});
        }
    }
    const auto days = string_list(o, "daysOfWeek", path);
    for (std::size_t i = 0; i < days.size(); ++i) {
        // Go compares day names without case (docs/api.md#validation).
        std::string lower;
        for (char c : days[i]) lower += static_cast<char>(c >= 'A' && c <= 'Z' ? c - 'A' + 'a' : c);
        std::optional<Weekday> day;
        for (int d = 0; d < 7; ++d) {
            std::string name(to_string(static_cast<Weekday>(d)));
            for (auto& c : name) c = static_cast<char>(c >= 'A' && c <= 'Z' ? c - 'A' + 'a' : c);
            if (name == lower) day = static_cast<Weekday>(d);
        }
        if (!day) fail(path + ".daysOfWeek[" + std::to_string(i) + "]", "\"" + days[i] + "\" is not a day of the week");
        s.days_of_week.push_back(*day);
    }
    s.timezone = opt_string(o, "timezone", path);
    return s;
}

PullRequestSpec pull_request(const json::object& o, const std::string& path) {
    PullRequestSpec p;
    p.enabled = opt_bool_set(o, "enabled", path);
    p.provider = opt_string(o, "provider", path);
    p.token_secret_ref = opt_secret_ref(o, "tokenSecretRef", path);
    p.repository = opt_string(o, "repository", path);
    p.base_branch = opt_string(o, "baseBranch", path);
    p.api_url = opt_string(o, "apiUrl", path);
    p.cooldown = opt_duration(o, "cooldown", path);
    p.min_change_percent = opt_int32(o, "minChangePercent", path);
    p.labels = string_list(o, "labels", path);
    p.dry_run = opt_bool_set(o, "dryRun", path);
    p.allow_private_endpoints = opt_bool_set(o, "allowPrivateEndpoints", path);
    return p;
}

std::optional<HpaTargetBound> hpa_bound(const json::object& o, std::string_view key, const std::string& path) {
    const auto* b = opt_object(o, key, path);
    if (!b) return std::nullopt;
    const auto at = join(path, key);
    return HpaTargetBound{opt_int32(*b, "min", at), opt_int32(*b, "max", at)};
}

UpdateStrategySpec update_strategy(const json::object* o, const std::string& path) {
    UpdateStrategySpec u;
    if (!o) return u;
    u.type = opt_enum(*o, "type", path, kModes);
    if (const auto* c = opt_object(*o, "canary", path)) {
        const auto at = join(path, "canary");
        const auto pct = opt_int32(*c, "percentage", at);
        if (!pct) fail(join(at, "percentage"), "required");
        u.canary = CanarySpec{*pct, required_duration(*c, "observationPeriod", at), opt_bool(*c, "autoPromote", at)};
    }
    u.cooldown = opt_duration(*o, "cooldown", path);
    u.initial_sizing = opt_bool_set(*o, "initialSizing", path);
    u.auto_revert = opt_bool_set(*o, "autoRevert", path);
    u.resize_method = opt_enum(*o, "resizeMethod", path, kResizeMethods);
    if (const auto* s = opt_object(*o, "schedule", path)) u.schedule = schedule(*s, join(path, "schedule"));
    u.max_concurrent_resizes = opt_int32_nonzero(*o, "maxConcurrentResizes", path);
    u.max_status_recommendations = opt_int32(*o, "maxStatusRecommendations", path);
    u.include_explanations_in_status = opt_bool_set(*o, "includeExplanationsInStatus", path);
    u.max_total_cpu_increase = opt_quantity(*o, "maxTotalCpuIncrease", path);
    u.max_total_memory_increase = opt_quantity(*o, "maxTotalMemoryIncrease", path);
    u.safety_observation_period = opt_duration(*o, "safetyObservationPeriod", path);
    if (const auto* e = opt_object(*o, "export", path)) {
        const auto at = join(path, "export");
        ExportSpec ex;
        ex.config_map = opt_bool(*e, "configMap", at);
        if (const auto* pr = opt_object(*e, "pullRequest", at)) ex.pull_request = pull_request(*pr, join(at, "pullRequest"));
        u.export_ = std::move(ex);
    }
    if (const auto* gs = opt_array(*o, "sloGuardrails", path)) {
        for (std::size_t i = 0; i < gs->size(); ++i) {
            const auto at = path + ".sloGuardrails[" + std::to_string(i) + "]";
            const auto& g = as_object((*gs)[i], at);
            u.slo_guardrails.push_back({required_string(g, "name", at), required_string(g, "query", at),
                                        required_number_string(g, "threshold", at),
                                        opt_enum(g, "comparison", at, kComparisons),
                                        opt_duration(g, "evaluationWindow", at)});
        }
    }
    if (const auto* t = opt_object(*o, "templatePersistence", path)) {
        const auto at = join(path, "templatePersistence");
        u.template_persistence = TemplatePersistenceSpec{opt_bool_set(*t, "enabled", at), opt_enum(*t, "when", at, kWhens)};
    }
    u.max_cpu_increase_per_minute = opt_quantity(*o, "maxCpuIncreasePerMinute", path);
    u.max_memory_increase_per_minute = opt_quantity(*o, "maxMemoryIncreasePerMinute", path);
    if (const auto* h = opt_object(*o, "hpaTargetBounds", path)) {
        const auto at = join(path, "hpaTargetBounds");
        u.hpa_target_bounds = HpaTargetBoundsSpec{hpa_bound(*h, "cpu", at), hpa_bound(*h, "memory", at)};
    }
    return u;
}

TargetRef target_ref(const json::object& spec, const std::string& path) {
    const auto* t = opt_object(spec, "targetRef", path);
    const auto at = join(path, "targetRef");
    if (!t) fail(at, "required: a policy without a target selects nothing");
    TargetRef r;
    const auto kind = opt_enum(*t, "kind", at, kTargetKinds);
    if (!kind) fail(join(at, "kind"), "required");
    r.kind = *kind;
    r.name = opt_nonempty(*t, "name", at);
    if (const auto* sel = field(*t, "selector")) {
        auto parsed = parse_label_selector(sel, join(at, "selector"));
        if (!parsed) throw DecodeFailure(parsed.error().message);
        r.selector = std::move(parsed).value();
    }
    if (r.name.has_value() == r.selector.has_value()) fail(at, "set exactly one of name or selector");
    if (r.selector && r.selector->selects_everything())
        fail(join(at, "selector"), "must include at least one matchLabels or matchExpressions entry");
    return r;
}

ObjectIdentity identity(const json::object& root) {
    ObjectIdentity id;
    const auto* meta = opt_object(root, "metadata", "");
    if (!meta) fail("metadata", "missing");
    id.namespace_ = opt_string(*meta, "namespace", "metadata");
    id.name = opt_string(*meta, "name", "metadata");
    if (id.name.empty()) fail("metadata.name", "missing");
    id.uid = opt_string(*meta, "uid", "metadata");
    id.generation = opt_int(*meta, "generation", "metadata").value_or(0);
    id.annotations = opt_string_map(*meta, "annotations", "metadata");
    return id;
}

const json::object& spec_of(const json::object& root) {
    static const json::object kEmpty;
    const auto* spec = opt_object(root, "spec", "");
    return spec ? *spec : kEmpty;
}

AttunePolicy policy(const json::value& json) {
    const auto& root = as_object(json, "AttunePolicy");
    AttunePolicy p;
    p.meta = identity(root);
    if (p.meta.namespace_.empty()) fail("metadata.namespace", "missing");
    const auto& spec = spec_of(root);
    const std::string at = "spec";
    auto& s = p.spec;
    s.target_ref = target_ref(spec, at);
    s.metrics_source = metrics_source(opt_object(spec, "metricsSource", at), "spec.metricsSource");
    s.cpu = resource_config(opt_object(spec, "cpu", at), "spec.cpu");
    s.memory = resource_config(opt_object(spec, "memory", at), "spec.memory");
    s.paused = opt_bool_set(spec, "paused", at);
    s.update_strategy = update_strategy(opt_object(spec, "updateStrategy", at), "spec.updateStrategy");
    s.excluded_containers = string_list(spec, "excludedContainers", at);
    s.exclude_known_sidecars = opt_bool_set(spec, "excludeKnownSidecars", at);
    s.weight = opt_int32_nonzero(spec, "weight", at);
    s.runtime_profile = opt_enum(spec, "runtimeProfile", at, kProfiles);
    if (const auto* cps = opt_array(spec, "containerPolicies", at)) {
        for (std::size_t i = 0; i < cps->size(); ++i) {
            const auto cat = "spec.containerPolicies[" + std::to_string(i) + "]";
            const auto& c = as_object((*cps)[i], cat);
            s.container_policies.push_back({required_string(c, "containerName", cat),
                                            resource_config(opt_object(c, "cpu", cat), join(cat, "cpu")),
                                            resource_config(opt_object(c, "memory", cat), join(cat, "memory"))});
        }
    }
    if (const auto* l = field(spec, "lifecycle")) {
        auto decoded = decode_lifecycle_spec(*l, "spec.lifecycle");
        if (!decoded) throw DecodeFailure(decoded.error().message);  // the message names the path
        s.lifecycle = std::move(decoded).value();
    }
    return p;
}

AttuneDefaults defaults(const json::value& json) {
    const auto& root = as_object(json, "defaults");
    AttuneDefaults d;
    d.meta = identity(root);
    const auto& spec = spec_of(root);
    const std::string at = "spec";
    d.spec.metrics_source = metrics_source(opt_object(spec, "metricsSource", at), "spec.metricsSource");
    d.spec.cpu = resource_config(opt_object(spec, "cpu", at), "spec.cpu");
    d.spec.memory = resource_config(opt_object(spec, "memory", at), "spec.memory");
    d.spec.update_strategy = update_strategy(opt_object(spec, "updateStrategy", at), "spec.updateStrategy");
    if (const auto* c = opt_object(spec, "costPricing", at)) {
        d.spec.cost_pricing = CostPricingSpec{opt_number_string(*c, "cpuPerCoreHour", "spec.costPricing"),
                                              opt_number_string(*c, "memoryPerGiBHour", "spec.costPricing")};
    }
    d.spec.exclude_known_sidecars = opt_bool_set(spec, "excludeKnownSidecars", at);
    return d;
}

}  // namespace

Result<AttunePolicy> decode_attune_policy(const boost::json::value& json) {
    return guarded("invalid_policy", [&] { return Result<AttunePolicy>(policy(json)); });
}

Result<AttuneDefaults> decode_attune_defaults(const boost::json::value& json) {
    return guarded("invalid_defaults", [&] { return Result<AttuneDefaults>(defaults(json)); });
}

}  // namespace attune::core
