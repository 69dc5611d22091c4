// The CLI's effective policies: the manager's own resolution over what the
// command listed, failing closed where the manager does.
#include "policy_context.hpp"

#include <boost/json/parse.hpp>

#include <gtest/gtest.h>

namespace attune::cli {
namespace {
namespace json = boost::json;
using F = core::ResolutionFailure;

json::value policy(const std::string& name, const std::string& extra = "") {
    return json::parse(R"({"metadata":{"namespace":"shop","name":")" + name +
                       R"(","resourceVersion":"1"},"spec":{"targetRef":{"kind":"Deployment","name":"web"},)"
                       R"("metricsSource":{"prometheus":{"address":"http://127.0.0.1:9090"}})" +
                       extra + "}}");
}

TEST(PolicyContext, EveryPolicyResolvesAsTheManagerResolvesIt) {
    const auto team = json::parse(R"({"metadata":{"namespace":"shop","name":"team","resourceVersion":"1"},"spec":{"cpu":{"percentile":80}}})");
    const auto broken = json::parse(
        R"({"metadata":{"namespace":"shop","name":"broken","resourceVersion":"1"},"spec":{"costPricing":{"cpuPerCoreHour":"cheap"}}})");
    const std::string inverted = R"(,"cpu":{"maxAllowed":"1"},"containerPolicies":[{"containerName":"app","cpu":{"minAllowed":"2"}}])";
    struct Row {
        const char* what;
        std::vector<json::value> namespace_defaults;
        std::string defaults_error;
        std::string extra;
        F want;
        std::string message_prefix;
    };
    const std::vector<Row> rows = {
        // A loopback address is the manager's flag to allow: not the CLI's to refuse.
        {"valid, merged with the namespace's defaults", {team}, "", "", F::None, ""},
        {"a defaults object that does not decode is not dropped",
         {team, broken},
         "",
         "",
         F::InvalidDefaults,
         "AttuneNamespaceDefaults broken: spec.costPricing.cpuPerCoreHour: "},
        {"the defaults could not be listed",
         {team},
         "AttuneDefaults: 403 Forbidden",
         "",
         F::DefaultsNotSynced,
         "Failed to fetch defaults: AttuneDefaults: 403 Forbidden"},
        {"the merge fails validation",
         {},
         "",
         inverted,
         F::ValidationFailed,
         "spec.containerPolicies \"app\": cpu.minAllowed 2 exceeds maxAllowed 1"},
    };
    for (const auto& r : rows) {
        SCOPED_TRACE(r.what);
        PolicyContext ctx;
        ctx.policies = {policy("web", r.extra)};
        ctx.namespace_defaults = r.namespace_defaults;
        ctx.defaults_error = r.defaults_error;
        const auto resolved = resolve_policies(ctx);
        ASSERT_EQ(resolved.size(), 1u);
        const auto& got = resolved.at("shop/web");
        EXPECT_EQ(got.failure, r.want) << got.message;
        EXPECT_EQ(got.message.rfind(r.message_prefix, 0), 0u) << got.message;
        const auto eff = effective_policies(ctx);
        EXPECT_EQ(eff.contains("shop/web"), r.want == F::None);
        if (r.want == F::None) {
            EXPECT_EQ(eff.at("shop/web").cpu.percentile, 80);
        }
    }
}

TEST(PolicyContext, APolicyWithoutANameIsLeftOut) {
    PolicyContext ctx;
    ctx.policies = {json::parse(R"({"metadata":{"namespace":"shop"},"spec":{}})"), policy("web")};
    const auto resolved = resolve_policies(ctx);
    EXPECT_EQ(resolved.size(), 1u);
    EXPECT_TRUE(resolved.contains("shop/web"));
}

}  // namespace
}  // namespace attune::cli
