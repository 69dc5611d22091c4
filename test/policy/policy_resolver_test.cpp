// Which policy manages a workload and with which settings, over caches set
// up as the manager's informers are: the resolution the controller, the
// webhook and kubectl-attune share.
#include <attune/policy/policy_resolver.hpp>

#include <boost/json/parse.hpp>

#include <gtest/gtest.h>

namespace attune::policy {
namespace {
namespace json = boost::json;
using kube::WatchEventType;
using F = core::ResolutionFailure;

const char* const kSource = R"("metricsSource":{"prometheus":{"address":"http://prometheus.monitoring:9090"}})";

std::string policy(const std::string& name, int weight, const std::string& extra = "", int rv = 1) {
    return R"({"metadata":{"namespace":"shop","name":")" + name + R"(","uid":")" + name + R"(-uid","resourceVersion":")" +
           std::to_string(rv) + R"("},"spec":{"targetRef":{"kind":"Deployment","selector":{"matchLabels":{"tier":"web"}}},"weight":)" +
           std::to_string(weight) + "," + kSource + extra + "}}";
}

json::value workload(bool skip = false) {
    return json::parse(std::string(R"({"metadata":{"namespace":"shop","name":"web","labels":{"tier":"web"})") +
                       (skip ? R"(,"annotations":{"attune.io/skip":"true"})" : "") + "}}");
}

struct Caches {
    // Compact text, as the manager holds them: every read parses anew.
    kube::ObjectCache policies{kube::strip_generic, kube::CacheStorage::CompactText};
    kube::ObjectCache cluster{kube::strip_generic, kube::CacheStorage::CompactText};
    kube::ObjectCache namespaced{kube::strip_generic, kube::CacheStorage::CompactText};
    bool defaults_listed = true;
    Caches() {
        index_policies(policies);
        index_defaults(cluster);
        index_defaults(namespaced);
    }
    void add(kube::ObjectCache& c, const std::string& obj) { c.apply(WatchEventType::Added, json::parse(obj)); }
    CacheViews views() {
        CacheViews v;
        v.policies = &policies;
        v.cluster_defaults = &cluster;
        v.namespace_defaults = &namespaced;
        v.synced = [this](std::string_view what) { return !what.starts_with("Attune") || what == "AttunePolicy" || defaults_listed; };
        return v;
    }
};

TEST(PolicyResolver, ManagingPolicyAndItsSettingsFailClosed) {
    struct Row {
        const char* what;
        std::vector<std::string> policies;
        std::vector<std::string> namespace_defaults;
        bool skip = false;
        bool defaults_listed = true;
        std::string winner;           // "" when nobody manages it
        std::vector<std::string> opted_out_of;
        F failure = F::None;
        std::string message;          // the refusal, whole
        int percentile = 0;           // of the settings, when they resolve
    };
    const std::string team = R"({"metadata":{"namespace":"shop","name":"team","resourceVersion":"1"},"spec":{"cpu":{"percentile":80}}})";
    const std::string broken =
        R"({"metadata":{"namespace":"shop","name":"broken","resourceVersion":"1"},"spec":{"costPricing":{"cpuPerCoreHour":"cheap"}}})";
    const std::vector<Row> rows = {
        {"no policy", {}, {}, false, true, "", {}, F::None, "", 0},
        {"one policy, merged with the namespace's defaults",
         {policy("web", 100)},
         {team},
         false,
         true,
         "web",
         {},
         F::None,
         "",
         80},
        {"the skip annotation opts out", {policy("web", 100)}, {}, true, true, "", {"web"}, F::None, "", 0},
        {"the heavier policy wins",
         {policy("light", 100, R"(,"cpu":{"percentile":70})"), policy("heavy", 200, R"(,"cpu":{"percentile":99})")},
         {},
         false,
         true,
         "heavy",
         {},
         F::None,
         "",
         99},
        {"defaults not listed: fail closed",
         {policy("web", 100)},
         {team},
         false,
         false,
         "web",
         {},
         F::DefaultsNotSynced,
         "Failed to fetch defaults: the AttuneDefaults and AttuneNamespaceDefaults caches have not finished their first "
         "list",
         0},
        {"a defaults object that does not decode fails closed, not skipped",
         {policy("web", 100)},
         {team, broken},
         false,
         true,
         "web",
         {},
         F::InvalidDefaults,
         "",
         0},
        {"a merged policy that fails validation is refused with the message",
         {policy(
             "web", 100,
             R"(,"cpu":{"maxAllowed":"1"},"containerPolicies":[{"containerName":"app","cpu":{"minAllowed":"2"}}])")},
         {},
         false,
         true,
         "web",
         {},
         F::ValidationFailed,
         "spec.containerPolicies \"app\": cpu.minAllowed 2 exceeds maxAllowed 1",
         0},
        {"a policy that does not decode is no candidate",
         {policy("web", 100, R"(,"cpu":{"percentile":"high"})")},
         {},
         false,
         true,
         "",
         {},
         F::None,
         "",
         0},
    };
    for (const auto& r : rows) {
        SCOPED_TRACE(r.what);
        Caches c;
        c.defaults_listed = r.defaults_listed;
        for (const auto& p : r.policies) c.add(c.policies, p);
        for (const auto& d : r.namespace_defaults) c.add(c.namespaced, d);
        PolicyResolver resolver;
        const auto got = resolve_managing_policy(c.views(), resolver, policy::workload_ref_from("Deployment", workload(r.skip)));
        EXPECT_EQ(got.selection.winner, r.winner);
        EXPECT_EQ(got.selection.opted_out_of, r.opted_out_of);
        if (r.winner.empty()) {
            EXPECT_EQ(got.policy.view, nullptr);
            EXPECT_EQ(got.policy.effective, nullptr);
            continue;
        }
        ASSERT_NE(got.policy.view, nullptr);
        EXPECT_EQ(got.policy.view->name, r.winner);
        EXPECT_EQ(got.policy.failure, r.failure) << got.policy.message;
        EXPECT_EQ(got.policy.ok(), r.failure == F::None);
        if (r.failure == F::None) {
            ASSERT_NE(got.policy.effective, nullptr);
            EXPECT_EQ(got.policy.effective->cpu.percentile, r.percentile);
            EXPECT_EQ(got.policy.message, "");
        } else {
            EXPECT_EQ(got.policy.effective, nullptr);
            if (!r.message.empty()) {
                EXPECT_EQ(got.policy.message, r.message);
            }
        }
        if (r.failure == F::InvalidDefaults) {
            EXPECT_EQ(got.policy.message.rfind("AttuneNamespaceDefaults broken: spec.costPricing.cpuPerCoreHour: ", 0), 0u)
                << got.policy.message;
        }
    }
}

// The recommendation store reads "same pointer" as "same settings".
TEST(PolicyResolver, TheSettingsPointerStaysUntilThePolicyOrADefaultsObjectChanges) {
    Caches c;
    c.add(c.policies, policy("web", 100));
    PolicyResolver resolver;
    const auto a = resolver.resolve(c.views(), "shop", "web").effective;
    ASSERT_NE(a, nullptr);
    EXPECT_EQ(resolver.resolve(c.views(), "shop", "web").effective, a);
    c.add(c.cluster, R"({"metadata":{"name":"base","resourceVersion":"2"},"spec":{"memory":{"overhead":"50"}}})");
    const auto b = resolver.resolve(c.views(), "shop", "web").effective;
    ASSERT_NE(b, nullptr);
    EXPECT_NE(b, a);
    EXPECT_EQ(b->memory.overhead_percent, 50);
    c.policies.apply(WatchEventType::Modified, json::parse(policy("web", 100, R"(,"cpu":{"percentile":95})", 2)));
    const auto d = resolver.resolve(c.views(), "shop", "web").effective;
    ASSERT_NE(d, nullptr);
    EXPECT_NE(d, b);
    EXPECT_EQ(d->cpu.percentile, 95);
    EXPECT_EQ(resolver.size(), 1u);
    resolver.forget("shop", "web");
    EXPECT_EQ(resolver.size(), 0u);
}

TEST(PolicyResolver, NothingIsRememberedBeforeTheDefaultsListed) {
    Caches c;
    c.add(c.policies, policy("web", 100));
    c.defaults_listed = false;
    PolicyResolver resolver;
    EXPECT_EQ(resolver.resolve(c.views(), "shop", "web").failure, F::DefaultsNotSynced);
    EXPECT_EQ(resolver.size(), 0u);
    c.defaults_listed = true;
    EXPECT_TRUE(resolver.resolve(c.views(), "shop", "web").ok());
}

TEST(PolicyResolver, APolicyMissingFromTheCacheHasNoSettings) {
    Caches c;
    PolicyResolver resolver;
    const auto r = resolver.resolve(c.views(), "shop", "gone");
    EXPECT_EQ(r.view, nullptr);
    EXPECT_FALSE(r.ok());
    EXPECT_EQ(r.message, "the policy is not in the cache");
}

// The validation options are the reader's (the manager's flags).
TEST(PolicyResolver, ValidatesWithItsOptions) {
    Caches c;
    c.add(c.policies, R"({"metadata":{"namespace":"shop","name":"web","resourceVersion":"1"},"spec":{"targetRef":{"kind":"Deployment","name":"web"},"metricsSource":{"prometheus":{"address":"http://127.0.0.1:9090"}}}})");
    PolicyResolver strict;
    EXPECT_EQ(strict.resolve(c.views(), "shop", "web").failure, F::ValidationFailed);
    core::PolicyValidationOptions local;
    local.allow_local_metrics_addresses = true;
    PolicyResolver relaxed(local);
    EXPECT_TRUE(relaxed.resolve(c.views(), "shop", "web").ok());
}

}  // namespace
}  // namespace attune::policy
