// The policy webhooks' routes and the operation names their metrics carry:
// the Go Attune's label values, so its dashboards read ours unchanged.
#include <attune/webhook/policy_review.hpp>

#include <gtest/gtest.h>

namespace attune::webhook {
namespace {

TEST(PolicyRoute, EachPathNamesItsKindAndWhetherItMutates) {
    struct Row {
        std::string_view path;
        std::optional<core::PolicyKind> kind;
        bool mutating;
    };
    const Row rows[] = {
        {kValidatePolicyPath, core::PolicyKind::AttunePolicy, false},
        {kValidateDefaultsPath, core::PolicyKind::AttuneDefaults, false},
        {kValidateNamespaceDefaultsPath, core::PolicyKind::AttuneNamespaceDefaults, false},
        {kMutatePolicyPath, core::PolicyKind::AttunePolicy, true},
        {"/validate-attunepolicy/", std::nullopt, false},
        {"/mutate-pods", std::nullopt, false},
        {"", std::nullopt, false},
    };
    for (const auto& r : rows) {
        SCOPED_TRACE(std::string(r.path));
        const auto got = policy_route(r.path);
        ASSERT_EQ(got.has_value(), r.kind.has_value());
        if (!got) continue;
        EXPECT_EQ(got->kind, *r.kind);
        EXPECT_EQ(got->mutating, r.mutating);
    }
}

TEST(ValidationOperation, TheGoOperatorsLabelForEachRouteAndOperation) {
    using K = core::PolicyKind;
    struct Row {
        PolicyRoute route;
        std::string_view operation;
        std::optional<std::string_view> label;
    };
    const Row rows[] = {
        {{K::AttunePolicy, false}, "CREATE", "validate_create"},
        {{K::AttunePolicy, false}, "UPDATE", "validate_update"},
        {{K::AttuneDefaults, false}, "CREATE", "defaults_validate_create"},
        {{K::AttuneDefaults, false}, "UPDATE", "defaults_validate_update"},
        {{K::AttuneNamespaceDefaults, false}, "CREATE", "namespace_defaults_validate_create"},
        {{K::AttuneNamespaceDefaults, false}, "UPDATE", "namespace_defaults_validate_update"},
        {{K::AttunePolicy, true}, "CREATE", "defaulting"},
        {{K::AttunePolicy, true}, "UPDATE", "defaulting"},
        {{K::AttunePolicy, false}, "DELETE", std::nullopt},
        {{K::AttunePolicy, true}, "CONNECT", std::nullopt},
        {{K::AttuneDefaults, false}, "create", std::nullopt},  // the apiserver sends upper case only
        {{K::AttuneNamespaceDefaults, false}, "", std::nullopt},
    };
    for (const auto& r : rows) {
        SCOPED_TRACE(std::string(r.operation) + (r.route.mutating ? " mutating" : ""));
        EXPECT_EQ(validation_operation(r.route, r.operation), r.label);
    }
}

}  // namespace
}  // namespace attune::webhook
