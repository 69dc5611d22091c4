#include <attune/policy/policy_selection.hpp>

#include <boost/json/parse.hpp>

#include <gtest/gtest.h>

namespace attune::policy {
namespace {
namespace json = boost::json;

// A policy "name" in namespace "ns" with this targetRef (JSON) and weight (0 = unset).
PolicyView policy(const char* name, const char* target_ref, int weight = 0) {
    auto p = json::parse(std::string(R"({"metadata":{"name":")") + name +
                         R"(","namespace":"ns","generation":3,"uid":"u"},"spec":{"cpu":{},"memory":{}}})");
    p.at("spec").as_object()["targetRef"] = json::parse(target_ref);
    if (weight) p.at("spec").as_object()["weight"] = weight;
    return decode_policy(p).value();
}

json::value workload(const char* ns, const char* name, const char* labels, const char* owner_kind = nullptr,
                     const char* skip = nullptr) {
    auto w = json::parse(std::string(R"({"metadata":{"namespace":")") + ns + R"(","name":")" + name +
                         R"(","labels":)" + labels + "}}");
    auto& md = w.at("metadata").as_object();
    if (owner_kind)
        md["ownerReferences"] = json::array{json::object{{"kind", "Other"}, {"name", "y"}},
                                            json::object{{"kind", owner_kind}, {"name", "x"}, {"controller", true}}};
    if (skip) md["annotations"] = json::object{{std::string(core::kSkipAnnotation), skip}};
    return w;
}

TEST(PolicySelection, DecodesTheTargetAndTheWeight) {
    auto p = policy("p", R"({"kind":"StatefulSet","selector":{"matchLabels":{"tier":"db"}}})", 250);
    EXPECT_EQ(p.ns, "ns");
    EXPECT_EQ(p.generation, 3);
    EXPECT_EQ(p.target.kind, core::TargetKind::StatefulSet);
    EXPECT_EQ(p.weight, 250);
    EXPECT_TRUE(p.error.empty());
    EXPECT_EQ(policy("p", R"({"kind":"Job","name":"j"})").weight, 100);  // unset: 100
    EXPECT_FALSE(decode_policy(json::parse(R"({"metadata":{"name":"p"}})")).ok());
}

TEST(PolicySelection, AnUndecodablePolicyTargetsNothingAndSaysWhy) {
    auto old_style = decode_policy(json::parse(
        R"({"metadata":{"name":"p","namespace":"ns"},"spec":{"selector":{"matchLabels":{"tier":"web"}}}})"));
    ASSERT_TRUE(old_style.ok());
    EXPECT_EQ(old_style.value().error.rfind("spec.targetRef: required", 0), 0u) << old_style.value().error;
    const auto w = workload_ref_from("Deployment", workload("ns", "web", R"({"tier":"web"})"));
    EXPECT_FALSE(policy_matches(old_style.value(), w));
}

TEST(PolicySelection, TargetRefMatchesKindNameOrSelectorInTheNamespace) {
    const std::vector<WorkloadRef> refs = {
        workload_ref_from("Deployment", workload("ns", "web", R"({"tier":"web"})")),
        workload_ref_from("Deployment", workload("ns", "api", R"({"tier":"api"})")),
        workload_ref_from("StatefulSet", workload("ns", "web-db", R"({"tier":"web"})")),
        workload_ref_from("DaemonSet", workload("ns", "agent", R"({"tier":"web"})")),
        workload_ref_from("ReplicaSet", workload("ns", "web-abc", R"({"tier":"web"})", "Deployment")),
        workload_ref_from("ReplicaSet", workload("ns", "bare", R"({"tier":"web"})")),
        workload_ref_from("ReplicaSet", workload("ns", "custom", R"({"tier":"web"})", "Rollout")),
        workload_ref_from("Job", workload("ns", "nightly-123", R"({"tier":"web"})", "CronJob")),
        workload_ref_from("Job", workload("ns", "migrate", R"({"tier":"web"})")),
        workload_ref_from("CronJob", workload("ns", "nightly", R"({"tier":"web"})")),
        workload_ref_from("Deployment", workload("other", "web", R"({"tier":"web"})")),
        workload_ref_from("Deployment", workload("ns", "quiet", R"({"tier":"web"})", nullptr, "true")),
    };
    const struct {
        const char* target_ref;
        std::vector<std::string> want;
    } cases[] = {
        {R"({"kind":"Deployment","selector":{"matchLabels":{"tier":"web"}}})",
         {"ns/Deployment/quiet", "ns/Deployment/web"}},  // the opted-out one is matched; select_policy skips it
        {R"({"kind":"Deployment","name":"api"})", {"ns/Deployment/api"}},
        {R"({"kind":"Deployment","name":"missing"})", {}},
        {R"({"kind":"StatefulSet","selector":{"matchLabels":{"tier":"web"}}})", {"ns/StatefulSet/web-db"}},
        {R"({"kind":"DaemonSet","name":"agent"})", {"ns/DaemonSet/agent"}},
        // A Deployment's ReplicaSet is never a target; a bare one, or one of another owner, is.
        {R"({"kind":"ReplicaSet","selector":{"matchLabels":{"tier":"web"}}})", {"ns/ReplicaSet/bare", "ns/ReplicaSet/custom"}},
        {R"({"kind":"ReplicaSet","name":"web-abc"})", {}},
        // A CronJob's Job is never a target; a Job of its own is.
        {R"({"kind":"Job","selector":{"matchExpressions":[{"key":"tier","operator":"Exists"}]}})", {"ns/Job/migrate"}},
        {R"({"kind":"CronJob","name":"nightly"})", {"ns/CronJob/nightly"}},
    };
    for (const auto& c : cases)
        EXPECT_EQ(select_targets(policy("p", c.target_ref), refs), c.want) << c.target_ref;
}

TEST(PolicySelection, OwnerIsTheControllerReference) {
    EXPECT_EQ(controller_kind(workload("ns", "w", "{}", "Deployment")), "Deployment");
    EXPECT_EQ(controller_kind(workload("ns", "w", "{}")), "");
    EXPECT_EQ(controller_kind(json::parse(R"({"metadata":{"ownerReferences":[{"kind":"Deployment"}]}})")), "");
}

// Two policies on one workload: the higher weight wins, a tie goes to the smaller name.
TEST(PolicySelection, HigherWeightWinsThenTheSmallerName) {
    const auto web = workload_ref_from("Deployment", workload("ns", "web", R"({"tier":"web"})"));
    const char* by_label = R"({"kind":"Deployment","selector":{"matchLabels":{"tier":"web"}}})";
    const char* by_name = R"({"kind":"Deployment","name":"web"})";
    const struct {
        const char* name;
        std::vector<PolicyView> policies;
        std::string winner;
        std::vector<std::string> losers;
    } cases[] = {
        {"one policy", {policy("a", by_label)}, "a", {}},
        {"weight wins over name", {policy("a", by_label, 100), policy("b", by_name, 300)}, "b", {"a"}},
        {"tie: smaller name", {policy("zeta", by_label), policy("alpha", by_name)}, "alpha", {"zeta"}},
        {"default weight is 100", {policy("a", by_label), policy("b", by_name, 101)}, "b", {"a"}},
        {"three", {policy("c", by_label, 5), policy("b", by_name, 5), policy("a", by_label, 1)}, "b", {"a", "c"}},
        {"non-matching policies do not conflict",
         {policy("a", by_label), policy("b", R"({"kind":"StatefulSet","name":"web"})")}, "a", {}},
        {"none", {policy("b", R"({"kind":"Deployment","name":"api"})")}, "", {}},
    };
    for (const auto& c : cases) {
        const auto s = select_policy(c.policies, web);
        EXPECT_EQ(s.winner, c.winner) << c.name;
        EXPECT_EQ(s.losers, c.losers) << c.name;
        EXPECT_TRUE(s.opted_out_of.empty()) << c.name;
    }
}

TEST(PolicySelection, SkipAnnotationOptsOutOfEveryPolicy) {
    const std::vector<PolicyView> ps = {policy("b", R"({"kind":"Deployment","name":"web"})"),
                                        policy("a",
                                               R"({"kind":"Deployment","selector":{"matchLabels":{"tier":"web"}}})")};
    auto s = select_policy(ps, workload_ref_from("Deployment", workload("ns", "web", R"({"tier":"web"})", nullptr, "true")));
    EXPECT_EQ(s.winner, "");
    EXPECT_TRUE(s.losers.empty());
    EXPECT_EQ(s.opted_out_of, (std::vector<std::string>{"a", "b"}));
    // Only the exact value "true" opts out.
    s = select_policy(ps, workload_ref_from("Deployment", workload("ns", "web", R"({"tier":"web"})", nullptr, "yes")));
    EXPECT_EQ(s.winner, "a");
    EXPECT_EQ(s.losers, (std::vector<std::string>{"b"}));
}

}  // namespace
}  // namespace attune::policy
