#include "attune/core/admission/policy_admission.hpp"

#include <gtest/gtest.h>

#include <boost/json.hpp>

#include <algorithm>

#include "attune/core/util/json_patch.hpp"

namespace attune::core {
namespace {
namespace json = boost::json;

// Zones the fake database holds.
std::string fake_zones(std::string_view zone) {
    return zone == "UTC" || zone == "Europe/Berlin" ? "" : "not in the zone database (/usr/share/zoneinfo)";
}

json::value policy(std::string_view spec) {
    return json::parse(R"({"apiVersion":"attune.io/v1alpha1","kind":"AttunePolicy",
      "metadata":{"name":"web","namespace":"shop"},"spec":)" +
                       std::string(spec) + "}");
}

json::value defaults(std::string_view kind, std::string_view spec) {
    return json::parse(R"({"apiVersion":"attune.io/v1alpha1","kind":")" + std::string(kind) +
                       R"(","metadata":{"name":"team"},"spec":)" + std::string(spec) + "}");
}

constexpr const char* kTarget = R"("targetRef":{"kind":"Deployment","name":"web"},"cpu":{},)";

struct Case {
    const char* name;
    PolicyKind kind;
    std::string spec;
    bool allowed;
    std::string message;                // a part of the refusal
    std::vector<std::string> warnings;  // each a part of one warning, in order; exact count
};

class PolicyAdmissionTable : public ::testing::TestWithParam<Case> {};

TEST_P(PolicyAdmissionTable, Decides) {
    const auto& c = GetParam();
    const auto object = c.kind == PolicyKind::AttunePolicy ? policy(c.spec) : defaults(to_string(c.kind), c.spec);
    PolicyAdmissionInput in;
    in.kind = c.kind;
    in.object = &object;
    in.namespace_ = c.kind == PolicyKind::AttuneDefaults ? "" : "shop";
    in.check_time_zone = fake_zones;
    const auto got = admit_policy_object(in);
    EXPECT_EQ(got.allowed, c.allowed) << got.message;
    if (!c.message.empty()) {
        EXPECT_NE(got.message.find(c.message), std::string::npos) << got.message;
    }
    ASSERT_EQ(got.warnings.size(), c.warnings.size()) << (got.warnings.empty() ? "" : got.warnings.front());
    for (std::size_t i = 0; i < c.warnings.size(); ++i)
        EXPECT_NE(got.warnings[i].find(c.warnings[i]), std::string::npos) << got.warnings[i];
}

std::string spec(std::string_view rest) { return "{" + std::string(kTarget) + std::string(rest) + "}"; }

INSTANTIATE_TEST_SUITE_P(
    Cases, PolicyAdmissionTable,
    ::testing::Values(
        Case{"a_plain_policy", PolicyKind::AttunePolicy, spec(R"("memory":{})"), true, "", {}},
        Case{"an_unknown_zone_is_refused",
             PolicyKind::AttunePolicy,
             spec(R"("memory":{},"updateStrategy":{"type":"Auto","schedule":{"timezone":"Mars/Phobos",
                   "windows":[{"start":"01:00","end":"05:00"}]}})"),
             false,
             "spec.updateStrategy.schedule.timezone \"Mars/Phobos\" is not a time zone of the zone database: not in "
             "the zone database",
             {}},
        Case{"a_known_zone",
             PolicyKind::AttunePolicy,
             spec(R"("memory":{},"updateStrategy":{"type":"Auto","schedule":{"timezone":"Europe/Berlin",
                   "windows":[{"start":"01:00","end":"05:00"}]}})"),
             true,
             "",
             {}},
        Case{"a_policy_that_does_not_decode",
             PolicyKind::AttunePolicy,
             spec(R"("memory":{"overhead":"lots"})"),
             false,
             "spec.memory.overhead",
             {}},
        Case{"no_target", PolicyKind::AttunePolicy, R"({"cpu":{},"memory":{}})", false, "spec.targetRef", {}},
        Case{"the_controller_validation_refuses_a_loopback_address",
             PolicyKind::AttunePolicy,
             spec(R"("memory":{},"metricsSource":{"prometheus":{"address":"http://127.0.0.1:9090"}})"),
             false,
             "127.0.0.1 is a loopback address",
             {}},
        Case{"a_secret_reference_while_secret_reads_are_off",
             PolicyKind::AttunePolicy,
             spec(R"("memory":{},"metricsSource":{"prometheus":{"address":"https://prom:9090",
                   "bearerTokenSecret":{"name":"tok","key":"t"}}})"),
             false,
             "needs Secret reads, which are off",
             {}},
        Case{
            "container_policy_bounds",
            PolicyKind::AttunePolicy,
            spec(
                R"("memory":{},"containerPolicies":[{"containerName":"app","cpu":{"minAllowed":"2","maxAllowed":"1"}}])"),
            false,
            "spec.containerPolicies \"app\": cpu.minAllowed 2 exceeds maxAllowed 1",
            {}},
        Case{"runtime_profile_against_an_explicit_allow_decrease",
             PolicyKind::AttunePolicy,
             spec(R"("runtimeProfile":"java","memory":{"allowDecrease":true},"updateStrategy":{"type":"Auto"})"),
             true,
             "",
             {"memory.allowDecrease lowers memory in place, which can OOM-kill a container whose usage grows back",
              "runtimeProfile java advises against lowering memory in place"}},
        Case{"golang_gives_no_runtime_warning",
             PolicyKind::AttunePolicy,
             spec(R"("runtimeProfile":"golang","memory":{"allowDecrease":true})"),
             true,
             "",
             {"memory.allowDecrease lowers memory in place"}},
        Case{"paused_while_resizing",
             PolicyKind::AttunePolicy,
             spec(R"("memory":{},"paused":true,"updateStrategy":{"type":"OneShot"})"),
             true,
             "",
             {"spec.paused is set: this OneShot policy queries and resizes nothing until it is cleared"}},
        Case{"settings_a_non_resizing_mode_ignores",
             PolicyKind::AttunePolicy,
             spec(R"("memory":{},"updateStrategy":{"initialSizing":true,"autoRevert":true,"resizeMethod":"InPlaceOnly",
                   "maxTotalCpuIncrease":"2","maxTotalMemoryIncrease":"1Gi"})"),
             true,
             "",
             {"initialSizing does nothing under Recommend: only Auto, OneShot and Canary size pods",
              "autoRevert does nothing under Recommend", "resizeMethod does nothing under Recommend",
              "maxTotalCpuIncrease does nothing under Recommend",
              "maxTotalMemoryIncrease does nothing under Recommend"}},
        Case{"observe_exports_nothing",
             PolicyKind::AttunePolicy,
             spec(R"("memory":{},"updateStrategy":{"type":"Observe","export":{"configMap":true},
                   "templatePersistence":{"enabled":true}})"),
             true,
             "",
             {"export.configMap does nothing under Observe",
              "templatePersistence.when AfterSuccessfulResize never fires under Observe",
              "templatePersistence does nothing under Observe"}},
        Case{
            "canary_block_outside_canary",
            PolicyKind::AttunePolicy,
            spec(
                R"("memory":{},"updateStrategy":{"type":"Auto","canary":{"percentage":10,"observationPeriod":"10m"}})"),
            true,
            "",
            {"updateStrategy.canary does nothing under Auto"}},
        Case{"oneshot_concurrency",
             PolicyKind::AttunePolicy,
             spec(R"("memory":{},"updateStrategy":{"type":"OneShot","maxConcurrentResizes":3})"),
             true,
             "",
             {"maxConcurrentResizes above 1 does nothing under OneShot"}},
        Case{"memory_from_cpu_ratio",
             PolicyKind::AttunePolicy,
             spec(R"("memory":{"memoryFromCpuRatio":"2","percentile":95,"overhead":"10"})"),
             true,
             "",
             {"memory.percentile is ignored with memoryFromCpuRatio",
              "memory.overhead is ignored with memoryFromCpuRatio"}},
        Case{"memory_startup_boost",
             PolicyKind::AttunePolicy,
             spec(R"("memory":{"startupBoost":{"multiplier":"2","duration":"30s"}})"),
             true,
             "",
             {"memory.startupBoost is ignored: the startup boost raises CPU only"}},
        Case{
            "defaults_with_an_unknown_zone",
            PolicyKind::AttuneDefaults,
            R"({"updateStrategy":{"schedule":{"timezone":"Mars/Phobos","windows":[{"start":"01:00","end":"02:00"}]}}})",
            false,
            "\"Mars/Phobos\" is not a time zone of the zone database",
            {}},
        Case{"namespace_defaults_with_a_metadata_address",
             PolicyKind::AttuneNamespaceDefaults,
             R"({"metricsSource":{"prometheus":{"address":"http://169.254.169.254/"}}})",
             false,
             "AttuneNamespaceDefaults team: spec.metricsSource.prometheus.address",
             {}},
        Case{"defaults_that_do_not_decode",
             PolicyKind::AttuneDefaults,
             R"({"cpu":{"percentile":"high"}})",
             false,
             "spec.cpu.percentile",
             {}},
        Case{"defaults_memory_boost",
             PolicyKind::AttuneNamespaceDefaults,
             R"({"memory":{"startupBoost":{"multiplier":"2","duration":"30s"}}})",
             true,
             "",
             {"memory.startupBoost is ignored"}},
        Case{"plain_defaults", PolicyKind::AttuneDefaults, R"({"cpu":{"percentile":95}})", true, "", {}}),
    [](const auto& param_info) { return std::string(param_info.param.name); });

TEST(PolicyAdmission, NoObjectIsRefusedWithAClearMessage) {
    PolicyAdmissionInput in;
    EXPECT_FALSE(admit_policy_object(in).allowed);
    const json::value not_an_object = json::array{1, 2};
    in.object = &not_an_object;
    const auto got = admit_policy_object(in);
    EXPECT_FALSE(got.allowed);
    EXPECT_EQ(got.message, "the request carries no AttunePolicy object");
}

TEST(PolicyAdmission, AGeneratedNameAndANamespaceFromTheRequestAreEnough) {
    const auto object = json::parse(
        R"({"metadata":{"generateName":"web-"},"spec":{"targetRef":{"kind":"Deployment","name":"web"},"cpu":{},"memory":{}}})");
    PolicyAdmissionInput in;
    in.object = &object;
    in.namespace_ = "shop";
    EXPECT_TRUE(admit_policy_object(in).allowed) << admit_policy_object(in).message;
}

TEST(PolicyAdmission, ModeComesFromTheDefaultsTiers) {
    // type unset on the policy; the namespace tier makes it Auto, so
    // initialSizing has effect and no warning is due.
    const auto object = policy(spec(R"("memory":{},"updateStrategy":{"initialSizing":true})"));
    auto tier = decode_attune_defaults(defaults("AttuneNamespaceDefaults", R"({"updateStrategy":{"type":"Auto"}})"));
    ASSERT_TRUE(tier.ok());
    const DefaultsInput ns_tier[] = {{"team", &tier.value(), ""}};
    PolicyAdmissionInput in;
    in.object = &object;
    in.namespace_ = "shop";
    // Not synced: the tiers are not read, so the mode is the built-in Recommend.
    auto unsynced = admit_policy_object(in);
    ASSERT_EQ(unsynced.warnings.size(), 1u);
    EXPECT_NE(unsynced.warnings[0].find("under Recommend"), std::string::npos);
    in.defaults_synced = true;
    in.namespace_defaults = ns_tier;
    EXPECT_TRUE(admit_policy_object(in).warnings.empty()) << admit_policy_object(in).warnings.front();
}

TEST(PolicyAdmission, ACachedTierThatBreaksTheMergeWarnsAndAdmits) {
    const auto object = policy(spec(R"("memory":{})"));
    auto tier = decode_attune_defaults(
        defaults("AttuneDefaults", R"({"metricsSource":{"prometheus":{"address":"http://localhost:9090"}}})"));
    ASSERT_TRUE(tier.ok());
    const DefaultsInput cluster[] = {{"team", &tier.value(), ""}};
    PolicyAdmissionInput in;
    in.object = &object;
    in.namespace_ = "shop";
    in.defaults_synced = true;
    in.cluster_defaults = cluster;
    const auto got = admit_policy_object(in);
    EXPECT_TRUE(got.allowed);
    ASSERT_EQ(got.warnings.size(), 1u);
    EXPECT_NE(got.warnings[0].find("InvalidConfig"), std::string::npos) << got.warnings[0];
    EXPECT_NE(got.warnings[0].find("AttuneDefaults team: spec.metricsSource.prometheus.address"), std::string::npos)
        << got.warnings[0];
}

TEST(PolicyAdmission, AnInheritedUnknownZoneWarns) {
    const auto object = policy(spec(R"("memory":{})"));
    auto tier = decode_attune_defaults(defaults(
        "AttuneNamespaceDefaults",
        R"({"updateStrategy":{"type":"Auto","schedule":{"timezone":"Mars/Phobos","windows":[{"start":"01:00","end":"02:00"}]}}})"));
    ASSERT_TRUE(tier.ok());
    const DefaultsInput ns_tier[] = {{"team", &tier.value(), ""}};
    PolicyAdmissionInput in;
    in.object = &object;
    in.namespace_ = "shop";
    in.defaults_synced = true;
    in.namespace_defaults = ns_tier;
    in.check_time_zone = fake_zones;
    const auto got = admit_policy_object(in);
    EXPECT_TRUE(got.allowed);
    ASSERT_EQ(got.warnings.size(), 1u);
    EXPECT_NE(got.warnings[0].find("\"Mars/Phobos\""), std::string::npos) << got.warnings[0];
}

struct DefaultingCase {
    const char* name;
    std::string object;
    std::string patch;  // serialized; "[]" for none
    int weight;         // after the patch
};

class PolicyDefaultingTable : public ::testing::TestWithParam<DefaultingCase> {};

TEST_P(PolicyDefaultingTable, Patches) {
    const auto& c = GetParam();
    const auto object = json::parse(c.object);
    const auto patch = default_policy_object(PolicyKind::AttunePolicy, object);
    EXPECT_EQ(json::serialize(patch), c.patch);
    auto applied = apply_json_patch(object, patch);
    ASSERT_TRUE(applied.ok()) << applied.error().message;
    EXPECT_EQ(applied.value().at("spec").at("weight").to_number<int>(), c.weight);
}

INSTANTIATE_TEST_SUITE_P(
    Cases, PolicyDefaultingTable,
    ::testing::Values(DefaultingCase{"absent", R"({"spec":{"cpu":{}}})",
                                     R"([{"op":"add","path":"/spec/weight","value":100}])", 100},
                      DefaultingCase{"zero", R"({"spec":{"weight":0}})",
                                     R"([{"op":"replace","path":"/spec/weight","value":100}])", 100},
                      DefaultingCase{"null", R"({"spec":{"weight":null}})",
                                     R"([{"op":"replace","path":"/spec/weight","value":100}])", 100},
                      DefaultingCase{"set", R"({"spec":{"weight":7}})", "[]", 7}),
    [](const auto& param_info) { return std::string(param_info.param.name); });

TEST(PolicyDefaulting, NothingToDefaultOutsideAPolicySpec) {
    EXPECT_TRUE(default_policy_object(PolicyKind::AttunePolicy, json::parse(R"({"metadata":{}})")).empty());
    EXPECT_TRUE(default_policy_object(PolicyKind::AttunePolicy, json::parse(R"({"spec":[]})")).empty());
    EXPECT_TRUE(default_policy_object(PolicyKind::AttunePolicy, json::parse("7")).empty());
    EXPECT_TRUE(default_policy_object(PolicyKind::AttuneDefaults, json::parse(R"({"spec":{}})")).empty());
}

TEST(PolicyKinds, ParseAndPrint) {
    for (auto k : {PolicyKind::AttunePolicy, PolicyKind::AttuneDefaults, PolicyKind::AttuneNamespaceDefaults})
        EXPECT_EQ(parse_policy_kind(to_string(k)), k);
    EXPECT_FALSE(parse_policy_kind("Pod"));
}

}  // namespace
}  // namespace attune::core
