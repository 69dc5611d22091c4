#include "attune/core/policy/policy.hpp"

#include <boost/json/parse.hpp>

#include <gtest/gtest.h>

namespace attune::core {
namespace {

using namespace std::chrono_literals;

Quantity q(const char* s) { return Quantity::parse(s).value(); }

// A policy in namespace "shop" whose spec is `spec` plus a target.
AttunePolicy policy(const std::string& spec = "{}") {
    auto v = boost::json::parse(spec);
    v.as_object()["targetRef"] = boost::json::parse(R"({"kind":"Deployment","name":"web"})");
    boost::json::object doc{{"metadata", boost::json::object{{"namespace", "shop"}, {"name", "web"}}}, {"spec", v}};
    auto r = decode_attune_policy(doc);
    if (!r) throw std::runtime_error(r.error().message);
    return r.value();
}

AttuneDefaults defaults(const std::string& name, const std::string& spec, const std::string& ns = "") {
    boost::json::object meta{{"name", name}};
    if (!ns.empty()) meta["namespace"] = ns;
    boost::json::object doc{{"metadata", meta}, {"spec", boost::json::parse(spec)}};
    auto r = decode_attune_defaults(doc);
    if (!r) throw std::runtime_error(r.error().message);
    return r.value();
}

EffectivePolicy merge(const AttunePolicy& p, std::vector<AttuneDefaults> cluster = {},
                      std::vector<AttuneDefaults> ns = {}) {
    return merge_effective_policy(p, cluster, ns);
}

bool has(const std::vector<std::string>& v, std::string_view s) { return std::find(v.begin(), v.end(), s) != v.end(); }

// Order: built-in < AttuneDefaults < AttuneNamespaceDefaults < AttunePolicy.
TEST(DefaultsMerge, PolicyBeatsNamespaceBeatsClusterBeatsBuiltIn) {
    const auto cluster = defaults("cluster", R"({"cpu":{"percentile":50,"overhead":"11","maxChangePercent":5,"burstSensitivity":"0.3"}})");
    const auto ns = defaults("team", R"({"cpu":{"percentile":90,"overhead":"12"}})", "shop");
    const auto e = merge(policy(R"({"cpu":{"percentile":99}})"), {cluster}, {ns});
    EXPECT_EQ(e.cpu.percentile, 99);             // policy
    EXPECT_EQ(e.cpu.overhead_percent, 12);       // namespace defaults
    EXPECT_EQ(e.cpu.max_increase_percent, 5);    // cluster defaults
    EXPECT_EQ(e.cpu.burst_sensitivity, 0.3);     // cluster defaults
    EXPECT_EQ(e.cpu.min_allowed, q("1m"));       // built-in
    EXPECT_EQ(e.cluster_defaults, "cluster");
    EXPECT_EQ(e.namespace_defaults, "team");
    EXPECT_TRUE(has(e.inherited, "cpu.overhead"));
    EXPECT_TRUE(has(e.inherited, "cpu.maxChangePercent"));
    EXPECT_FALSE(has(e.inherited, "cpu.percentile"));
}

// Same scope: only the smallest metadata.name (byte-wise) counts.
TEST(DefaultsMerge, SmallestNameWinsAtOneScopeAndTheOthersAreIgnored) {
    const auto b = defaults("b", R"({"cpu":{"percentile":50},"memory":{"percentile":50}})");
    const auto a = defaults("a", R"({"cpu":{"percentile":90}})");
    const auto upper = defaults("Z", R"({"cpu":{"overhead":"77"}})");  // 'Z' < 'a' byte-wise
    auto e = merge(policy(), {b, a});
    EXPECT_EQ(e.cluster_defaults, "a");
    EXPECT_EQ(e.cpu.percentile, 90);
    EXPECT_EQ(e.memory.percentile, 99);  // "b" is ignored entirely, not merged field by field
    e = merge(policy(), {b, a, upper});
    EXPECT_EQ(e.cluster_defaults, "Z");
    EXPECT_EQ(e.cpu.overhead_percent, 77);
    EXPECT_EQ(e.cpu.percentile, 95);
    EXPECT_EQ(pick_defaults({}), nullptr);
}

// Granularity: per field, nil/""/0 are unset.
TEST(DefaultsMerge, LowerLayerFillsOnlyUnsetFields) {
    const auto cluster = defaults("c", R"({"memory":{"percentile":90,"allowDecrease":true,"overhead":"10"},
        "updateStrategy":{"type":"Observe","maxConcurrentResizes":4,"autoRevert":true}})");
    const auto e = merge(policy(R"({"memory":{"percentile":0,"allowDecrease":false,"overhead":""},
        "updateStrategy":{"maxConcurrentResizes":0,"autoRevert":false}})"), {cluster});
    EXPECT_EQ(e.memory.percentile, 90);            // 0 is unset: filled
    EXPECT_EQ(e.memory.overhead_percent, 10);      // "" is unset: filled
    EXPECT_FALSE(e.memory.allow_decrease);         // an explicit false (Go *bool) is kept
    EXPECT_EQ(e.update_strategy.type, UpdateMode::Observe);
    EXPECT_EQ(e.update_strategy.max_concurrent_resizes, 4);  // 0 counts as unset
    EXPECT_FALSE(e.update_strategy.auto_revert);
}

// Merged: metricsSource scalars and excludeKnownSidecars.
TEST(DefaultsMerge, MetricsSourceScalarsAndExcludeKnownSidecarsMerge) {
    const auto cluster = defaults("c", R"({"metricsSource":{"historyWindow":"48h","minimumDataPoints":12,"queryStep":"1m",
        "rateWindow":"2m","podAggregation":"None","cpuRecordingMetric":"c:rate","memoryRecordingMetric":"m:max"},
        "excludeKnownSidecars":false})");
    const auto e = merge(policy(R"({"metricsSource":{"queryStep":"30s"}})"), {cluster});
    EXPECT_EQ(e.metrics.history_window, 48h);
    EXPECT_EQ(e.metrics.minimum_data_points, 12);
    EXPECT_EQ(e.metrics.query_step, 30s);
    EXPECT_EQ(e.metrics.rate_window, 2min);
    EXPECT_EQ(e.metrics.pod_aggregation, PodAggregation::None);
    EXPECT_EQ(e.metrics.cpu_recording_metric, "c:rate");
    EXPECT_EQ(e.metrics.memory_recording_metric, "m:max");
    EXPECT_FALSE(e.exclude_known_sidecars);
    EXPECT_FALSE(e.excludes("istio-proxy"));
}

// Taken whole: schedule, export, canary, sloGuardrails, templatePersistence, startupBoost.
TEST(DefaultsMerge, BlocksAreTakenWholeNeverMixed) {
    const auto cluster = defaults("c", R"({
      "cpu":{"startupBoost":{"multiplier":"3","duration":"5m","excludeFromHistory":true}},
      "updateStrategy":{
        "schedule":{"windows":[{"start":"01:00","end":"02:00"}],"timezone":"Asia/Tokyo","daysOfWeek":["Sunday"]},
        "canary":{"percentage":50,"observationPeriod":"20m","autoPromote":true},
        "sloGuardrails":[{"name":"a","query":"qa","threshold":"1"},{"name":"b","query":"qb","threshold":"2"}],
        "templatePersistence":{"enabled":true,"when":"OnRecommendation"},
        "export":{"configMap":true,"pullRequest":{"enabled":true,"repository":"o/r"}}}})");
    const auto e = merge(policy(R"({
      "cpu":{"startupBoost":{"multiplier":"2","duration":"30s"}},
      "updateStrategy":{
        "schedule":{"windows":[{"start":"22:00","end":"23:00"}]},
        "canary":{"percentage":10,"observationPeriod":"0s"},
        "sloGuardrails":[{"name":"p","query":"qp","threshold":"3"}],
        "templatePersistence":{"enabled":false},
        "export":{"configMap":false}}})"), {cluster});
    ASSERT_TRUE(e.cpu.startup_boost);
    EXPECT_EQ(e.cpu.startup_boost->multiplier, 2.0);
    EXPECT_EQ(e.cpu.startup_boost->duration, 30s);
    EXPECT_FALSE(e.cpu.startup_boost->exclude_from_history);
    const auto& u = e.update_strategy;
    ASSERT_TRUE(u.schedule);
    EXPECT_EQ(u.schedule->windows, (std::vector<TimeWindow>{{22 * 60, 23 * 60}}));
    EXPECT_EQ(u.schedule->timezone, "UTC");   // not the defaults' Asia/Tokyo
    EXPECT_TRUE(u.schedule->days_of_week.empty());
    ASSERT_TRUE(u.canary);
    EXPECT_EQ(u.canary->percentage, 10);
    EXPECT_FALSE(u.canary->auto_promote);
    EXPECT_EQ(u.canary->observation_period, 5min);  // 0 in the spec: the default
    ASSERT_EQ(u.slo_guardrails.size(), 1u);
    EXPECT_EQ(u.slo_guardrails[0].name, "p");
    EXPECT_FALSE(u.template_persistence.enabled);
    EXPECT_EQ(u.template_persistence.when, TemplatePersistenceWhen::AfterSuccessfulResize);
    EXPECT_FALSE(u.export_.config_map);
    EXPECT_FALSE(u.export_.pull_request);

    // A policy without the blocks takes the defaults' blocks, whole.
    const auto inherited = merge(policy(), {cluster});
    ASSERT_TRUE(inherited.update_strategy.schedule);
    EXPECT_EQ(inherited.update_strategy.schedule->timezone, "Asia/Tokyo");
    EXPECT_EQ(inherited.update_strategy.slo_guardrails.size(), 2u);
    EXPECT_TRUE(inherited.cpu.startup_boost->exclude_from_history);
    ASSERT_TRUE(inherited.update_strategy.export_.pull_request);
    EXPECT_EQ(inherited.update_strategy.export_.pull_request->provider, "github");
    EXPECT_EQ(inherited.update_strategy.export_.pull_request->base_branch, "main");
    EXPECT_EQ(inherited.update_strategy.export_.pull_request->cooldown, 24h);
    EXPECT_EQ(inherited.update_strategy.export_.pull_request->min_change_percent, 10);
}

// Source blocks: prometheus from the policy if its address is set, else the defaults' block.
TEST(DefaultsMerge, PolicyPrometheusWithAnAddressWinsWhole) {
    const auto cluster = defaults("c", R"({"metricsSource":{"prometheus":{"address":"http://cluster-prom:9090","headers":{"A":"1"}}}})");
    auto e = merge(policy(R"({"metricsSource":{"prometheus":{"address":"http://mine:9090"}}})"), {cluster});
    auto* p = std::get_if<PrometheusSource>(&e.metrics.provider);
    ASSERT_NE(p, nullptr);
    EXPECT_EQ(p->address, "http://mine:9090");
    EXPECT_TRUE(p->headers.empty());  // never mixed with the defaults' headers

    e = merge(policy(R"({"metricsSource":{"prometheus":{"address":"","headers":{"B":"2"}}}})"), {cluster});
    p = std::get_if<PrometheusSource>(&e.metrics.provider);
    ASSERT_NE(p, nullptr);
    EXPECT_EQ(p->address, "http://cluster-prom:9090");
    EXPECT_EQ(p->headers, (StringMap{{"A", "1"}}));

    e = merge(policy());
    EXPECT_TRUE(std::holds_alternative<NoMetricsSource>(e.metrics.provider));  // auto-discovery
}

// Source blocks: vpa (and manual, datadog, cloudwatch) come from the policy only.
TEST(DefaultsMerge, VpaAndManualComeFromThePolicyOnly) {
    const auto cluster = defaults("c", R"({"metricsSource":{"vpa":{"name":"shared"},"prometheus":{"address":"http://p:9090"}}})");
    auto e = merge(policy(), {cluster});
    EXPECT_TRUE(std::holds_alternative<PrometheusSource>(e.metrics.provider));
    EXPECT_EQ(e.metrics.prometheus->address, "http://p:9090");

    e = merge(policy(R"({"metricsSource":{"vpa":{"name":"web-vpa"}}})"), {cluster});
    auto* v = std::get_if<VpaSource>(&e.metrics.provider);
    ASSERT_NE(v, nullptr);
    EXPECT_EQ(v->name, "web-vpa");
    EXPECT_EQ(v->namespace_, "shop");  // the policy's namespace by default
    EXPECT_EQ(v->selection, VpaSelection::Target);

    e = merge(policy(R"({"metricsSource":{"vpa":{"name":"v","namespace":"infra","selection":"LowerBound"}}})"));
    v = std::get_if<VpaSource>(&e.metrics.provider);
    ASSERT_NE(v, nullptr);
    EXPECT_EQ(v->namespace_, "infra");
    EXPECT_EQ(v->selection, VpaSelection::LowerBound);

    e = merge(policy(R"({"metricsSource":{"manual":{"containers":[{"name":"app","resources":{"requests":{"cpu":"1"}}}]}}})"), {cluster});
    auto* m = std::get_if<ManualSource>(&e.metrics.provider);
    ASSERT_NE(m, nullptr);
    EXPECT_EQ(m->containers.at("app").requests.at("cpu"), q("1"));
    // Instant queries (guardrails, the lifecycle's analysis) still have the defaults' Prometheus.
    ASSERT_TRUE(e.metrics.prometheus.has_value());
    EXPECT_EQ(e.metrics.prometheus->address, "http://p:9090");
    EXPECT_EQ(e.metrics.prometheus->origin, "AttuneDefaults c: spec.metricsSource.prometheus");
    EXPECT_FALSE(merge(policy(R"({"metricsSource":{"manual":{"containers":[{"name":"app","resources":{"requests":{"cpu":"1"}}}]}}})"))
                     .metrics.prometheus.has_value());

    e = merge(policy(R"({"metricsSource":{"datadog":{"apiKeySecretRef":{"name":"dd","key":"k"}}}})"));
    const auto* dd = std::get_if<DatadogSource>(&e.metrics.provider);
    ASSERT_NE(dd, nullptr);
    EXPECT_EQ(dd->site, "datadoghq.com");  // the CRD default, also when the object lacks it
    EXPECT_EQ(dd->api_key_secret_ref.name, "dd");
    EXPECT_EQ(dd->api_key_secret_ref.key, "k");
    e = merge(
        policy(R"({"metricsSource":{"datadog":{"site":"datadoghq.eu","apiKeySecretRef":{"name":"dd","key":"k"}}}})"));
    EXPECT_EQ(std::get<DatadogSource>(e.metrics.provider).site, "datadoghq.eu");
    e = merge(policy(R"({"metricsSource":{"cloudwatch":{"region":"eu-west-1","clusterName":"c"}}})"));
    const auto* cw = std::get_if<CloudWatchSource>(&e.metrics.provider);
    ASSERT_NE(cw, nullptr);
    EXPECT_EQ(cw->region, "eu-west-1");
    EXPECT_EQ(cw->cluster_name, "c");
    EXPECT_EQ(cw->cpu_unit, CloudWatchCpuUnit::Millicores);  // the default when cpuUnit is unset
    e = merge(policy(
        R"({"metricsSource":{"cloudwatch":{"region":"eu-west-1","clusterName":"c","roleArn":"arn:aws:iam::1:role/r","cpuUnit":"Nanocores"}}})"));
    EXPECT_EQ(std::get<CloudWatchSource>(e.metrics.provider).cpu_unit, CloudWatchCpuUnit::Nanocores);
    EXPECT_EQ(std::get<CloudWatchSource>(e.metrics.provider).role_arn, "arn:aws:iam::1:role/r");
}

// Both scopes exist: scalars merge, the cluster's prometheus block is dropped.
TEST(DefaultsMerge, BothScopesDropTheClusterPrometheusBlock) {
    const auto cluster = defaults("c", R"({"metricsSource":{"queryStep":"1m","prometheus":{"address":"http://cluster-prom:9090"}}})");
    const auto ns_without = defaults("team", R"({"metricsSource":{"historyWindow":"24h"}})", "shop");
    auto e = merge(policy(), {cluster}, {ns_without});
    EXPECT_TRUE(std::holds_alternative<NoMetricsSource>(e.metrics.provider));
    EXPECT_EQ(e.metrics.query_step, 1min);       // the cluster's scalars still merge
    EXPECT_EQ(e.metrics.history_window, 24h);

    const auto ns_with = defaults("team", R"({"metricsSource":{"prometheus":{"address":"http://team-prom:9090"}}})", "shop");
    e = merge(policy(), {cluster}, {ns_with});
    ASSERT_TRUE(std::holds_alternative<PrometheusSource>(e.metrics.provider));
    EXPECT_EQ(std::get<PrometheusSource>(e.metrics.provider).address, "http://team-prom:9090");

    e = merge(policy(), {cluster});  // the cluster alone offers its block
    ASSERT_TRUE(std::holds_alternative<PrometheusSource>(e.metrics.provider));
    EXPECT_EQ(std::get<PrometheusSource>(e.metrics.provider).address, "http://cluster-prom:9090");
}

// costPricing: the namespace block whole, else the cluster block, else 0.031 / 0.004.
TEST(DefaultsMerge, CostPricingBlockComesFromOneLayer) {
    const auto cluster = defaults("c", R"({"costPricing":{"cpuPerCoreHour":"0.05","memoryPerGiBHour":"0.02"}})");
    const auto ns = defaults("team", R"({"costPricing":{"cpuPerCoreHour":"0.04"}})", "shop");
    auto e = merge(policy(), {cluster}, {ns});
    EXPECT_EQ(e.cost_pricing.cpu_per_core_hour, 0.04);
    EXPECT_EQ(e.cost_pricing.memory_per_gib_hour, 0.004);  // built-in, not the cluster's 0.02
    e = merge(policy(), {cluster});
    EXPECT_EQ(e.cost_pricing.memory_per_gib_hour, 0.02);
    e = merge(policy());
    EXPECT_EQ(e.cost_pricing.cpu_per_core_hour, 0.031);
    EXPECT_EQ(e.cost_pricing.memory_per_gib_hour, 0.004);
}

// Built-ins (ctl): whatever is still unset after the merge.
TEST(DefaultsMerge, BuiltInsFillWhatIsStillUnset) {
    const auto e = merge(policy());
    EXPECT_EQ(e.weight, 100);
    EXPECT_FALSE(e.paused);
    EXPECT_EQ(e.cpu.percentile, 95);
    EXPECT_EQ(e.cpu.overhead_percent, 20);
    EXPECT_EQ(e.cpu.min_allowed, q("1m"));
    EXPECT_EQ(e.cpu.max_allowed, q("4000m"));
    EXPECT_EQ(e.cpu.controlled_values, ControlledValues::RequestsOnly);
    EXPECT_EQ(e.cpu.burst_sensitivity, 0.1);
    EXPECT_TRUE(e.cpu.allow_decrease);
    EXPECT_EQ(e.cpu.max_increase_percent, 50);
    EXPECT_EQ(e.cpu.max_decrease_percent, 50);
    EXPECT_EQ(e.memory.percentile, 99);
    EXPECT_EQ(e.memory.overhead_percent, 30);
    EXPECT_EQ(e.memory.min_allowed, q("4Mi"));
    EXPECT_EQ(e.memory.max_allowed, q("8Gi"));
    EXPECT_FALSE(e.memory.allow_decrease);
    EXPECT_EQ(e.memory.max_increase_percent, 30);
    EXPECT_EQ(e.memory.max_decrease_percent, 30);
    EXPECT_EQ(e.memory.decrease_usage_margin_percent, 10);
    EXPECT_EQ(e.metrics.history_window, 168h);
    EXPECT_EQ(e.metrics.minimum_data_points, 48);
    EXPECT_EQ(e.metrics.query_step, 5min);
    EXPECT_EQ(e.metrics.rate_window, 5min);
    EXPECT_EQ(e.metrics.pod_aggregation, PodAggregation::Max);
    const auto& u = e.update_strategy;
    EXPECT_EQ(u.type, UpdateMode::Recommend);
    EXPECT_EQ(u.cooldown, 1h);
    EXPECT_TRUE(u.auto_revert);
    EXPECT_EQ(u.resize_method, ResizeMethod::InPlaceOnly);
    EXPECT_EQ(u.max_concurrent_resizes, 1);
    EXPECT_EQ(u.max_status_recommendations, 100);
    EXPECT_TRUE(u.include_explanations_in_status);
    EXPECT_FALSE(u.max_total_cpu_increase);
    EXPECT_EQ(u.safety_observation_period, 5min);
    EXPECT_TRUE(e.exclude_known_sidecars);
    for (auto s : kKnownSidecars) EXPECT_TRUE(e.excludes(s)) << s;
    EXPECT_TRUE(e.inherited.empty());
    EXPECT_TRUE(e.clamped.empty());
}

// maxIncreasePercent / maxDecreasePercent default to maxChangePercent, from any layer.
TEST(DefaultsMerge, IncreaseAndDecreaseCapsDefaultToMaxChangePercent) {
    const auto cluster = defaults("c", R"({"cpu":{"maxChangePercent":20}})");
    auto e = merge(policy(R"({"cpu":{"maxIncreasePercent":70}})"), {cluster});
    EXPECT_EQ(e.cpu.max_increase_percent, 70);
    EXPECT_EQ(e.cpu.max_decrease_percent, 20);
    e = merge(policy(R"({"memory":{"maxChangePercent":15,"maxDecreasePercent":5}})"));
    EXPECT_EQ(e.memory.max_increase_percent, 15);
    EXPECT_EQ(e.memory.max_decrease_percent, 5);
}

// runtimeProfile: its values apply only to fields left unset after the merge.
TEST(DefaultsMerge, RuntimeProfilesFillOnlyUnsetFields) {
    const struct {
        const char* profile;
        bool cpu_allow_decrease;
        bool memory_allow_decrease;
        double memory_overhead;
    } cases[] = {
        {"java", true, false, 40}, {"python", true, false, 30}, {"nodejs", true, false, 30},
        {"golang", true, false, 30}, {"generic", true, false, 30},
    };
    for (const auto& c : cases) {
        const auto e = merge(policy(std::string(R"({"runtimeProfile":")") + c.profile + "\"}"));
        EXPECT_EQ(e.cpu.allow_decrease, c.cpu_allow_decrease) << c.profile;
        EXPECT_EQ(e.memory.allow_decrease, c.memory_allow_decrease) << c.profile;
        EXPECT_EQ(e.memory.overhead_percent, c.memory_overhead) << c.profile;
    }
    // Explicit values win, whether set by the policy or by a defaults object.
    auto e = merge(policy(R"({"runtimeProfile":"java","memory":{"allowDecrease":true}})"));
    EXPECT_TRUE(e.memory.allow_decrease);
    EXPECT_EQ(e.memory.overhead_percent, 40);
    const auto cluster = defaults("c", R"({"memory":{"overhead":"35","allowDecrease":true}})");
    e = merge(policy(R"({"runtimeProfile":"python"})"), {cluster});
    EXPECT_TRUE(e.memory.allow_decrease);
    e = merge(policy(R"({"runtimeProfile":"java"})"), {cluster});
    EXPECT_EQ(e.memory.overhead_percent, 35);
}

// The controller's clamps: historyWindow 1h..720h, queryStep 10s..1h, cooldown >= 1m.
TEST(DefaultsMerge, ClampsAreAppliedAndReported) {
    const struct {
        const char* spec;
        Duration history, step, rate, cooldown;
        const char* clamp;  // the text reported, "" for none
    } cases[] = {
        {R"({"metricsSource":{"historyWindow":"30m"}})", 1h, 5min, 5min, 1h,
         "metricsSource.historyWindow 30m0s raised to 1h0m0s"},
        {R"({"metricsSource":{"historyWindow":"1000h"}})", 720h, 5min, 5min, 1h,
         "metricsSource.historyWindow 1000h0m0s lowered to 720h0m0s"},
        {R"({"metricsSource":{"queryStep":"5s"}})", 168h, 10s, 10s, 1h, "metricsSource.queryStep 5s raised to 10s"},
        {R"({"metricsSource":{"queryStep":"2h"}})", 168h, 1h, 1h, 1h, "metricsSource.queryStep 2h0m0s lowered to 1h0m0s"},
        {R"({"metricsSource":{"historyWindow":"2h","rateWindow":"3h"}})", 2h, 5min, 2h, 1h,
         "metricsSource.rateWindow 3h0m0s lowered to 2h0m0s"},
        {R"({"updateStrategy":{"cooldown":"10s"}})", 168h, 5min, 5min, 1min,
         "updateStrategy.cooldown 10s raised to 1m0s"},
        {R"({"updateStrategy":{"cooldown":"0s"}})", 168h, 5min, 5min, 1min, "updateStrategy.cooldown 0s raised to 1m0s"},
        {R"({"metricsSource":{"historyWindow":"1h","queryStep":"10s"},"updateStrategy":{"cooldown":"1m"}})", 1h, 10s,
         10s, 1min, ""},
    };
    for (const auto& c : cases) {
        const auto e = merge(policy(c.spec));
        EXPECT_EQ(e.metrics.history_window, c.history) << c.spec;
        EXPECT_EQ(e.metrics.query_step, c.step) << c.spec;
        EXPECT_EQ(e.metrics.rate_window, c.rate) << c.spec;
        EXPECT_EQ(e.update_strategy.cooldown, c.cooldown) << c.spec;
        if (*c.clamp) {
            ASSERT_EQ(e.clamped.size(), 1u) << c.spec;
            EXPECT_EQ(e.clamped[0], c.clamp);
        } else {
            EXPECT_TRUE(e.clamped.empty()) << c.spec;
        }
    }
}

TEST(DefaultsMerge, SafetyObservationPeriodFallsBackToTheCanaryThenFiveMinutes) {
    EXPECT_EQ(merge(policy(R"({"updateStrategy":{"safetyObservationPeriod":"7m","canary":{"percentage":5,"observationPeriod":"9m"}}})"))
                  .update_strategy.safety_observation_period,
              7min);
    EXPECT_EQ(merge(policy(R"({"updateStrategy":{"safetyObservationPeriod":"0s","canary":{"percentage":5,"observationPeriod":"9m"}}})"))
                  .update_strategy.safety_observation_period,
              9min);
    EXPECT_EQ(merge(policy(R"({"updateStrategy":{"safetyObservationPeriod":"0s"}})")).update_strategy.safety_observation_period,
              5min);
}

// spec.lifecycle wins; else the canary shorthand (which a defaults object may
// give); else the built-in three steps (docs/lifecycle.md#defaults). maxConcurrentResizes falls
// back to updateStrategy's.
TEST(DefaultsMerge, LifecycleStepsFromSpecThenCanaryShorthandThenBuiltIn) {
    const auto own = merge(policy(
        R"({"lifecycle":{"steps":[{"percent":10,"pause":"30s"},{"percent":100}],"maxConcurrentResizes":3,
            "analysis":{"cpuThrottling":{"enabled":true,"window":"2m"}},"persistence":{"mode":"TemplatePatch"},
            "revalidationToken":"t1"},
            "updateStrategy":{"canary":{"percentage":50,"observationPeriod":"1m"},"maxConcurrentResizes":2}})"));
    ASSERT_EQ(own.lifecycle.steps.size(), 2u);
    EXPECT_EQ(own.lifecycle.steps[0], (LifecycleStep{10, 30s, false}));
    EXPECT_EQ(own.lifecycle.steps[1], (LifecycleStep{100, 0s, false}));
    EXPECT_EQ(own.lifecycle.max_concurrent_resizes, 3);
    EXPECT_TRUE(own.lifecycle.cpu_throttling.enabled);
    EXPECT_EQ(own.lifecycle.cpu_throttling.window, 120s);
    EXPECT_EQ(own.lifecycle.persistence, PersistenceMode::TemplatePatch);
    EXPECT_EQ(own.lifecycle.revalidation_token, "t1");

    const auto ns = defaults("team", R"({"updateStrategy":{"canary":{"percentage":20,"observationPeriod":"2m"},
                                        "maxConcurrentResizes":4}})", "shop");
    const auto shorthand = merge(policy(R"({"updateStrategy":{"type":"Canary"}})"), {}, {ns});
    ASSERT_EQ(shorthand.lifecycle.steps.size(), 2u);
    EXPECT_EQ(shorthand.lifecycle.steps[0], (LifecycleStep{20, 120s, true}));  // no autoPromote: holds
    EXPECT_EQ(shorthand.lifecycle.steps[1].percent, 100u);
    EXPECT_EQ(shorthand.lifecycle.max_concurrent_resizes, 4);

    const auto builtin = merge(policy(R"({"updateStrategy":{"type":"Canary"}})"));
    ASSERT_EQ(builtin.lifecycle.steps.size(), 3u);
    EXPECT_EQ(builtin.lifecycle.steps[0], (LifecycleStep{10, 300s, false}));
    EXPECT_EQ(builtin.lifecycle.max_concurrent_resizes, 1);
    EXPECT_EQ(builtin.lifecycle.persistence, PersistenceMode::AdmissionOnNextPodTemplateChange);
}

TEST(DefaultsMerge, ExcludedContainersAddTheKnownSidecarsWhenOn) {
    auto e = merge(policy(R"({"excludedContainers":["debug","istio-proxy"]})"));
    EXPECT_TRUE(e.excludes("debug"));
    EXPECT_TRUE(e.excludes("linkerd-proxy"));
    EXPECT_FALSE(e.excludes("app"));
    EXPECT_EQ(e.excluded_containers.size(), std::size(kKnownSidecars) + 1);  // sorted, unique
    e = merge(policy(R"({"excludedContainers":["debug"],"excludeKnownSidecars":false})"));
    EXPECT_EQ(e.excluded_containers, (std::vector<std::string>{"debug"}));
}

// containerPolicies: a literal name, else "*", else the policy's tuning.
TEST(DefaultsMerge, ContainerPoliciesOverlayLiteralThenStarThenPolicy) {
    const auto cluster = defaults("c", R"({"cpu":{"overhead":"5"}})");
    const auto e = merge(policy(R"({"runtimeProfile":"java","cpu":{"percentile":90},"containerPolicies":[
        {"containerName":"*","cpu":{"percentile":50,"maxAllowed":"1"}},
        {"containerName":"app","cpu":{"percentile":99}}]})"), {cluster});
    EXPECT_EQ(e.tuning_for("app", ResourceKind::Cpu).percentile, 99);      // literal
    EXPECT_EQ(e.tuning_for("app", ResourceKind::Cpu).max_allowed, q("1"));  // from "*"
    EXPECT_EQ(e.tuning_for("app", ResourceKind::Cpu).overhead_percent, 5);  // from the merged policy
    EXPECT_EQ(e.tuning_for("other", ResourceKind::Cpu).percentile, 50);    // "*"
    EXPECT_EQ(e.tuning_for("other", ResourceKind::Memory).overhead_percent, 40);  // java still applies
    const auto plain = merge(policy(R"({"cpu":{"percentile":90}})"));
    EXPECT_EQ(plain.tuning_for("app", ResourceKind::Cpu).percentile, 90);
}

TEST(DefaultsMerge, NewerUpstreamBlocksGetTheirDefaults) {
    const auto e = merge(policy(R"({"cpu":{"surge":{}},"memory":{"oomBump":{"maxBumps":5},"memoryFromCpuRatio":"2"},
                                   "updateStrategy":{"maxTotalCpuIncrease":"3"}})"));
    ASSERT_TRUE(e.cpu.surge);
    EXPECT_EQ(e.cpu.surge->trigger_ratio, 1.5);
    EXPECT_EQ(e.cpu.surge->percentile, 99);
    EXPECT_EQ(e.cpu.surge->window, 30min);
    ASSERT_TRUE(e.memory.oom_bump);
    EXPECT_EQ(e.memory.oom_bump->ratio, 1.2);
    EXPECT_EQ(e.memory.oom_bump->min_bump, q("100Mi"));
    EXPECT_EQ(e.memory.oom_bump->max_bumps, 5);
    EXPECT_EQ(e.memory.oom_bump->hold, 24h);
    EXPECT_EQ(e.memory.memory_from_cpu_ratio, 2.0);
    EXPECT_FALSE(e.cpu.memory_from_cpu_ratio);  // memory only, as Go reads it
    EXPECT_EQ(e.update_strategy.max_total_cpu_increase, q("3"));
}

// docs/api.md "Worked example": deploy/examples/defaults.yaml (as the
// apiserver stores it, CRD defaults applied) and the policy shown there.
TEST(DefaultsMerge, DocsWorkedExample) {
    const auto cluster = defaults("cluster-defaults", R"({
      "metricsSource":{"historyWindow":"336h","queryStep":"1m","prometheus":{"address":"http://prometheus.monitoring.svc:9090"}},
      "cpu":{"percentile":90,"overhead":"25","maxChangePercent":20},"memory":{"percentile":95},
      "updateStrategy":{"type":"Observe","cooldown":"2h","maxConcurrentResizes":1,
                        "schedule":{"windows":[{"start":"01:00","end":"05:00"}],"timezone":"UTC"}},
      "costPricing":{"cpuPerCoreHour":"0.05","memoryPerGiBHour":"0.006"},"excludeKnownSidecars":true})");
    const auto ignored = defaults("zz-legacy", R"({"cpu":{"percentile":50},"memory":{"overhead":"99"}})");
    const auto ns = defaults("team-defaults", R"({"metricsSource":{"minimumDataPoints":96},"cpu":{"overhead":"10"},
      "memory":{"allowDecrease":true,"maxAllowed":"2Gi"},"updateStrategy":{"type":"Recommend","maxConcurrentResizes":1}})", "shop");
    const auto e = merge(policy(R"({"runtimeProfile":"java","cpu":{"percentile":99},"memory":{},"weight":100,
                                   "excludedContainers":["debug-shell"]})"),
                         {ignored, cluster}, {ns});
    EXPECT_EQ(e.cluster_defaults, "cluster-defaults");
    EXPECT_EQ(e.namespace_defaults, "team-defaults");
    // cpu
    EXPECT_EQ(e.cpu.percentile, 99);
    EXPECT_EQ(e.cpu.overhead_percent, 10);
    EXPECT_EQ(e.cpu.min_allowed, q("1m"));
    EXPECT_EQ(e.cpu.max_allowed, q("4"));
    EXPECT_EQ(e.cpu.controlled_values, ControlledValues::RequestsOnly);
    EXPECT_EQ(e.cpu.burst_sensitivity, 0.1);
    EXPECT_TRUE(e.cpu.allow_decrease);
    EXPECT_EQ(e.cpu.max_increase_percent, 20);
    EXPECT_EQ(e.cpu.max_decrease_percent, 20);
    // memory
    EXPECT_EQ(e.memory.percentile, 95);
    EXPECT_EQ(e.memory.overhead_percent, 40);  // java, since no layer sets it
    EXPECT_EQ(e.memory.min_allowed, q("4Mi"));
    EXPECT_EQ(e.memory.max_allowed, q("2Gi"));
    EXPECT_TRUE(e.memory.allow_decrease);  // the namespace's explicit true beats java's false
    EXPECT_EQ(e.memory.max_increase_percent, 30);
    EXPECT_EQ(e.memory.decrease_usage_margin_percent, 10);
    // metricsSource: both scopes exist, so the cluster's prometheus block is dropped
    EXPECT_EQ(e.metrics.history_window, 336h);
    EXPECT_EQ(e.metrics.minimum_data_points, 96);
    EXPECT_EQ(e.metrics.query_step, 1min);
    EXPECT_EQ(e.metrics.rate_window, 1min);
    EXPECT_EQ(e.metrics.pod_aggregation, PodAggregation::Max);
    EXPECT_TRUE(std::holds_alternative<NoMetricsSource>(e.metrics.provider));
    // updateStrategy
    const auto& u = e.update_strategy;
    EXPECT_EQ(u.type, UpdateMode::Recommend);
    EXPECT_EQ(u.cooldown, 2h);
    ASSERT_TRUE(u.schedule);
    EXPECT_EQ(u.schedule->windows, (std::vector<TimeWindow>{{60, 300}}));
    EXPECT_EQ(u.max_concurrent_resizes, 1);
    EXPECT_TRUE(u.auto_revert);
    EXPECT_EQ(u.resize_method, ResizeMethod::InPlaceOnly);
    EXPECT_EQ(u.max_status_recommendations, 100);
    EXPECT_EQ(u.safety_observation_period, 5min);
    // the rest
    EXPECT_EQ(e.weight, 100);
    EXPECT_TRUE(e.excludes("debug-shell"));
    EXPECT_TRUE(e.excludes("istio-proxy"));
    EXPECT_EQ(e.cost_pricing.cpu_per_core_hour, 0.05);
    EXPECT_EQ(e.cost_pricing.memory_per_gib_hour, 0.006);
    EXPECT_EQ(e.inherited, (std::vector<std::string>{"cpu.overhead", "memory.maxAllowed", "memory.allowDecrease",
                                                     "metricsSource.minimumDataPoints", "updateStrategy.type",
                                                     "updateStrategy.maxConcurrentResizes", "cpu.maxChangePercent",
                                                     "memory.percentile", "metricsSource.historyWindow",
                                                     "metricsSource.queryStep", "updateStrategy.cooldown",
                                                     "updateStrategy.schedule", "excludeKnownSidecars"}));
    EXPECT_TRUE(e.clamped.empty());
}

}  // namespace
}  // namespace attune::core
