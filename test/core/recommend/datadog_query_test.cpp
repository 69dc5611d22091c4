#include "attune/core/recommend/datadog_query.hpp"

#include <gtest/gtest.h>

#include <string>

namespace attune::core {
namespace {

TEST(DatadogQuery, TheGoOriginalsQueryShapePerResource) {
    const struct {
        const char* what;
        ResourceKind resource;
        DatadogQuerySpec spec;
        const char* want;
    } rows[] = {
        {"cpu",
         ResourceKind::Cpu,
         {"shop", "web-", std::chrono::seconds(300)},
         "avg:kubernetes.cpu.usage.total{kube_namespace:shop,pod_name:web-*} by {kube_container_name}.rollup(avg,300)"},
        {"memory",
         ResourceKind::Memory,
         {"shop", "web-", std::chrono::seconds(300)},
         "avg:kubernetes.memory.working_set{kube_namespace:shop,pod_name:web-*} by {kube_container_name}.rollup(avg,300)"},
        {"a rollup under a minute is raised to 60",
         ResourceKind::Cpu,
         {"shop", "web-", std::chrono::seconds(30)},
         "avg:kubernetes.cpu.usage.total{kube_namespace:shop,pod_name:web-*} by {kube_container_name}.rollup(avg,60)"},
        {"a dotted name stays whole",
         ResourceKind::Memory,
         {"team.a", "web.v2-", std::chrono::seconds(3600)},
         "avg:kubernetes.memory.working_set{kube_namespace:team.a,pod_name:web.v2-*} by {kube_container_name}.rollup(avg,3600)"},
        {"no prefix: every pod of the namespace",
         ResourceKind::Cpu,
         {"shop", "", std::chrono::seconds(60)},
         "avg:kubernetes.cpu.usage.total{kube_namespace:shop,pod_name:*} by {kube_container_name}.rollup(avg,60)"},
    };
    for (const auto& r : rows) {
        SCOPED_TRACE(r.what);
        const auto q = datadog_usage_query(r.resource, r.spec);
        ASSERT_TRUE(q.ok()) << q.error().message;
        EXPECT_EQ(q.value(), r.want);
    }
}

// Datadog's filter syntax has no quoting: what could leave the tag value is refused.
TEST(DatadogQuery, ValuesThatCouldLeaveTheFilterAreRefused) {
    const struct {
        DatadogQuerySpec spec;
        const char* message;
    } rows[] = {
        {{"", "web-"}, "namespace \"\" cannot be a Datadog tag value"},
        {{"shop}", "web-"}, "namespace \"shop}\" cannot be a Datadog tag value"},
        {{"shop", "web-*} by {host"}, "pod name prefix \"web-*} by {host\" cannot be a Datadog tag value"},
        {{"shop", "web,kube_namespace:other"}, "cannot be a Datadog tag value"},
        {{"Shop", "web-"}, "cannot be a Datadog tag value"},
        {{"shop", "web -"}, "cannot be a Datadog tag value"},
    };
    for (const auto& r : rows) {
        const auto q = datadog_usage_query(ResourceKind::Memory, r.spec);
        ASSERT_FALSE(q.ok()) << r.spec.namespace_ << " " << r.spec.pod_prefix;
        EXPECT_EQ(q.error().code, "invalid_tag_value");
        EXPECT_NE(q.error().message.find(r.message), std::string::npos) << q.error().message;
    }
}

TEST(DatadogQuery, PodPrefixFollowsGenerateNameTruncation) {
    const std::string long_name(70, 'a');
    const struct {
        const char* kind;
        std::string name;
        std::string want;
    } rows[] = {
        {"Deployment", "web", "web-"},
        {"CronJob", "nightly", "nightly-"},
        {"Deployment", long_name, std::string(58, 'a')},  // generateName keeps 58 characters
        {"Job", std::string(57, 'b'), std::string(57, 'b') + "-"},
        {"StatefulSet", std::string(60, 'c'), std::string(60, 'c') + "-"},  // <name>-<ordinal>, never cut
    };
    for (const auto& r : rows) EXPECT_EQ(datadog_pod_prefix(r.kind, r.name), r.want) << r.kind << " " << r.name;
}

}  // namespace
}  // namespace attune::core
