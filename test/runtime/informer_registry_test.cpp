// Only informers a feature asked for exist (and so ever list or watch).
#include "test_certs.hpp"

#include <attune/kube/informer_registry.hpp>

#include <boost/asio/io_context.hpp>

#include <gtest/gtest.h>

namespace attune::kube {
namespace {

TEST(InformerRegistry, OnlyNeededInformersAreCreatedAndEachOnce) {
    boost::asio::io_context io;
    RestConfig cfg;
    cfg.host = "127.0.0.1";
    cfg.port = "1";
    cfg.tls.ca_pem = test::pki().ca_pem;
    Client c(io.get_executor(), cfg);
    InformerRegistry r(c);
    InformerOptions pods;
    pods.type = resources::pods();
    pods.transform = strip_pod;
    r.define("pods", pods);
    InformerOptions nodes;
    nodes.type = resources::nodes();
    r.define("nodes", nodes);
    EXPECT_TRUE(r.defined("pods"));
    EXPECT_TRUE(r.needed().empty());
    EXPECT_EQ(r.find("pods"), nullptr);
    EXPECT_TRUE(r.all_synced());  // nothing needed, nothing to wait for

    auto& a = r.need("pods");
    auto& b = r.need("pods");
    EXPECT_EQ(&a, &b);
    EXPECT_EQ(a.type().plural, "pods");
    EXPECT_EQ(r.find("pods"), &a);
    EXPECT_EQ(r.find("nodes"), nullptr);
    EXPECT_EQ(r.needed().size(), 1u);
    EXPECT_FALSE(r.all_synced());
    EXPECT_EQ(r.not_synced(), std::vector<std::string>{"pods"});
    EXPECT_THROW(r.need("secrets"), std::out_of_range);
}

}  // namespace
}  // namespace attune::kube
