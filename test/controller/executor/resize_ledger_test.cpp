#include <attune/controller/executor/resize_ledger.hpp>

#include <boost/json/parse.hpp>

#include <gtest/gtest.h>

namespace attune::controller {
namespace {
namespace json = boost::json;
using core::ResizeState;

TEST(ResizeLedger, HistoryContinuesFromThePolicysOwnStatus) {
    const auto policy = json::parse(R"({"status":{"resizeHistory":[
      {"timestamp":"2026-12-01T10:00:00Z","workload":"web","container":"app","from":"500m","to":"200m",
       "resource":"cpu","method":"InPlace","result":"Reverted","reason":"oomkill"}]}})");
    ResizeLedger l;
    auto& b = l.get("shop", "web", &policy);
    ASSERT_EQ(b.history.size(), 1u);
    EXPECT_EQ(b.history[0].reason, "oomkill");
    const auto v = b.version;
    l.append(b, {b.history[0]});
    EXPECT_EQ(l.get("shop", "web", nullptr).history.size(), 2u) << "seeded once, then the ledger's";
    EXPECT_GT(b.version, v);
}

TEST(ResizeLedger, AHistoryThatDoesNotDecodeStartsOver) {
    const auto policy = json::parse(R"({"status":{"resizeHistory":[{"timestamp":"yesterday"}]}})");
    ResizeLedger l;
    EXPECT_TRUE(l.get("shop", "web", &policy).history.empty());
}

TEST(ResizeLedger, CountsWorkloadsAndKubeletStates) {
    ResizeLedger l;
    auto& b = l.get("shop", "web", nullptr);
    l.set_pods(b, "api", {{"u1", ResizeState::Applied}, {"u2", ResizeState::Applied}});
    l.set_pods(b, "worker", {{"u3", ResizeState::Applied}, {"u4", ResizeState::Deferred}});
    l.set_pods(b, "batch", {{"u5", ResizeState::Infeasible}});
    const auto c = ResizeLedger::counts(b);
    EXPECT_EQ(c.resized, 1);
    EXPECT_EQ(c.pending, 2);
    EXPECT_EQ(c.deferred, 1);
    EXPECT_EQ(c.infeasible, 1);
    const auto v = b.version;
    l.set_pods(b, "api", {{"u1", ResizeState::Applied}, {"u2", ResizeState::Applied}});
    EXPECT_EQ(b.version, v) << "no change, no new version (no status write)";
    l.set_pods(b, "batch", {});
    EXPECT_EQ(b.workloads.count("batch"), 0u);
    EXPECT_GT(b.version, v);
    l.set_cycle(b, true, false, std::nullopt);
    EXPECT_TRUE(b.resized_this_cycle);
    EXPECT_EQ(l.find("shop", "other"), nullptr);
}

}  // namespace
}  // namespace attune::controller
