#include "attune/core/followups/eviction.hpp"

#include <gtest/gtest.h>

#include <boost/json.hpp>

#include "test_pods.hpp"

namespace attune::core {
namespace {

using namespace std::chrono;
const Timestamp kNow = sys_days(2026y / December / 1) + 12h;

EvictionInputs in(ResizeMethod m, ResizeState s, int running, std::optional<seconds> deferred_for = std::nullopt) {
    EvictionInputs e;
    e.method = m;
    e.state.state = s;
    e.running_replicas = running;
    e.now = kNow;
    if (deferred_for) e.deferred_since = kNow - *deferred_for;
    return e;
}

TEST(Eviction, Table) {
    using M = ResizeMethod;
    using S = ResizeState;
    using A = EvictionAction;
    const struct {
        const char* what;
        EvictionInputs in;
        A action;
        const char* reason;
    } cases[] = {
        {"InPlaceOrRecreate: Infeasible is evicted", in(M::InPlaceOrRecreate, S::Infeasible, 3), A::Evict, "infeasible"},
        {"InPlaceOnly: Infeasible gets InfeasibleBlocked", in(M::InPlaceOnly, S::Infeasible, 3), A::InfeasibleBlocked,
         "infeasible"},
        {"never the last Running replica", in(M::InPlaceOrRecreate, S::Infeasible, 1), A::EvictionBlocked,
         "eviction_last_replica"},
        {"no Running replica at all is not evicted either", in(M::InPlaceOrRecreate, S::Infeasible, 0), A::EvictionBlocked,
         "eviction_last_replica"},
        {"Deferred past the bound is evicted", in(M::InPlaceOrRecreate, S::Deferred, 2, 15min), A::Evict, "deferred"},
        {"Deferred within the bound waits", in(M::InPlaceOrRecreate, S::Deferred, 2, 14min), A::None, ""},
        {"Deferred under InPlaceOnly waits for the kubelet", in(M::InPlaceOnly, S::Deferred, 2, 2h), A::None, ""},
        {"InProgress is not evicted", in(M::InPlaceOrRecreate, S::InProgress, 3), A::None, ""},
        {"Applied is not evicted", in(M::InPlaceOrRecreate, S::Applied, 3), A::None, ""},
    };
    for (const auto& c : cases) {
        const auto d = decide_eviction(c.in);
        EXPECT_EQ(d.action, c.action) << c.what;
        EXPECT_EQ(d.reason, c.reason) << c.what;
    }
}

// Count live Running pods, never spec.replicas.
TEST(Eviction, RunningReplicasCountsLivePodsOnly) {
    const std::vector<Pod> pods{
        testing::pod_from_json(R"({"spec":{"containers":[{"name":"a"}]},"status":{"phase":"Running"}})"),
        testing::pod_from_json(R"({"metadata":{"deletionTimestamp":"2026-12-01T00:00:00Z"},"spec":{"containers":[{"name":"a"}]},"status":{"phase":"Running"}})"),
        testing::pod_from_json(R"({"spec":{"containers":[{"name":"a"}]},"status":{"phase":"Pending"}})"),
    };
    EXPECT_EQ(count_running_replicas(pods), 1);
}

TEST(Eviction, BodyCarriesAUidPrecondition) {
    const Pod p = testing::pod_from_json(R"({"metadata":{"namespace":"shop","name":"web-1","uid":"u1"},"spec":{"containers":[{"name":"a"}]}})");
    EXPECT_EQ(boost::json::serialize(eviction_body(p)),
              R"({"apiVersion":"policy/v1","kind":"Eviction","metadata":{"name":"web-1","namespace":"shop"},)"
              R"("deleteOptions":{"preconditions":{"uid":"u1"}}})");
}

}  // namespace
}  // namespace attune::core
