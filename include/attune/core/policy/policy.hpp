#pragma once
// The Attune API (attune.io/v1alpha1) as plain values: the specs of
// AttunePolicy, AttuneDefaults and AttuneNamespaceDefaults, their decoders,
// and the defaults merge that turns a policy plus its defaults objects into
// the EffectivePolicy every later decision reads. Pure.
//
// "Unset" follows the Go API (docs/api.md#the-defaults-merge): a field is unset when it is
// absent, JSON null, or the zero value of a non-pointer Go field ("" or 0).
// Such fields decode as std::nullopt, so the merge is a plain "fill the
// nullopts". Go pointer fields (allowDecrease, autoRevert, ...) keep an
// explicit false or 0 as set.
//
// Field names follow the JSON names; docs/api.md lists every field.
#include <map>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "attune/core/util/duration.hpp"
#include "attune/core/model/label_selector.hpp"
#include "attune/core/policy/lifecycle_spec.hpp"
#include "attune/core/policy/overlay.hpp"  // ContainerResourceMap
#include "attune/core/model/pod_model.hpp"
#include "attune/core/model/quantity.hpp"
#include "attune/core/policy/resize_method.hpp"
#include "attune/core/policy/resource_tuning.hpp"
#include "attune/core/util/result.hpp"
#include "attune/core/policy/source_options.hpp"

namespace boost::json {
class value;
}  // namespace boost::json

namespace attune::core {

using StringMap = std::map<std::string, std::string, std::less<>>;

// ---------------------------------------------------------------- enums ---

enum class TargetKind { Deployment, StatefulSet, DaemonSet, ReplicaSet, Job, CronJob };
enum class UpdateMode { Observe, Recommend, OneShot, Canary, Auto };
enum class RuntimeProfile { Generic, Java, Python, Golang, Nodejs };
enum class SloComparison { Above, Below };
enum class TemplatePersistenceWhen { AfterSuccessfulResize, OnRecommendation };
enum class Weekday { Sunday, Monday, Tuesday, Wednesday, Thursday, Friday, Saturday };

// The API spelling ("Deployment", "Recommend", "Max", ...).
std::string_view to_string(TargetKind v) noexcept;
std::string_view to_string(UpdateMode v) noexcept;
std::string_view to_string(ResizeMethod v) noexcept;
std::string_view to_string(PodAggregation v) noexcept;
std::string_view to_string(VpaSelection v) noexcept;
std::string_view to_string(RuntimeProfile v) noexcept;
std::string_view to_string(SloComparison v) noexcept;
std::string_view to_string(TemplatePersistenceWhen v) noexcept;
std::string_view to_string(Weekday v) noexcept;
std::string_view to_string(ControlledValues v) noexcept;
std::optional<TargetKind> parse_target_kind(std::string_view s) noexcept;

// Updates that change pods (OneShot, Canary, Auto); Observe and Recommend never do.
bool mode_resizes(UpdateMode m) noexcept;

// ------------------------------------------------------------ the specs ---

struct SecretKeyRef {
    std::string name;
    std::string key;
    friend bool operator==(const SecretKeyRef&, const SecretKeyRef&) = default;
};

struct TargetRef {
    TargetKind kind = TargetKind::Deployment;
    std::optional<std::string> name;        // one workload by name...
    std::optional<LabelSelector> selector;  // ...or every workload of `kind` whose labels match
    friend bool operator==(const TargetRef&, const TargetRef&) = default;
};

struct StartupBoostSpec {
    double multiplier = 1.0;
    Duration duration{0};
    bool exclude_from_history = false;  // newer upstream
    friend bool operator==(const StartupBoostSpec&, const StartupBoostSpec&) = default;
};

struct OomBumpSpec {  // newer upstream
    std::optional<double> ratio;
    std::optional<Quantity> min_bump;
    std::optional<int> max_bumps;
    std::optional<Duration> hold;
    friend bool operator==(const OomBumpSpec&, const OomBumpSpec&) = default;
};

struct SurgeSpec {  // newer upstream
    std::optional<double> trigger_ratio;
    std::optional<int> percentile;
    std::optional<Duration> window;
    friend bool operator==(const SurgeSpec&, const SurgeSpec&) = default;
};

// `cpu` and `memory` of every kind, and containerPolicies[].cpu/memory.
struct ResourceConfigSpec {
    std::optional<int> percentile;              // 0 = unset
    std::optional<double> overhead_percent;     // "overhead": "20"; "" = unset
    std::optional<Quantity> min_allowed;
    std::optional<Quantity> max_allowed;
    std::optional<ControlledValues> controlled_values;
    std::optional<double> burst_sensitivity;    // "0.1"
    std::optional<bool> allow_decrease;
    std::optional<double> memory_from_cpu_ratio;
    std::optional<StartupBoostSpec> startup_boost;  // taken whole
    std::optional<int> max_change_percent;
    std::optional<int> max_increase_percent;
    std::optional<int> max_decrease_percent;
    std::optional<int> decrease_usage_margin_percent;
    // Newer upstream (docs/api.md#attunepolicy-spec).
    std::optional<double> limit_multiplier;
    std::optional<OomBumpSpec> oom_bump;  // taken whole
    std::optional<SurgeSpec> surge;       // taken whole
    friend bool operator==(const ResourceConfigSpec&, const ResourceConfigSpec&) = default;
};

struct PrometheusTlsSpec {
    bool insecure_skip_verify = false;
    // Attune extension: a PEM bundle to verify the server with, inline or
    // from a Secret of the policy's namespace (the latter needs secret reads).
    std::string ca;
    std::optional<SecretKeyRef> ca_secret;
    friend bool operator==(const PrometheusTlsSpec&, const PrometheusTlsSpec&) = default;
};

struct PrometheusSpec {
    std::string address;
    StringMap headers;
    StringMap query_parameters;
    std::optional<SecretKeyRef> bearer_token_secret;
    std::optional<PrometheusTlsSpec> tls;
    friend bool operator==(const PrometheusSpec&, const PrometheusSpec&) = default;
};

struct VpaSpec {
    std::string name;
    std::string namespace_;                  // "" = the policy's namespace
    std::optional<VpaSelection> selection;   // Attune extension, default Target
    friend bool operator==(const VpaSpec&, const VpaSpec&) = default;
};

// Attune extension (docs/lifecycle.md): explicit requests/limits per container,
// overlaid on the live baseline (core::apply_manual_overlay).
struct ManualSpec {
    ContainerResourceMap containers;
    friend bool operator==(const ManualSpec&, const ManualSpec&) = default;
};

struct DatadogSpec {
    std::string site;  // "" = datadoghq.com
    SecretKeyRef api_key_secret_ref;
    friend bool operator==(const DatadogSpec&, const DatadogSpec&) = default;
};

struct CloudWatchSpec {
    std::string region;
    std::string cluster_name;
    std::string role_arn;
    std::string cpu_unit;
    friend bool operator==(const CloudWatchSpec&, const CloudWatchSpec&) = default;
};

struct MetricsSourceSpec {
    std::optional<Duration> history_window;
    std::optional<int> minimum_data_points;
    std::optional<Duration> query_step;
    std::optional<Duration> rate_window;
    std::optional<PodAggregation> pod_aggregation;
    std::optional<std::string> cpu_recording_metric;
    std::optional<std::string> memory_recording_metric;
    std::optional<PrometheusSpec> prometheus;
    std::optional<VpaSpec> vpa;
    std::optional<ManualSpec> manual;
    std::optional<DatadogSpec> datadog;
    std::optional<CloudWatchSpec> cloudwatch;
    friend bool operator==(const MetricsSourceSpec&, const MetricsSourceSpec&) = default;
};

struct CanarySpec {
    int percentage = 0;
    Duration observation_period{0};
    bool auto_promote = false;
    friend bool operator==(const CanarySpec&, const CanarySpec&) = default;
};

struct TimeWindow {
    int start_minute = 0;  // minutes after midnight, "HH:MM"
    int end_minute = 0;    // end < start wraps midnight
    friend bool operator==(const TimeWindow&, const TimeWindow&) = default;
};

struct ScheduleSpec {
    std::vector<TimeWindow> windows;
    std::vector<Weekday> days_of_week;  // empty = every day
    std::string timezone;               // "" = UTC
    friend bool operator==(const ScheduleSpec&, const ScheduleSpec&) = default;
};

struct SloGuardrailSpec {
    std::string name;
    std::string query;
    double threshold = 0;
    std::optional<SloComparison> comparison;
    std::optional<Duration> evaluation_window;
    friend bool operator==(const SloGuardrailSpec&, const SloGuardrailSpec&) = default;
};

struct TemplatePersistenceSpec {
    std::optional<bool> enabled;
    std::optional<TemplatePersistenceWhen> when;
    friend bool operator==(const TemplatePersistenceSpec&, const TemplatePersistenceSpec&) = default;
};

struct PullRequestSpec {
    std::optional<bool> enabled;
    std::string provider;  // "" = github
    std::optional<SecretKeyRef> token_secret_ref;
    std::string repository;
    std::string base_branch;
    std::string api_url;
    std::optional<Duration> cooldown;
    std::optional<int> min_change_percent;
    std::vector<std::string> labels;
    std::optional<bool> dry_run;
    std::optional<bool> allow_private_endpoints;  // newer upstream
    friend bool operator==(const PullRequestSpec&, const PullRequestSpec&) = default;
};

struct ExportSpec {
    bool config_map = false;
    std::optional<PullRequestSpec> pull_request;
    friend bool operator==(const ExportSpec&, const ExportSpec&) = default;
};

struct HpaTargetBound {
    std::optional<int> min;
    std::optional<int> max;
    friend bool operator==(const HpaTargetBound&, const HpaTargetBound&) = default;
};

struct HpaTargetBoundsSpec {  // newer upstream
    std::optional<HpaTargetBound> cpu;
    std::optional<HpaTargetBound> memory;
    friend bool operator==(const HpaTargetBoundsSpec&, const HpaTargetBoundsSpec&) = default;
};

struct UpdateStrategySpec {
    std::optional<UpdateMode> type;
    std::optional<CanarySpec> canary;  // taken whole
    std::optional<Duration> cooldown;
    std::optional<bool> initial_sizing;
    std::optional<bool> auto_revert;
    std::optional<ResizeMethod> resize_method;
    std::optional<ScheduleSpec> schedule;  // taken whole
    std::optional<int> max_concurrent_resizes;  // 0 = unset
    std::optional<int> max_status_recommendations;
    std::optional<bool> include_explanations_in_status;
    std::optional<Quantity> max_total_cpu_increase;
    std::optional<Quantity> max_total_memory_increase;
    std::optional<Duration> safety_observation_period;
    std::optional<ExportSpec> export_;  // taken whole
    std::vector<SloGuardrailSpec> slo_guardrails;  // taken whole; empty = unset
    std::optional<TemplatePersistenceSpec> template_persistence;  // taken whole
    // Newer upstream.
    std::optional<Quantity> max_cpu_increase_per_minute;
    std::optional<Quantity> max_memory_increase_per_minute;
    std::optional<HpaTargetBoundsSpec> hpa_target_bounds;
    friend bool operator==(const UpdateStrategySpec&, const UpdateStrategySpec&) = default;
};

// Newer upstream: a per-container overlay; "*" matches every container.
struct ContainerPolicySpec {
    std::string container_name;
    ResourceConfigSpec cpu;
    ResourceConfigSpec memory;
    friend bool operator==(const ContainerPolicySpec&, const ContainerPolicySpec&) = default;
};

struct AttunePolicySpec {
    TargetRef target_ref;
    MetricsSourceSpec metrics_source;
    ResourceConfigSpec cpu;
    ResourceConfigSpec memory;
    std::optional<bool> paused;
    UpdateStrategySpec update_strategy;
    std::vector<std::string> excluded_containers;
    std::optional<bool> exclude_known_sidecars;
    std::optional<int> weight;  // 0 = unset
    std::optional<RuntimeProfile> runtime_profile;
    std::vector<ContainerPolicySpec> container_policies;
    std::optional<LifecycleSpec> lifecycle;  // spec.lifecycle (docs/lifecycle.md): the policy's own, never a default's
    friend bool operator==(const AttunePolicySpec&, const AttunePolicySpec&) = default;
};

struct CostPricingSpec {
    std::optional<double> cpu_per_core_hour;
    std::optional<double> memory_per_gib_hour;
    friend bool operator==(const CostPricingSpec&, const CostPricingSpec&) = default;
};

// AttuneDefaults and AttuneNamespaceDefaults share one spec.
struct DefaultsSpec {
    MetricsSourceSpec metrics_source;
    ResourceConfigSpec cpu;
    ResourceConfigSpec memory;
    UpdateStrategySpec update_strategy;
    std::optional<CostPricingSpec> cost_pricing;
    std::optional<bool> exclude_known_sidecars;
    friend bool operator==(const DefaultsSpec&, const DefaultsSpec&) = default;
};

struct ObjectIdentity {
    std::string namespace_;  // "" for the cluster-scoped AttuneDefaults
    std::string name;
    std::string uid;
    std::int64_t generation = 0;
    StringMap annotations;
};

struct AttunePolicy {
    ObjectIdentity meta;
    AttunePolicySpec spec;
};

struct AttuneDefaults {  // either defaults kind
    ObjectIdentity meta;
    DefaultsSpec spec;
};

// Error code "invalid_policy" / "invalid_defaults"; the message starts with
// the JSON path at fault ("spec.cpu.overhead: ..."). The apiserver's schema
// refuses these already; the decoders still never trust server data.
Result<AttunePolicy> decode_attune_policy(const boost::json::value& json);
Result<AttuneDefaults> decode_attune_defaults(const boost::json::value& json);

// -------------------------------------------------- the effective policy ---

inline constexpr std::string_view kKnownSidecars[] = {"istio-proxy",     "linkerd-proxy",  "consul-dataplane",
                                                      "kuma-dp",         "vault-agent",    "cloud-sql-proxy",
                                                      "cloudsql-proxy",  "gce-proxy"};

struct PrometheusSource {
    // Where the block came from, for messages: "spec.metricsSource.prometheus",
    // "AttuneNamespaceDefaults team: spec.metricsSource.prometheus", ...
    std::string origin;
    std::string address;
    StringMap headers;
    StringMap query_parameters;
    std::optional<SecretKeyRef> bearer_token_secret;  // read from the policy's namespace
    bool insecure_skip_verify = false;
    std::string ca;                                   // inline PEM
    std::optional<SecretKeyRef> ca_secret;
    friend bool operator==(const PrometheusSource&, const PrometheusSource&) = default;
};

struct VpaSource {
    std::string name;
    std::string namespace_;  // the policy's namespace when the spec leaves it empty
    VpaSelection selection = VpaSelection::Target;
    friend bool operator==(const VpaSource&, const VpaSource&) = default;
};

struct ManualSource {
    ContainerResourceMap containers;
    friend bool operator==(const ManualSource&, const ManualSource&) = default;
};

// No source anywhere: the controller may auto-discover a Prometheus
// (Prometheus Operator objects, then well-known Services), else it reports
// PrometheusUnavailable.
struct NoMetricsSource {
    friend bool operator==(const NoMetricsSource&, const NoMetricsSource&) = default;
};

// The Datadog metrics query API of one site (docs/recommender.md#datadog).
struct DatadogSource {
    std::string site = "datadoghq.com";
    // The API key; the Secret's "app-key" key, when present, is the
    // application key (as the Go original reads it). The policy's namespace.
    SecretKeyRef api_key_secret_ref;
    friend bool operator==(const DatadogSource&, const DatadogSource&) = default;
};

// The Datadog sites the API accepts (the CRD's enum for spec.metricsSource.datadog.site).
inline constexpr std::string_view kDatadogSites[] = {"datadoghq.com",     "datadoghq.eu",      "us3.datadoghq.com",
                                                     "us5.datadoghq.com", "ap1.datadoghq.com", "ddog-gov.com"};

// What one point of Container Insights' container_cpu_usage_total is
// counted in (spec.metricsSource.cloudwatch.cpuUnit, Millicores by default).
enum class CloudWatchCpuUnit { Millicores, Cores, Nanocores };

// Amazon CloudWatch Container Insights through GetMetricData
// (docs/recommender.md#cloudwatch). Credentials come from the manager's
// environment or IRSA (core/aws/aws_credentials.hpp), never from the policy.
struct CloudWatchSource {
    std::string region;
    std::string cluster_name;
    std::string role_arn;  // "" : the manager's own credentials
    CloudWatchCpuUnit cpu_unit = CloudWatchCpuUnit::Millicores;
    // The cpuUnit as written when it is none of the three (validation refuses it).
    std::string invalid_cpu_unit;
    friend bool operator==(const CloudWatchSource&, const CloudWatchSource&) = default;
};

using MetricsProvider =
    std::variant<NoMetricsSource, PrometheusSource, VpaSource, ManualSource, DatadogSource, CloudWatchSource>;

struct EffectiveMetricsSource {
    Duration history_window = std::chrono::hours(168);
    int minimum_data_points = 48;
    Duration query_step = std::chrono::minutes(5);
    Duration rate_window = std::chrono::minutes(5);  // = query_step unless set
    PodAggregation pod_aggregation = PodAggregation::Max;
    std::string cpu_recording_metric;     // "" = rate(container_cpu_usage_seconds_total[rateWindow])
    std::string memory_recording_metric;  // "" = container_memory_working_set_bytes
    MetricsProvider provider;
    // The Prometheus of instant queries (sloGuardrails, the lifecycle's
    // throttling analysis): the provider's when it is one; else a defaults
    // object's block, so a Manual- or VPA-backed Canary policy can still be
    // analysed. Validated like the provider's.
    std::optional<PrometheusSource> prometheus;
    friend bool operator==(const EffectiveMetricsSource&, const EffectiveMetricsSource&) = default;
};

struct EffectiveCanary {
    int percentage = 0;
    Duration observation_period = std::chrono::minutes(5);  // 0 in the spec = this default
    bool auto_promote = false;
    friend bool operator==(const EffectiveCanary&, const EffectiveCanary&) = default;
};

struct EffectiveSchedule {
    std::vector<TimeWindow> windows;
    std::vector<Weekday> days_of_week;
    std::string timezone = "UTC";
    friend bool operator==(const EffectiveSchedule&, const EffectiveSchedule&) = default;
};

struct EffectiveSloGuardrail {
    std::string name;
    std::string query;
    double threshold = 0;
    SloComparison comparison = SloComparison::Above;
    Duration evaluation_window = std::chrono::minutes(5);
    friend bool operator==(const EffectiveSloGuardrail&, const EffectiveSloGuardrail&) = default;
};

struct EffectiveTemplatePersistence {
    bool enabled = false;
    TemplatePersistenceWhen when = TemplatePersistenceWhen::AfterSuccessfulResize;
    friend bool operator==(const EffectiveTemplatePersistence&, const EffectiveTemplatePersistence&) = default;
};

struct EffectivePullRequest {
    bool enabled = false;
    std::string provider = "github";
    std::optional<SecretKeyRef> token_secret_ref;
    std::string repository;
    std::string base_branch = "main";
    std::string api_url;  // "" = the provider's public API
    Duration cooldown = std::chrono::hours(24);
    int min_change_percent = 10;
    std::vector<std::string> labels;
    bool dry_run = false;
    bool allow_private_endpoints = false;
    friend bool operator==(const EffectivePullRequest&, const EffectivePullRequest&) = default;
};

struct EffectiveExport {
    bool config_map = false;
    std::optional<EffectivePullRequest> pull_request;
    friend bool operator==(const EffectiveExport&, const EffectiveExport&) = default;
};

struct EffectiveUpdateStrategy {
    UpdateMode type = UpdateMode::Recommend;
    Duration cooldown = std::chrono::hours(1);  // raised to kMinCooldown
    bool initial_sizing = false;
    bool auto_revert = true;
    ResizeMethod resize_method = ResizeMethod::InPlaceOnly;
    int max_concurrent_resizes = 1;
    int max_status_recommendations = 100;
    bool include_explanations_in_status = true;
    std::optional<Quantity> max_total_cpu_increase;     // nullopt = unlimited
    std::optional<Quantity> max_total_memory_increase;  // nullopt = unlimited
    std::optional<Quantity> max_cpu_increase_per_minute;
    std::optional<Quantity> max_memory_increase_per_minute;
    // safetyObservationPeriod when > 0, else the canary's observation period, else 5m.
    Duration safety_observation_period = std::chrono::minutes(5);
    std::optional<EffectiveCanary> canary;
    std::optional<EffectiveSchedule> schedule;
    std::vector<EffectiveSloGuardrail> slo_guardrails;
    EffectiveTemplatePersistence template_persistence;
    EffectiveExport export_;
    std::optional<HpaTargetBoundsSpec> hpa_target_bounds;
    friend bool operator==(const EffectiveUpdateStrategy&, const EffectiveUpdateStrategy&) = default;
};

struct CostPricing {
    double cpu_per_core_hour = 0.031;
    double memory_per_gib_hour = 0.004;
    friend bool operator==(const CostPricing&, const CostPricing&) = default;
};

// The tuning of one container that a containerPolicies entry overrides.
struct ContainerTuning {
    std::string container_name;  // a name, or "*"
    ResourceTuning cpu;
    ResourceTuning memory;
    friend bool operator==(const ContainerTuning&, const ContainerTuning&) = default;
};

struct EffectivePolicy {
    std::string namespace_;
    std::string name;
    TargetRef target_ref;
    int weight = 100;
    bool paused = false;
    std::optional<RuntimeProfile> runtime_profile;
    ResourceTuning cpu;
    ResourceTuning memory;
    EffectiveMetricsSource metrics;
    EffectiveUpdateStrategy update_strategy;
    bool exclude_known_sidecars = true;
    std::vector<std::string> excluded_containers;  // the spec's list, plus the known sidecars when on; sorted, unique
    CostPricing cost_pricing;
    std::vector<ContainerTuning> container_tunings;  // literal names first (sorted), then "*"
    // The progressive validation of updateStrategy.type Canary: spec.lifecycle
    // resolved against updateStrategy.canary and maxConcurrentResizes
    // (effective_lifecycle). Filled for every mode; only Canary reads it.
    EffectiveLifecycle lifecycle;

    // Where the values came from, for logs and the ConfigClamped Event.
    std::string cluster_defaults;    // metadata.name of the AttuneDefaults used, "" if none
    std::string namespace_defaults;  // metadata.name of the AttuneNamespaceDefaults used, "" if none
    std::vector<std::string> inherited;  // JSON paths filled from a defaults object ("cpu.percentile")
    std::vector<std::string> clamped;    // human text per clamp ("metricsSource.queryStep 5s raised to 10s")

    bool excludes(std::string_view container) const;
    // containerPolicies: the literal entry, else "*", else the policy's own tuning.
    const ResourceTuning& tuning_for(std::string_view container, ResourceKind kind) const;
    friend bool operator==(const EffectivePolicy&, const EffectivePolicy&) = default;
};

// Operator limits the controller enforces after the merge (docs/api.md#attunepolicy-spec).
inline constexpr Duration kMinHistoryWindow = std::chrono::hours(1);
inline constexpr Duration kMaxHistoryWindow = std::chrono::hours(720);
inline constexpr Duration kMinQueryStep = std::chrono::seconds(10);
inline constexpr Duration kMaxQueryStep = std::chrono::hours(1);
inline constexpr Duration kMinCooldown = std::chrono::minutes(1);

// At one scope only the object with the smallest metadata.name (byte-wise)
// counts; nullptr when there is none.
const AttuneDefaults* pick_defaults(std::span<const AttuneDefaults> at_one_scope);

// built-in < AttuneDefaults < AttuneNamespaceDefaults < the policy, per
// field; schedule, export, canary, sloGuardrails, templatePersistence and
// startupBoost are taken whole; the prometheus block comes from the policy
// when its address is set, else from the defaults — but when both defaults
// scopes exist the cluster's prometheus block is dropped (Go v0.1.23). After
// the merge the built-ins fill what is still unset, runtimeProfile first
// (only unset fields), then the clamps. `cluster` / `namespace_defaults`:
// every object of that kind the policy can see (any order).
EffectivePolicy merge_effective_policy(const AttunePolicy& policy, std::span<const AttuneDefaults> cluster,
                                       std::span<const AttuneDefaults> namespace_defaults);

}  // namespace attune::core
