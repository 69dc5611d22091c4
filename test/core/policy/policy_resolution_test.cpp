// The one resolution of a policy's settings: every way it fails closed, and
// the merge it hands out otherwise.
#include "attune/core/policy/policy_resolution.hpp"

#include <boost/json/parse.hpp>

#include <gtest/gtest.h>

#include <vector>

namespace attune::core {
namespace {

AttunePolicy policy(const std::string& spec) {
    auto v = boost::json::parse(spec);
    v.as_object()["targetRef"] = boost::json::parse(R"({"kind":"Deployment","name":"web"})");
    boost::json::object doc{{"metadata", boost::json::object{{"namespace", "shop"}, {"name", "web"}}}, {"spec", v}};
    return decode_attune_policy(doc).value();
}

AttuneDefaults defaults(const std::string& spec) {
    boost::json::object doc{{"metadata", boost::json::object{{"name", "d"}}}, {"spec", boost::json::parse(spec)}};
    return decode_attune_defaults(doc).value();
}

const std::string kSource = R"("metricsSource":{"prometheus":{"address":"http://prometheus.monitoring:9090"}})";

TEST(PolicyResolution, FailsClosedOnEveryMissingOrBrokenInput) {
    const auto valid = policy("{" + kSource + "}");
    const auto inverted = policy("{" + kSource +
                                 R"(,"cpu":{"maxAllowed":"1"},"containerPolicies":[{"containerName":"app","cpu":{"minAllowed":"2"}}]})");
    const auto loopback = policy(R"({"metricsSource":{"prometheus":{"address":"http://127.0.0.1:9090"}}})");
    const auto overhead = defaults(R"({"cpu":{"overhead":"35"}})");
    const std::vector<DefaultsInput> good{{"base", &overhead, ""}};
    const std::vector<DefaultsInput> broken{{"base", &overhead, ""}, {"team", nullptr, "spec.cpu.overhead: not a number"}};
    struct Row {
        const char* what;
        const AttunePolicy* policy;
        std::string policy_error;
        bool synced;
        std::vector<DefaultsInput> cluster, namespaced;
        PolicyValidationOptions validation;
        ResolutionFailure want;
        std::string message;  // the whole message; "" when it resolves
    };
    PolicyValidationOptions local;
    local.allow_local_metrics_addresses = true;
    const std::vector<Row> rows = {
        {"valid, with both tiers", &valid, "", true, good, good, {}, ResolutionFailure::None, ""},
        {"defaults not listed",
         &valid,
         "",
         false,
         good,
         good,
         {},
         ResolutionFailure::DefaultsNotSynced,
         "Failed to fetch defaults: the AttuneDefaults and AttuneNamespaceDefaults caches have not finished their "
         "first list"},
        {"the policy does not decode",
         nullptr,
         "spec.targetRef: required",
         true,
         good,
         good,
         {},
         ResolutionFailure::InvalidPolicy,
         "spec.targetRef: required"},
        {"a cluster defaults object does not decode",
         &valid,
         "",
         true,
         broken,
         good,
         {},
         ResolutionFailure::InvalidDefaults,
         "AttuneDefaults team: spec.cpu.overhead: not a number"},
        {"a namespace defaults object does not decode",
         &valid,
         "",
         true,
         good,
         broken,
         {},
         ResolutionFailure::InvalidDefaults,
         "AttuneNamespaceDefaults team: spec.cpu.overhead: not a number"},
        {"minAllowed above maxAllowed",
         &inverted,
         "",
         true,
         good,
         good,
         {},
         ResolutionFailure::ValidationFailed,
         "spec.containerPolicies \"app\": cpu.minAllowed 2 exceeds maxAllowed 1"},
        {"a loopback address without the flag",
         &loopback,
         "",
         true,
         {},
         {},
         {},
         ResolutionFailure::ValidationFailed,
         ""},
        {"a loopback address with the flag", &loopback, "", true, {}, {}, local, ResolutionFailure::None, ""},
    };
    for (const auto& r : rows) {
        SCOPED_TRACE(r.what);
        PolicyResolutionInput in;
        in.policy = r.policy;
        in.policy_error = r.policy_error;
        in.defaults_synced = r.synced;
        in.cluster_defaults = r.cluster;
        in.namespace_defaults = r.namespaced;
        in.validation = r.validation;
        const auto got = resolve_effective_policy(in);
        EXPECT_EQ(got.failure, r.want) << got.message;
        EXPECT_EQ(got.ok(), r.want == ResolutionFailure::None);
        EXPECT_EQ(got.effective.has_value(), got.ok());
        if (!r.message.empty()) {
            EXPECT_EQ(got.message, r.message);
        }
        if (r.want == ResolutionFailure::None) {
            EXPECT_EQ(got.message, "");
        }
        if (r.want != ResolutionFailure::None) {
            EXPECT_NE(got.message, "");
        }
    }
}

TEST(PolicyResolution, TheMergeIsTheDefaultsMerge) {
    const auto p = policy("{" + kSource + R"(,"cpu":{"percentile":99}})");
    const auto cluster = defaults(R"({"cpu":{"overhead":"11","percentile":50}})");
    const auto team = defaults(R"({"cpu":{"overhead":"12"}})");
    const std::vector<DefaultsInput> c{{"base", &cluster, ""}}, n{{"team", &team, ""}};
    PolicyResolutionInput in;
    in.policy = &p;
    in.cluster_defaults = c;
    in.namespace_defaults = n;
    const auto got = resolve_effective_policy(in);
    ASSERT_TRUE(got.ok()) << got.message;
    EXPECT_EQ(got.effective->cpu.percentile, 99);
    EXPECT_EQ(got.effective->cpu.overhead_percent, 12);
}

TEST(PolicyResolution, EachFailureHasAStableName) {
    EXPECT_EQ(to_string(ResolutionFailure::None), "");
    EXPECT_EQ(to_string(ResolutionFailure::DefaultsNotSynced), "defaults_not_synced");
    EXPECT_EQ(to_string(ResolutionFailure::InvalidPolicy), "invalid_policy");
    EXPECT_EQ(to_string(ResolutionFailure::InvalidDefaults), "invalid_defaults");
    EXPECT_EQ(to_string(ResolutionFailure::ValidationFailed), "policy_validation_failed");
}

}  // namespace
}  // namespace attune::core
