#include "attune/core/lifecycle/selection.hpp"

#include <gtest/gtest.h>

#include <algorithm>

namespace attune::core {
namespace {

std::vector<std::string> pods(std::size_t n) {
    std::vector<std::string> v;
    for (std::size_t i = 0; i < n; ++i) v.push_back("pod-uid-" + std::to_string(i));
    return v;
}

// Desired counts round up: 10% of 11 pods selects 2 pods.
TEST(StableSelection, TenPercentOfElevenIsTwo) {
    EXPECT_EQ(desired_pod_count(10, 11), 2u);
    EXPECT_EQ(select_pods("w-uid", pods(11), 10).size(), 2u);
}

TEST(StableSelection, CeilingDivisionTable) {
    struct Case {
        unsigned percent;
        std::size_t n, want;
    } cases[] = {{0, 10, 0}, {1, 1, 1}, {10, 10, 1}, {25, 10, 3}, {50, 3, 2}, {100, 7, 7}, {150, 7, 7}, {10, 0, 0}};
    for (const auto& c : cases) EXPECT_EQ(desired_pod_count(c.percent, c.n), c.want) << c.percent << "% of " << c.n;
}

// Steps are cumulative: 10% then 25% adds the next 15%, not a separate 25%.
TEST(StableSelection, StepsAreCumulative_TenThenTwentyFiveAddsTheNextFifteen) {
    const auto all = pods(20);
    const auto first = select_pods("w-uid", all, 10);
    const auto second = select_pods("w-uid", all, 25);
    ASSERT_EQ(first.size(), 2u);
    ASSERT_EQ(second.size(), 5u);
    EXPECT_TRUE(std::equal(first.begin(), first.end(), second.begin()));  // a prefix: 3 new pods = 15%
}

TEST(StableSelection, OrderIsIndependentOfInputOrderAndStableAcrossCalls) {
    auto all = pods(30);
    const auto a = order_pods_for_selection("w-uid", all);
    std::reverse(all.begin(), all.end());
    EXPECT_EQ(order_pods_for_selection("w-uid", all), a);
    // A different workload shuffles differently (the hash includes its UID).
    EXPECT_NE(order_pods_for_selection("other-uid", all), a);
}

TEST(StableSelection, IndicesFollowTheSameOrder) {
    const auto all = pods(15);
    const auto ordered = order_pods_for_selection("w-uid", all);
    const auto idx = selection_order("w-uid", all);
    ASSERT_EQ(idx.size(), all.size());
    for (std::size_t i = 0; i < idx.size(); ++i) EXPECT_EQ(all[idx[i]], ordered[i]);
}

TEST(StableSelection, SurvivorsKeepTheirRelativeOrderWhenPodsGo) {
    auto all = pods(12);
    const auto before = order_pods_for_selection("w-uid", all);
    all.erase(all.begin() + 5);
    auto after = order_pods_for_selection("w-uid", all);
    std::vector<std::string> expected;
    for (const auto& p : before)
        if (p != "pod-uid-5") expected.push_back(p);
    EXPECT_EQ(after, expected);
}

}  // namespace
}  // namespace attune::core
