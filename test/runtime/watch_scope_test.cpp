// --watch-namespaces: the flag's value, which list/watch streams each kind of
// resource gets in a scope, and the namespace a request path names.
#include <attune/kube/watch_scope.hpp>

#include <gtest/gtest.h>

namespace attune::kube {
namespace {

TEST(WatchScope, ParsesNamespaceListsAndRejectsBadOnesWithTheReason) {
    struct Row {
        std::string_view value;
        std::vector<std::string> want;  // when ok
        std::string_view error;         // substring; "" : ok
    };
    const Row rows[] = {
        {"", {}, ""},
        {"team-a", {"team-a"}, ""},
        {"b,a", {"b", "a"}, ""},  // order kept
        {"a1,0b,x-y", {"a1", "0b", "x-y"}, ""},
        {std::string_view("abcdefghij-abcdefghij-abcdefghij-abcdefghij-abcdefghij-abcdefghi"), {}, "longer than 63"},
        {",a", {}, "element 1 is empty"},
        {"a,,b", {}, "element 2 is empty"},
        {"a,", {}, "element 2 is empty"},
        {",", {}, "element 1 is empty"},
        {"a,b,a", {}, "\"a\" is given twice"},
        {"Team", {}, "\"Team\" is not a namespace name: it may contain only lowercase"},
        {"a b", {}, "may contain only lowercase"},
        {"a.b", {}, "may contain only lowercase"},
        {"-a", {}, "must start and end"},
        {"a-", {}, "must start and end"},
        {"a/b", {}, "may contain only lowercase"},
    };
    for (const auto& r : rows) {
        auto got = parse_namespace_list(r.value);
        if (r.error.empty()) {
            ASSERT_TRUE(got.ok()) << r.value << ": " << got.error().message;
            EXPECT_EQ(got.value(), r.want) << r.value;
        } else {
            ASSERT_FALSE(got.ok()) << r.value;
            EXPECT_EQ(got.error().code, "bad_namespace_list");
            EXPECT_NE(got.error().message.find(r.error), std::string::npos) << r.value << ": " << got.error().message;
        }
    }
    // 63 characters is the limit, not beyond it.
    EXPECT_TRUE(parse_namespace_list(std::string(63, 'a')).ok());
}

TEST(WatchScope, ContainsEveryNamespaceOnlyWhenClusterWide) {
    const WatchScope all;
    EXPECT_TRUE(all.cluster_wide());
    EXPECT_TRUE(all.contains("anything"));
    const WatchScope two({"a", "b"});
    EXPECT_FALSE(two.cluster_wide());
    EXPECT_TRUE(two.contains("a"));
    EXPECT_TRUE(two.contains("b"));
    EXPECT_FALSE(two.contains("c"));
    EXPECT_FALSE(two.contains(""));
}

TEST(WatchScope, NamespacedResourcesGetOneStreamPerNamespaceClusterScopedOnesStayCluster) {
    using T = ListWatchTarget;
    const WatchScope all;
    const WatchScope two({"a", "b"});
    struct Row {
        const char* what;
        ResourceType rt;
        const WatchScope* scope;
        std::string_view selector;
        std::vector<T> want;
        std::vector<std::string> paths;  // collection_path of each
    };
    const Row rows[] = {
        {"pods, cluster-wide", resources::pods(), &all, "", {T("", "")}, {"/api/v1/pods"}},
        {"pods, scoped",
         resources::pods(),
         &two,
         "",
         {T("a", ""), T("b", "")},
         {"/api/v1/namespaces/a/pods", "/api/v1/namespaces/b/pods"}},
        {"a selector is kept",
         resources::pods(),
         &two,
         "spec.nodeName=n1",
         {T("a", "spec.nodeName=n1"), T("b", "spec.nodeName=n1")},
         {"/api/v1/namespaces/a/pods", "/api/v1/namespaces/b/pods"}},
        {"deployments",
         resources::deployments(),
         &two,
         "",
         {T("a", ""), T("b", "")},
         {"/apis/apps/v1/namespaces/a/deployments", "/apis/apps/v1/namespaces/b/deployments"}},
        {"policies",
         resources::attune_policies(),
         &two,
         "",
         {T("a", ""), T("b", "")},
         {"/apis/attune.io/v1alpha1/namespaces/a/attunepolicies",
          "/apis/attune.io/v1alpha1/namespaces/b/attunepolicies"}},
        {"namespace defaults",
         resources::attune_namespace_defaults(),
         &two,
         "",
         {T("a", ""), T("b", "")},
         {"/apis/attune.io/v1alpha1/namespaces/a/attunenamespacedefaults",
          "/apis/attune.io/v1alpha1/namespaces/b/attunenamespacedefaults"}},
        {"limitranges",
         resources::limit_ranges(),
         &two,
         "",
         {T("a", ""), T("b", "")},
         {"/api/v1/namespaces/a/limitranges", "/api/v1/namespaces/b/limitranges"}},
        {"resourcequotas",
         resources::resource_quotas(),
         &two,
         "",
         {T("a", ""), T("b", "")},
         {"/api/v1/namespaces/a/resourcequotas", "/api/v1/namespaces/b/resourcequotas"}},
        {"hpas",
         resources::horizontal_pod_autoscalers(),
         &two,
         "",
         {T("a", ""), T("b", "")},
         {"/apis/autoscaling/v2/namespaces/a/horizontalpodautoscalers",
          "/apis/autoscaling/v2/namespaces/b/horizontalpodautoscalers"}},
        {"vpas",
         resources::vertical_pod_autoscalers(),
         &two,
         "",
         {T("a", ""), T("b", "")},
         {"/apis/autoscaling.k8s.io/v1/namespaces/a/verticalpodautoscalers",
          "/apis/autoscaling.k8s.io/v1/namespaces/b/verticalpodautoscalers"}},
        {"nodes, scoped", resources::nodes(), &two, "", {T("", "")}, {"/api/v1/nodes"}},
        {"cluster defaults, scoped",
         resources::attune_defaults(),
         &two,
         "",
         {T("", "")},
         {"/apis/attune.io/v1alpha1/attunedefaults"}},
        {"namespaces, cluster-wide", resources::namespaces(), &all, "", {T("", "")}, {"/api/v1/namespaces"}},
        {"namespaces, scoped: by name",
         resources::namespaces(),
         &two,
         "",
         {T("", "metadata.name=a"), T("", "metadata.name=b")},
         {"/api/v1/namespaces", "/api/v1/namespaces"}},
        {"namespaces, scoped, with a selector",
         resources::namespaces(),
         &two,
         "status.phase=Active",
         {T("", "metadata.name=a,status.phase=Active"), T("", "metadata.name=b,status.phase=Active")},
         {"/api/v1/namespaces", "/api/v1/namespaces"}},
    };
    for (const auto& r : rows) {
        const auto got = list_watch_targets(r.rt, *r.scope, r.selector);
        EXPECT_EQ(got, r.want) << r.what;
        std::vector<std::string> paths;
        std::vector<std::string> labels;
        for (const auto& t : got) {
            paths.push_back(collection_path(r.rt, t.ns));
            labels.push_back(watched_namespace_of(t));
        }
        // Each stream is labelled with the watched namespace it covers.
        if (r.scope->cluster_wide() || (!r.rt.namespaced && r.rt.plural != "namespaces")) {
            EXPECT_EQ(labels, std::vector<std::string>{""}) << r.what;
        } else {
            EXPECT_EQ(labels, r.scope->namespaces()) << r.what;
        }
        EXPECT_EQ(paths, r.paths) << r.what;
        // A scoped stream of a namespaced resource never lists across namespaces.
        if (!r.scope->cluster_wide() && r.rt.namespaced) {
            for (const auto& p : paths) EXPECT_TRUE(namespace_of_path(p).has_value()) << r.what << ": " << p;
        }
    }
}

TEST(WatchScope, TheNamespaceAPathNames) {
    struct Row {
        std::string_view path;
        std::optional<std::string> want;
    };
    const Row rows[] = {
        {"/api/v1/namespaces/a/pods", "a"},
        {"/api/v1/namespaces/a/pods/p/resize", "a"},
        {"/api/v1/namespaces/a/pods/p/eviction", "a"},
        {"/apis/apps/v1/namespaces/b/deployments/web?fieldManager=attune", "b"},
        {"/apis/attune.io/v1alpha1/namespaces/team/attunepolicies/p/status", "team"},
        {"/apis/events.k8s.io/v1/namespaces/a/events", "a"},
        {"/api/v1/namespaces/a", "a"},  // the Namespace object itself
        {"/api/v1/watch/namespaces/a/pods", "a"},
        {"/api/v1/namespaces?fieldSelector=metadata.name%3Da", std::nullopt},
        {"/api/v1/namespaces", std::nullopt},
        {"/api/v1/pods", std::nullopt},
        {"/apis/apps/v1/deployments", std::nullopt},
        {"/api/v1/nodes/n1", std::nullopt},
        {"/apis/admissionregistration.k8s.io/v1/mutatingwebhookconfigurations/attune-webhook", std::nullopt},
        {"/version", std::nullopt},
        {"/apis", std::nullopt},
        {"/openapi/v3", std::nullopt},
        {"", std::nullopt},
    };
    for (const auto& r : rows) EXPECT_EQ(namespace_of_path(r.path), r.want) << r.path;
}

}  // namespace
}  // namespace attune::kube
