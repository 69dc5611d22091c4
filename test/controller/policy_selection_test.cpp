#include <attune/controller/policy_selection.hpp>

#include <boost/json/parse.hpp>

#include <gtest/gtest.h>

namespace attune::controller {
namespace {
namespace json = boost::json;

json::value policy(const char* selector) {
    auto p = json::parse(R"({"metadata":{"name":"p","namespace":"ns","generation":3,"uid":"u"},"spec":{}})");
    if (selector) p.at("spec").as_object()["selector"] = json::parse(selector);
    return p;
}

json::value workload(const char* ns, const char* name, const char* labels, const char* owner_kind = nullptr) {
    auto w = json::parse(std::string(R"({"metadata":{"namespace":")") + ns + R"(","name":")" + name +
                         R"(","labels":)" + labels + "}}");
    if (owner_kind)
        w.at("metadata").as_object()["ownerReferences"] =
            json::array{json::object{{"kind", owner_kind}, {"name", "x"}, {"controller", true}}};
    return w;
}

TEST(PolicySelection, DecodesPolicy) {
    auto p = decode_policy(policy(R"({"matchLabels":{"tier":"web"}})"));
    ASSERT_TRUE(p.ok());
    EXPECT_EQ(p.value().ns, "ns");
    EXPECT_EQ(p.value().generation, 3);
    EXPECT_TRUE(p.value().selector_error.empty());
    EXPECT_FALSE(decode_policy(json::parse(R"({"metadata":{"name":"p"}})")).ok());
    auto bad = decode_policy(policy(R"({"matchLabels":"x"})"));
    ASSERT_TRUE(bad.ok());
    EXPECT_FALSE(bad.value().selector_error.empty());
}

TEST(PolicySelection, WhichWorkloadsAPolicySelects) {
    const auto p = decode_policy(policy(R"({"matchLabels":{"tier":"web"}})")).value();
    const std::vector<workload_ref> refs = {
        workload_ref_from("Deployment", workload("ns", "web", R"({"tier":"web"})")),
        workload_ref_from("StatefulSet", workload("ns", "db", R"({"tier":"db"})")),
        workload_ref_from("DaemonSet", workload("ns", "agent", R"({"tier":"web"})")),
        // owned by a Deployment: never a separate target
        workload_ref_from("ReplicaSet", workload("ns", "web-abc", R"({"tier":"web"})", "Deployment")),
        // a bare ReplicaSet, and one owned by something else, are targets
        workload_ref_from("ReplicaSet", workload("ns", "bare", R"({"tier":"web"})")),
        workload_ref_from("ReplicaSet", workload("ns", "custom", R"({"tier":"web"})", "Rollout")),
        // another namespace
        workload_ref_from("Deployment", workload("other", "web", R"({"tier":"web"})")),
    };
    EXPECT_EQ(select_targets(p, refs),
              (std::vector<std::string>{"ns/DaemonSet/agent", "ns/Deployment/web", "ns/ReplicaSet/bare",
                                        "ns/ReplicaSet/custom"}));
}

TEST(PolicySelection, EmptySelectorSelectsAllAndInvalidSelectsNothing) {
    const std::vector<workload_ref> refs = {workload_ref_from("Deployment", workload("ns", "a", "{}")),
                                            workload_ref_from("StatefulSet", workload("ns", "b", R"({"x":"y"})"))};
    EXPECT_EQ(select_targets(decode_policy(policy(nullptr)).value(), refs).size(), 2u);
    EXPECT_EQ(select_targets(decode_policy(policy("{}")).value(), refs).size(), 2u);
    EXPECT_TRUE(select_targets(decode_policy(policy(R"({"matchExpressions":[{"key":"x","operator":"Nope"}]})")).value(),
                               refs)
                    .empty());
}

TEST(PolicySelection, PoliciesSelectingAWorkload) {
    auto a = decode_policy(policy(R"({"matchLabels":{"tier":"web"}})")).value();
    auto b = decode_policy(policy(nullptr)).value();
    b.name = "all";
    auto c = decode_policy(policy(R"({"matchLabels":{"tier":"db"}})")).value();
    c.name = "db";
    const std::vector<policy_view> ps = {a, b, c};
    EXPECT_EQ(policies_selecting(ps, workload_ref_from("Deployment", workload("ns", "w", R"({"tier":"web"})"))),
              (std::vector<std::string>{"all", "p"}));
    EXPECT_TRUE(policies_selecting(ps, workload_ref_from("Deployment", workload("x", "w", R"({"tier":"web"})"))).empty());
}

}  // namespace
}  // namespace attune::controller
