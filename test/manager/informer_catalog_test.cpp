// The manager's wiring of the informer catalog: which caches the admission
// webhook reads, how they are set up, and that it waits for all of them.
#include "informer_catalog.hpp"
#include "../runtime/test_certs.hpp"

#include <attune/controller/reconcile.hpp>
#include <attune/kube/informer_registry.hpp>

#include <boost/asio/io_context.hpp>

#include <algorithm>

#include <gtest/gtest.h>

namespace attune::manager {
namespace {

struct Catalog : ::testing::Test {
    boost::asio::io_context io;
    kube::RestConfig cfg = [] {
        kube::RestConfig c;
        c.host = "127.0.0.1";
        c.port = "1";
        c.tls.ca_pem = test::pki().ca_pem;
        return c;
    }();
    kube::Client client{io.get_executor(), cfg};
    kube::InformerRegistry registry{client};
    Catalog() { define_informers(registry, false, false, nullptr, kube::WatchScope()); }
};

// The controller merges every policy with both defaults tiers; the webhook
// must read the same two caches, decoded (a compact cache parses a new
// object on every read), and must not answer before they listed.
TEST_F(Catalog, TheWebhookReadsBothDefaultsTiersDecodedAndWaitsForTheirLists) {
    const auto caches = webhook_caches(registry);
    ASSERT_EQ(caches.views.cluster_defaults, &registry.need("attunedefaults").cache());
    ASSERT_EQ(caches.views.namespace_defaults, &registry.need("attunenamespacedefaults").cache());
    // decoded<T> throws when the cache keeps no view of that type.
    EXPECT_NO_THROW(EXPECT_EQ(caches.views.cluster_defaults->decoded<policy::DefaultsView>("base"), nullptr));
    EXPECT_NO_THROW(EXPECT_EQ(caches.views.namespace_defaults->decoded<policy::DefaultsView>("shop/base"), nullptr));
    EXPECT_NO_THROW(EXPECT_EQ(caches.views.policies->decoded<policy::PolicyView>("shop/web"), nullptr));
    ASSERT_TRUE(caches.views.synced);
    EXPECT_FALSE(caches.synced());  // nothing has listed
    const auto waiting = registry.not_synced();
    for (const char* name : {"attunedefaults", "attunenamespacedefaults"})
        EXPECT_NE(std::find(waiting.begin(), waiting.end(), name), waiting.end()) << name << " is needed";
}

TEST_F(Catalog, TheWebhookReadsEveryOwnerKindAndTheNamespaces) {
    const auto caches = webhook_caches(registry);
    EXPECT_EQ(caches.namespaces, &registry.need("namespaces").cache());
    EXPECT_EQ(caches.views.policies, &registry.need("attunepolicies").cache());
    for (const auto* c : {caches.views.deployments, caches.views.statefulsets, caches.views.daemonsets, caches.views.replicasets, caches.views.jobs,
                          caches.views.cronjobs})
        EXPECT_NE(c, nullptr);
    EXPECT_EQ(caches.views.replicasets, &registry.need("replicasets").cache());
}

// --watch-namespaces: every informer of a namespaced resource the catalog
// holds runs one stream per watched namespace, under /namespaces/<ns>/; the
// only cluster-wide streams left are nodes and AttuneDefaults, and the
// Namespaces are read by name. Without the flag nothing changes: one stream
// each, on the cluster-wide collection.
TEST(CatalogScope, WatchNamespacesGivesEveryNamespacedInformerOneStreamPerNamespace) {
    boost::asio::io_context io;
    kube::RestConfig cfg;
    cfg.host = "127.0.0.1";
    cfg.port = "1";
    cfg.tls.ca_pem = test::pki().ca_pem;
    kube::Client client{io.get_executor(), cfg};
    kube::InformerRegistry scoped{client}, all{client};
    const kube::WatchScope scope({"team-a", "team-b"});
    define_informers(scoped, false, false, nullptr, scope);
    define_informers(all, false, false, nullptr, kube::WatchScope());
    using T = kube::ListWatchTarget;
    const std::vector<T> per_namespace = {T("team-a", ""), T("team-b", "")};
    std::vector<std::string> cluster_wide;
    auto names = scoped.defined_names();
    ASSERT_GE(names.size(), 15u);
    for (const auto& name : names) {
        const auto* d = scoped.definition(name);
        ASSERT_NE(d, nullptr);
        EXPECT_TRUE(all.definition(name)->targets.empty()) << name << ": cluster-wide mode is unchanged";
        if (d->type.namespaced) {
            EXPECT_EQ(d->targets, per_namespace) << name;
        } else if (name == "namespaces") {
            EXPECT_EQ(d->targets, (std::vector<T>{T("", "metadata.name=team-a"), T("", "metadata.name=team-b")}));
        } else {
            EXPECT_EQ(d->targets, std::vector<T>{T("", "")}) << name;
            cluster_wide.push_back(name);
        }
    }
    EXPECT_EQ(cluster_wide, (std::vector<std::string>{"attunedefaults", "nodes"}));
    // The namespaced kinds the brief names are all there.
    for (const char* n : {"pods", "deployments", "statefulsets", "replicasets", "daemonsets", "jobs", "cronjobs",
                          "horizontalpodautoscalers", "limitranges", "resourcequotas", "attunepolicies",
                          "attunenamespacedefaults"})
        EXPECT_TRUE(scoped.definition(n) && scoped.definition(n)->type.namespaced) << n;
    EXPECT_EQ(vpa_informer(scope).targets, per_namespace);
    EXPECT_TRUE(vpa_informer(kube::WatchScope()).targets.empty());
}

}  // namespace
}  // namespace attune::manager
