#include "attune/core/recommend/savings.hpp"

#include <gtest/gtest.h>

namespace attune::core {
namespace {

Quantity q(const char* s) { return Quantity::parse(s).value(); }

ContainerRecommendation container(const char* cpu_now, const char* cpu_rec, const char* mem_now, const char* mem_rec) {
    ContainerRecommendation c;
    c.name = "app";
    c.current.cpu_request = q(cpu_now);
    c.recommended.cpu_request = q(cpu_rec);
    c.current.memory_request = q(mem_now);
    c.recommended.memory_request = q(mem_rec);
    return c;
}

// The Go Attune's status.savings arithmetic: per container, once per
// recommendation (not per replica), reductions and increases kept apart.
TEST(Savings, AddsReductionsAndIncreasesApart) {
    struct Case {
        const char* name;
        std::vector<ContainerRecommendation> containers;
        RequestSavings want;
    };
    const Case cases[] = {
        {"nothing recommended", {}, {}},
        {"a decrease of both",
         {container("500m", "200m", "256Mi", "128Mi")},
         {500, 256 << 20, 300, 128 << 20, 0, 0, 1}},
        {"an increase of both", {container("100m", "250m", "64Mi", "96Mi")}, {100, 64 << 20, 0, 0, 150, 32 << 20, 1}},
        {"one of each, two containers",
         {container("1", "500m", "1Gi", "1536Mi"), container("250m", "300m", "512Mi", "256Mi")},
         {1250, 1536LL << 20, 500, 256 << 20, 50, 512 << 20, 2}},
        {"no change", {container("300m", "300m", "300Mi", "300Mi")}, {300, 300 << 20, 0, 0, 0, 0, 1}},
        // Memory in whole bytes, cpu in whole millicores (rounded up, as MilliValue does).
        {"odd figures", {container("1001u", "0", "1000", "999")}, {2, 1000, 2, 1, 0, 0, 1}},
    };
    for (const auto& c : cases) {
        WorkloadRecommendation w;
        w.containers = c.containers;
        RequestSavings got;
        add_savings(got, w);
        EXPECT_EQ(got, c.want) << c.name;
    }
}

TEST(Savings, MonthlyCostIsPricedOver730Hours) {
    struct Case {
        std::int64_t milli, bytes;
        CostPricing pricing;
        double want;
    };
    const Case cases[] = {
        {1000, 0, {}, 0.031 * 730},
        {0, 1LL << 30, {}, 0.004 * 730},
        {500, 512LL << 20, {0.05, 0.01}, (0.5 * 0.05 + 0.5 * 0.01) * 730},
        {0, 0, {}, 0},
    };
    for (const auto& c : cases) EXPECT_DOUBLE_EQ(monthly_cost(c.milli, c.bytes, c.pricing), c.want);
}

TEST(Savings, MoneyHasTwoDecimals) {
    EXPECT_EQ(format_money(12.5), "$12.50");
    EXPECT_EQ(format_money(0), "$0.00");
    EXPECT_EQ(format_money(0.125000001), "$0.13");
    EXPECT_EQ(format_money(1234.5678), "$1234.57");
}

// status.savings as the Go Attune writes it: quantities from millicores and
// bytes, zero fields left out, money as "$12.50".
TEST(Savings, StatusShape) {
    RequestSavings s{1500, 3LL << 30, 1000, 1LL << 30, 0, 0, 2};
    const auto o = savings_status_json(s, CostPricing{});
    EXPECT_EQ(o.at("cpuRequestTotal").as_string(), "1500m");
    EXPECT_EQ(o.at("memoryRequestTotal").as_string(), "3Gi");
    EXPECT_EQ(o.at("cpuRequestReduction").as_string(), "1");
    EXPECT_EQ(o.at("reclaimedCpuRequest").as_string(), "1");
    EXPECT_EQ(o.at("memoryRequestReduction").as_string(), "1Gi");
    EXPECT_EQ(o.at("reclaimedMemoryRequest").as_string(), "1Gi");
    EXPECT_FALSE(o.contains("cpuRequestIncrease"));
    EXPECT_FALSE(o.contains("estimatedMonthlyCostIncrease"));
    EXPECT_EQ(o.at("estimatedMonthlySavings").as_string(), "$25.55");  // (1 x 0.031 + 1 x 0.004) x 730
    EXPECT_TRUE(savings_status_json(RequestSavings{}, CostPricing{}).empty());
    const auto odd = savings_status_json({0, 1000, 0, 0, 0, 999, 1}, CostPricing{});
    // Below 1Ki a BinarySI quantity prints in DecimalSI, as upstream's does.
    EXPECT_EQ(odd.at("memoryRequestTotal").as_string(), "1k");
    EXPECT_EQ(odd.at("memoryRequestIncrease").as_string(), "999");
}

TEST(Savings, Sums) {
    RequestSavings a{1, 2, 3, 4, 5, 6, 1};
    a += RequestSavings{10, 20, 30, 40, 50, 60, 2};
    EXPECT_EQ(a, (RequestSavings{11, 22, 33, 44, 55, 66, 3}));
}

}  // namespace
}  // namespace attune::core
