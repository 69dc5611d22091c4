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
    kube::rest_config cfg = [] {
        kube::rest_config c;
        c.host = "127.0.0.1";
        c.port = "1";
        c.tls.ca_pem = test::pki().ca_pem;
        return c;
    }();
    kube::client client{io.get_executor(), cfg};
    kube::informer_registry registry{client};
    Catalog() { define_informers(registry, false, false, nullptr); }
};

// The controller merges every policy with both defaults tiers; the webhook
// must read the same two caches, decoded (a compact cache parses a new
// object on every read), and must not answer before they listed.
TEST_F(Catalog, TheWebhookReadsBothDefaultsTiersDecodedAndWaitsForTheirLists) {
    const auto caches = webhook_caches(registry);
    ASSERT_EQ(caches.cluster_defaults, &registry.need("attunedefaults").cache());
    ASSERT_EQ(caches.namespace_defaults, &registry.need("attunenamespacedefaults").cache());
    // decoded<T> throws when the cache keeps no view of that type.
    EXPECT_NO_THROW(EXPECT_EQ(caches.cluster_defaults->decoded<controller::defaults_view>("base"), nullptr));
    EXPECT_NO_THROW(EXPECT_EQ(caches.namespace_defaults->decoded<controller::defaults_view>("shop/base"), nullptr));
    EXPECT_NO_THROW(EXPECT_EQ(caches.policies->decoded<controller::policy_view>("shop/web"), nullptr));
    ASSERT_TRUE(caches.synced);
    EXPECT_FALSE(caches.synced());  // nothing has listed
    const auto waiting = registry.not_synced();
    for (const char* name : {"attunedefaults", "attunenamespacedefaults"})
        EXPECT_NE(std::find(waiting.begin(), waiting.end(), name), waiting.end()) << name << " is needed";
}

TEST_F(Catalog, TheWebhookReadsEveryOwnerKindAndTheNamespaces) {
    const auto caches = webhook_caches(registry);
    EXPECT_EQ(caches.namespaces, &registry.need("namespaces").cache());
    EXPECT_EQ(caches.policies, &registry.need("attunepolicies").cache());
    for (const auto* c : {caches.deployments, caches.statefulsets, caches.daemonsets, caches.replicasets, caches.jobs,
                          caches.cronjobs})
        EXPECT_NE(c, nullptr);
    EXPECT_EQ(caches.replicasets, &registry.need("replicasets").cache());
}

}  // namespace
}  // namespace attune::manager
