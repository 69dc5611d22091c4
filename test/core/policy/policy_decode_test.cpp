#include "attune/core/policy/policy.hpp"

#include <boost/json/parse.hpp>

#include <gtest/gtest.h>

namespace attune::core {
namespace {

using namespace std::chrono_literals;

Quantity q(const char* s) { return Quantity::parse(s).value(); }

// Every field of the API, as a user would write it.
constexpr const char* kFullPolicy = R"json({
  "apiVersion": "attune.io/v1alpha1", "kind": "AttunePolicy",
  "metadata": {"namespace": "shop", "name": "web", "uid": "u-1", "generation": 4,
               "annotations": {"attune.io/suppress-warnings": "CooldownActive"}},
  "spec": {
    "targetRef": {"kind": "Deployment", "selector": {"matchLabels": {"tier": "web"},
                  "matchExpressions": [{"key": "env", "operator": "In", "values": ["prod"]}]}},
    "metricsSource": {
      "historyWindow": "72h", "minimumDataPoints": 24, "queryStep": "1m", "rateWindow": "2m",
      "podAggregation": "Avg", "cpuRecordingMetric": "ns:cpu:rate5m", "memoryRecordingMetric": "ns:mem:max",
      "prometheus": {"address": "https://prom.monitoring:9090", "headers": {"X-Scope-OrgID": "team"},
                     "queryParameters": {"dedup": "true"}, "bearerTokenSecret": {"name": "prom", "key": "token"},
                     "tls": {"insecureSkipVerify": false, "ca": "-----BEGIN CERTIFICATE-----",
                             "caSecret": {"name": "prom-ca", "key": "ca.crt"}}}},
    "cpu": {"percentile": 90, "overhead": "15", "minAllowed": "50m", "maxAllowed": 2,
            "controlledValues": "RequestsAndLimits", "burstSensitivity": "0.2", "allowDecrease": false,
            "startupBoost": {"multiplier": "2", "duration": "90s", "excludeFromHistory": true},
            "maxChangePercent": 40, "maxIncreasePercent": 60, "limitMultiplier": "1.5",
            "surge": {"triggerRatio": "2", "percentile": 95, "window": "10m"}},
    "memory": {"percentile": 95, "overhead": "25.5", "minAllowed": "64Mi", "maxAllowed": "4Gi",
               "allowDecrease": true, "memoryFromCpuRatio": "2", "maxDecreasePercent": 10,
               "decreaseUsageMarginPercent": 0, "oomBump": {"ratio": "1.5", "minBump": "200Mi", "maxBumps": 2, "hold": "12h"}},
    "paused": false,
    "updateStrategy": {
      "type": "Canary", "canary": {"percentage": 25, "observationPeriod": "10m", "autoPromote": true},
      "cooldown": "30m", "initialSizing": true, "autoRevert": false, "resizeMethod": "InPlaceOrRecreate",
      "schedule": {"windows": [{"start": "22:00", "end": "06:00"}], "daysOfWeek": ["Monday", "friday"],
                   "timezone": "Europe/Berlin"},
      "maxConcurrentResizes": 3, "maxStatusRecommendations": 50, "includeExplanationsInStatus": false,
      "maxTotalCpuIncrease": "2", "maxTotalMemoryIncrease": "4Gi", "safetyObservationPeriod": "15m",
      "sloGuardrails": [{"name": "p99", "query": "histogram_quantile(0.99, x)", "threshold": "0.5",
                         "comparison": "below", "evaluationWindow": "10m"}],
      "templatePersistence": {"enabled": true, "when": "OnRecommendation"},
      "export": {"configMap": true, "pullRequest": {"enabled": true, "provider": "gitlab",
                 "tokenSecretRef": {"name": "gl", "key": "token"}, "repository": "group/project",
                 "baseBranch": "develop", "apiUrl": "https://gitlab.example.com/api/v4", "cooldown": "12h",
                 "minChangePercent": 20, "labels": ["attune"], "dryRun": true}},
      "maxCpuIncreasePerMinute": "500m", "maxMemoryIncreasePerMinute": "1Gi",
      "hpaTargetBounds": {"cpu": {"min": 50, "max": 90}}},
    "excludedContainers": ["debug"],
    "excludeKnownSidecars": false,
    "weight": 200,
    "runtimeProfile": "java",
    "containerPolicies": [{"containerName": "app", "cpu": {"percentile": 99}}, {"containerName": "*", "memory": {"overhead": "50"}}]
  }})json";

TEST(PolicyDecode, FullPolicyKeepsEveryField) {
    auto r = decode_attune_policy(boost::json::parse(kFullPolicy));
    ASSERT_TRUE(r.ok()) << r.error().message;
    const auto& p = r.value();
    EXPECT_EQ(p.meta.namespace_, "shop");
    EXPECT_EQ(p.meta.name, "web");
    EXPECT_EQ(p.meta.uid, "u-1");
    EXPECT_EQ(p.meta.generation, 4);
    EXPECT_EQ(p.meta.annotations.at("attune.io/suppress-warnings"), "CooldownActive");

    const auto& s = p.spec;
    EXPECT_EQ(s.target_ref.kind, TargetKind::Deployment);
    EXPECT_FALSE(s.target_ref.name);
    ASSERT_TRUE(s.target_ref.selector);
    EXPECT_TRUE(s.target_ref.selector->matches({{"tier", "web"}, {"env", "prod"}}));
    EXPECT_FALSE(s.target_ref.selector->matches({{"tier", "web"}, {"env", "dev"}}));

    const auto& m = s.metrics_source;
    EXPECT_EQ(m.history_window, 72h);
    EXPECT_EQ(m.minimum_data_points, 24);
    EXPECT_EQ(m.query_step, 1min);
    EXPECT_EQ(m.rate_window, 2min);
    EXPECT_EQ(m.pod_aggregation, PodAggregation::Avg);
    EXPECT_EQ(m.cpu_recording_metric, "ns:cpu:rate5m");
    EXPECT_EQ(m.memory_recording_metric, "ns:mem:max");
    ASSERT_TRUE(m.prometheus);
    EXPECT_EQ(m.prometheus->address, "https://prom.monitoring:9090");
    EXPECT_EQ(m.prometheus->headers.at("X-Scope-OrgID"), "team");
    EXPECT_EQ(m.prometheus->query_parameters.at("dedup"), "true");
    EXPECT_EQ(m.prometheus->bearer_token_secret, (SecretKeyRef{"prom", "token"}));
    ASSERT_TRUE(m.prometheus->tls);
    EXPECT_EQ(m.prometheus->tls->ca, "-----BEGIN CERTIFICATE-----");
    EXPECT_EQ(m.prometheus->tls->ca_secret, (SecretKeyRef{"prom-ca", "ca.crt"}));

    EXPECT_EQ(s.cpu.percentile, 90);
    EXPECT_EQ(s.cpu.overhead_percent, 15.0);
    EXPECT_EQ(s.cpu.min_allowed, q("50m"));
    EXPECT_EQ(s.cpu.max_allowed, q("2"));  // a JSON number is a quantity too
    EXPECT_EQ(s.cpu.controlled_values, ControlledValues::RequestsAndLimits);
    EXPECT_EQ(s.cpu.burst_sensitivity, 0.2);
    EXPECT_EQ(s.cpu.allow_decrease, false);  // an explicit false is set
    ASSERT_TRUE(s.cpu.startup_boost);
    EXPECT_EQ(s.cpu.startup_boost->multiplier, 2.0);
    EXPECT_EQ(s.cpu.startup_boost->duration, 90s);
    EXPECT_TRUE(s.cpu.startup_boost->exclude_from_history);
    EXPECT_EQ(s.cpu.max_change_percent, 40);
    EXPECT_EQ(s.cpu.max_increase_percent, 60);
    EXPECT_EQ(s.cpu.limit_multiplier, 1.5);
    ASSERT_TRUE(s.cpu.surge);
    EXPECT_EQ(s.cpu.surge->window, 10min);
    EXPECT_EQ(s.memory.overhead_percent, 25.5);
    EXPECT_EQ(s.memory.memory_from_cpu_ratio, 2.0);
    EXPECT_EQ(s.memory.max_decrease_percent, 10);
    EXPECT_EQ(s.memory.decrease_usage_margin_percent, 0);  // a Go *int32: 0 is set
    ASSERT_TRUE(s.memory.oom_bump);
    EXPECT_EQ(s.memory.oom_bump->min_bump, q("200Mi"));
    EXPECT_EQ(s.memory.oom_bump->hold, 12h);

    const auto& u = s.update_strategy;
    EXPECT_EQ(u.type, UpdateMode::Canary);
    ASSERT_TRUE(u.canary);
    EXPECT_EQ(u.canary->percentage, 25);
    EXPECT_EQ(u.canary->observation_period, 10min);
    EXPECT_TRUE(u.canary->auto_promote);
    EXPECT_EQ(u.cooldown, 30min);
    EXPECT_EQ(u.initial_sizing, true);
    EXPECT_EQ(u.auto_revert, false);
    EXPECT_EQ(u.resize_method, ResizeMethod::InPlaceOrRecreate);
    ASSERT_TRUE(u.schedule);
    EXPECT_EQ(u.schedule->windows, (std::vector<TimeWindow>{{22 * 60, 6 * 60}}));
    EXPECT_EQ(u.schedule->days_of_week, (std::vector<Weekday>{Weekday::Monday, Weekday::Friday}));
    EXPECT_EQ(u.schedule->timezone, "Europe/Berlin");
    EXPECT_EQ(u.max_concurrent_resizes, 3);
    EXPECT_EQ(u.max_status_recommendations, 50);
    EXPECT_EQ(u.include_explanations_in_status, false);
    EXPECT_EQ(u.max_total_cpu_increase, q("2"));
    EXPECT_EQ(u.max_total_memory_increase, q("4Gi"));
    EXPECT_EQ(u.safety_observation_period, 15min);
    ASSERT_EQ(u.slo_guardrails.size(), 1u);
    EXPECT_EQ(u.slo_guardrails[0].threshold, 0.5);
    EXPECT_EQ(u.slo_guardrails[0].comparison, SloComparison::Below);
    ASSERT_TRUE(u.template_persistence);
    EXPECT_EQ(u.template_persistence->when, TemplatePersistenceWhen::OnRecommendation);
    ASSERT_TRUE(u.export_ && u.export_->pull_request);
    EXPECT_TRUE(u.export_->config_map);
    EXPECT_EQ(u.export_->pull_request->provider, "gitlab");
    EXPECT_EQ(u.export_->pull_request->labels, (std::vector<std::string>{"attune"}));
    EXPECT_EQ(u.max_cpu_increase_per_minute, q("500m"));
    ASSERT_TRUE(u.hpa_target_bounds && u.hpa_target_bounds->cpu);
    EXPECT_EQ(u.hpa_target_bounds->cpu->max, 90);

    EXPECT_EQ(s.excluded_containers, (std::vector<std::string>{"debug"}));
    EXPECT_EQ(s.exclude_known_sidecars, false);
    EXPECT_EQ(s.weight, 200);
    EXPECT_EQ(s.runtime_profile, RuntimeProfile::Java);
    ASSERT_EQ(s.container_policies.size(), 2u);
    EXPECT_EQ(s.container_policies[1].container_name, "*");
    EXPECT_EQ(s.container_policies[1].memory.overhead_percent, 50.0);
}

// The Go zero values of non-pointer fields mean "unset" (docs/api.md#the-defaults-merge).
TEST(PolicyDecode, GoZeroValuesOfNonPointerFieldsAreUnset) {
    auto r = decode_attune_policy(boost::json::parse(R"({"metadata":{"namespace":"n","name":"p"},
      "spec":{"targetRef":{"kind":"Job","name":"batch"},"weight":0,"runtimeProfile":"",
              "cpu":{"percentile":0,"overhead":""},"memory":{},
              "metricsSource":{"podAggregation":"","cpuRecordingMetric":""},
              "updateStrategy":{"type":"","maxConcurrentResizes":0,"resizeMethod":""}}})"));
    ASSERT_TRUE(r.ok()) << r.error().message;
    const auto& s = r.value().spec;
    EXPECT_EQ(s.target_ref.kind, TargetKind::Job);
    EXPECT_EQ(s.target_ref.name, "batch");
    EXPECT_FALSE(s.weight);
    EXPECT_FALSE(s.runtime_profile);
    EXPECT_FALSE(s.cpu.percentile);
    EXPECT_FALSE(s.cpu.overhead_percent);
    EXPECT_FALSE(s.metrics_source.pod_aggregation);
    EXPECT_FALSE(s.metrics_source.cpu_recording_metric);
    EXPECT_FALSE(s.update_strategy.type);
    EXPECT_FALSE(s.update_strategy.max_concurrent_resizes);
    EXPECT_FALSE(s.update_strategy.resize_method);
}

TEST(PolicyDecode, ManualSourceAndVpaSelection) {
    auto r = decode_attune_policy(boost::json::parse(R"({"metadata":{"namespace":"n","name":"p"},
      "spec":{"targetRef":{"kind":"StatefulSet","name":"db"},"cpu":{},"memory":{},
              "metricsSource":{"manual":{"containers":[{"name":"app","resources":{"requests":{"cpu":"250m"},"limits":{"memory":"1Gi"}}},
                                                       {"name":"side"}]}}}})"));
    ASSERT_TRUE(r.ok()) << r.error().message;
    const auto& manual = r.value().spec.metrics_source.manual;
    ASSERT_TRUE(manual);
    EXPECT_EQ(manual->containers.at("app").requests.at("cpu"), q("250m"));
    EXPECT_EQ(manual->containers.at("app").limits.at("memory"), q("1Gi"));
    EXPECT_TRUE(manual->containers.at("side").requests.empty());

    auto v = decode_attune_policy(boost::json::parse(R"({"metadata":{"namespace":"n","name":"p"},
      "spec":{"targetRef":{"kind":"Deployment","name":"web"},"cpu":{},"memory":{},
              "metricsSource":{"vpa":{"name":"web-vpa","selection":"UpperBound"}}}})"));
    ASSERT_TRUE(v.ok()) << v.error().message;
    EXPECT_EQ(v.value().spec.metrics_source.vpa->selection, VpaSelection::UpperBound);
}

TEST(PolicyDecode, ErrorsNameTheJsonPath) {
    const struct {
        const char* name;
        const char* spec;  // the value of "spec"
        const char* want;  // the start of the message
    } cases[] = {
        {"no target", R"({})", "spec.targetRef: required"},
        {"lifecycle steps not ending at 100", R"({"targetRef":{"kind":"Job","name":"x"},"lifecycle":{"steps":[{"percent":10}]}})",
         "spec.lifecycle.steps"},
        {"unknown kind", R"({"targetRef":{"kind":"Pod","name":"x"}})",
         "spec.targetRef.kind: \"Pod\" is not one of Deployment, StatefulSet, DaemonSet, ReplicaSet, Job, CronJob"},
        {"name and selector", R"({"targetRef":{"kind":"Job","name":"x","selector":{"matchLabels":{"a":"b"}}}})",
         "spec.targetRef: set exactly one of name or selector"},
        {"neither name nor selector", R"({"targetRef":{"kind":"Job"}})", "spec.targetRef: set exactly one"},
        {"empty selector", R"({"targetRef":{"kind":"Job","selector":{}}})",
         "spec.targetRef.selector: must include at least one"},
        {"bad selector", R"({"targetRef":{"kind":"Job","selector":{"matchExpressions":[{"key":"a","operator":"In"}]}}})",
         "spec.targetRef.selector.matchExpressions[0]: In needs values"},
        {"non-numeric overhead", R"({"targetRef":{"kind":"Job","name":"x"},"cpu":{"overhead":"lots"}})",
         "spec.cpu.overhead: \"lots\" is not a finite number"},
        {"bad quantity", R"({"targetRef":{"kind":"Job","name":"x"},"memory":{"maxAllowed":"8 gigs"}})",
         "spec.memory.maxAllowed: "},
        {"quantity of the wrong type", R"({"targetRef":{"kind":"Job","name":"x"},"memory":{"minAllowed":true}})",
         "spec.memory.minAllowed: expected a quantity"},
        {"bad duration", R"({"targetRef":{"kind":"Job","name":"x"},"metricsSource":{"queryStep":"5 minutes"}})",
         "spec.metricsSource.queryStep: \"5 minutes\" is not a duration"},
        {"bad enum", R"({"targetRef":{"kind":"Job","name":"x"},"updateStrategy":{"type":"Sometimes"}})",
         "spec.updateStrategy.type: \"Sometimes\" is not one of Observe, Recommend, OneShot, Canary, Auto"},
        {"bad window", R"({"targetRef":{"kind":"Job","name":"x"},"updateStrategy":{"schedule":{"windows":[{"start":"25:00","end":"01:00"}]}}})",
         "spec.updateStrategy.schedule.windows[0].start: \"25:00\" is not a time between 00:00 and 23:59"},
        {"bad day", R"({"targetRef":{"kind":"Job","name":"x"},"updateStrategy":{"schedule":{"daysOfWeek":["Funday"]}}})",
         "spec.updateStrategy.schedule.daysOfWeek[0]: \"Funday\" is not a day of the week"},
        {"boost without duration", R"({"targetRef":{"kind":"Job","name":"x"},"cpu":{"startupBoost":{"multiplier":"2"}}})",
         "spec.cpu.startupBoost.duration: required"},
        {"secret without key", R"({"targetRef":{"kind":"Job","name":"x"},"metricsSource":{"prometheus":{"address":"http://p","bearerTokenSecret":{"name":"s"}}}})",
         "spec.metricsSource.prometheus.bearerTokenSecret.key: required"},
        {"header not a string", R"({"targetRef":{"kind":"Job","name":"x"},"metricsSource":{"prometheus":{"address":"http://p","headers":{"X":1}}}})",
         "spec.metricsSource.prometheus.headers.X: expected a string"},
        {"manual container twice", R"({"targetRef":{"kind":"Job","name":"x"},"metricsSource":{"manual":{"containers":[{"name":"a"},{"name":"a"}]}}})",
         "spec.metricsSource.manual.containers[1].name: \"a\" is listed twice"},
        {"manual bad quantity", R"({"targetRef":{"kind":"Job","name":"x"},"metricsSource":{"manual":{"containers":[{"name":"a","resources":{"requests":{"cpu":"x"}}}]}}})",
         "spec.metricsSource.manual.containers[0].resources.requests.cpu"},
        {"threshold not a number", R"({"targetRef":{"kind":"Job","name":"x"},"updateStrategy":{"sloGuardrails":[{"name":"a","query":"q","threshold":"NaN"}]}})",
         "spec.updateStrategy.sloGuardrails[0].threshold: \"NaN\" is not a finite number"},
        {"weight not an integer", R"({"targetRef":{"kind":"Job","name":"x"},"weight":"high"})", "spec.weight: expected an integer"},
        {"percent beyond int32", R"({"targetRef":{"kind":"Job","name":"x"},"cpu":{"maxChangePercent":4294967296}})",
         "spec.cpu.maxChangePercent: out of the int32 range"},
        {"cpu not an object", R"({"targetRef":{"kind":"Job","name":"x"},"cpu":[]})", "spec.cpu: expected an object"},
    };
    for (const auto& c : cases) {
        const std::string doc = std::string(R"({"metadata":{"namespace":"n","name":"p"},"spec":)") + c.spec + "}";
        auto r = decode_attune_policy(boost::json::parse(doc));
        ASSERT_FALSE(r.ok()) << c.name;
        EXPECT_EQ(r.error().code, "invalid_policy") << c.name;
        EXPECT_EQ(r.error().message.rfind(c.want, 0), 0u) << c.name << ": got \"" << r.error().message << "\"";
    }
}

TEST(PolicyDecode, MetadataIsRequired) {
    for (const char* doc : {R"([])", R"({"spec":{}})", R"({"metadata":{"name":"p"},"spec":{}})",
                            R"({"metadata":{"namespace":"n"},"spec":{}})"}) {
        auto r = decode_attune_policy(boost::json::parse(doc));
        EXPECT_FALSE(r.ok()) << doc;
    }
}

TEST(DefaultsDecode, BothKindsShareOneSpec) {
    auto r = decode_attune_defaults(boost::json::parse(R"({"kind":"AttuneNamespaceDefaults",
      "metadata":{"namespace":"shop","name":"team"},
      "spec":{"metricsSource":{"queryStep":"1m","prometheus":{"address":"http://prom:9090"}},
              "cpu":{"percentile":99},"updateStrategy":{"type":"Observe"},
              "costPricing":{"cpuPerCoreHour":"0.05","memoryPerGiBHour":"0.01"},"excludeKnownSidecars":false}})"));
    ASSERT_TRUE(r.ok()) << r.error().message;
    const auto& d = r.value();
    EXPECT_EQ(d.meta.namespace_, "shop");
    EXPECT_EQ(d.spec.metrics_source.query_step, 1min);
    EXPECT_EQ(d.spec.metrics_source.prometheus->address, "http://prom:9090");
    EXPECT_EQ(d.spec.cpu.percentile, 99);
    EXPECT_EQ(d.spec.update_strategy.type, UpdateMode::Observe);
    EXPECT_EQ(d.spec.cost_pricing->cpu_per_core_hour, 0.05);
    EXPECT_EQ(d.spec.exclude_known_sidecars, false);

    auto cluster = decode_attune_defaults(boost::json::parse(R"({"metadata":{"name":"default"}})"));
    ASSERT_TRUE(cluster.ok()) << cluster.error().message;  // no spec at all is fine
    EXPECT_TRUE(cluster.value().meta.namespace_.empty());

    auto bad = decode_attune_defaults(boost::json::parse(R"({"metadata":{"name":"d"},"spec":{"costPricing":{"cpuPerCoreHour":"cheap"}}})"));
    ASSERT_FALSE(bad.ok());
    EXPECT_EQ(bad.error().code, "invalid_defaults");
    EXPECT_EQ(bad.error().message.rfind("spec.costPricing.cpuPerCoreHour: ", 0), 0u) << bad.error().message;
}

}  // namespace
}  // namespace attune::core
