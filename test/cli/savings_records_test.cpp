// savings records from a status the core's encoders wrote: the arithmetic
// per policy, the total, the order and the table.
#include "savings_records.hpp"
#include "status_fixture.hpp"

#include <gtest/gtest.h>

namespace attune::cli {
namespace {
namespace json = boost::json;

// A policy named `name` whose status recommends, for one container each,
// cpu and memory requests from current to recommended.
json::value policy_with(const char* name, std::vector<core::ContainerRecommendation> containers) {
    auto p = test::web_policy();
    p.as_object()["metadata"].as_object()["name"] = name;
    core::WorkloadRecommendation w;
    w.containers = std::move(containers);
    p.as_object()["status"].as_object()["recommendations"] =
        json::array{core::workload_recommendation_json("web", "Deployment", w, false)};
    return p;
}

core::ContainerRecommendation container(const char* name, const char* cpu_now, const char* cpu_rec, const char* mem_now,
                                        const char* mem_rec) {
    core::ContainerRecommendation c;
    c.name = name;
    c.current = {test::q(cpu_now), test::q("0"), test::q(mem_now), test::q("0")};
    c.recommended = {test::q(cpu_rec), test::q("0"), test::q(mem_rec), test::q("0")};
    return c;
}

core::EffectivePolicy priced(double cpu, double memory) {
    core::EffectivePolicy e;
    e.cost_pricing = {cpu, memory};
    return e;
}

TEST(SavingsRecord, PerPolicy) {
    const auto custom = priced(0.05, 0.01);
    struct Case {
        const char* name;
        json::value policy;
        const core::EffectivePolicy* effective;
        // text: cpu saved, memory saved, % cpu saved, monthly, cpu increase, memory increase, monthly increase
        std::vector<std::string> text;
        const char* cpu_reduction;
        const char* memory_reduction;
        double monthly;
        const char* pricing_source;
    };
    const Case cases[] = {
        // (0.25 x 0.031 + 64/1024 x 0.004) x 730 = 5.84
        {"the fixture's web: both decrease, built-in prices",
         test::web_policy(),
         nullptr,
         {"250m", "64Mi", "50%", "$5.84", "0m", "0", "$0.00"},
         "250m",
         "64Mi",
         5.84,
         "built-in"},
        // (0.5 x 0.05 + 0.5 x 0.01) x 730 = 21.9; the increase of the second container is apart.
        {"the effective costPricing, a decrease and an increase",
         policy_with("two", {container("app", "1", "500m", "1Gi", "512Mi"),
                             container("side", "100m", "200m", "64Mi", "64Mi")}),
         &custom,
         {"500m", "512Mi", "45%", "$21.90", "100m", "0", "$3.65"},
         "500m",
         "512Mi",
         21.9,
         "effective"},
        {"no recommendations yet",
         test::web_policy("Recommend", false),
         nullptr,
         {"-", "-", "-", "-", "-", "-", "-"},
         "0",
         "0",
         0,
         "built-in"},
    };
    for (const auto& c : cases) {
        auto got = savings_record(c.policy, c.effective);
        ASSERT_TRUE(got) << c.name << ": " << got.error().message;
        const auto& r = got.value();
        std::vector<std::string> text;
        for (const char* k : {"cpuSaved", "memorySaved", "percentSaved", "monthlySavings", "cpuIncrease",
                              "memoryIncrease", "monthlyCostIncrease"})
            text.emplace_back(r.at(k).as_string());
        EXPECT_EQ(text, c.text) << c.name;
        EXPECT_EQ(r.at("cpuRequestReduction").as_string(), c.cpu_reduction) << c.name;
        EXPECT_EQ(r.at("memoryRequestReduction").as_string(), c.memory_reduction) << c.name;
        EXPECT_NEAR(r.at("estimatedMonthlySavings").as_double(), c.monthly, 1e-9) << c.name;
        EXPECT_EQ(r.at("pricing").at("source").as_string(), c.pricing_source) << c.name;
    }
}

TEST(SavingsRecord, CarriesTheStatusSavingsShape) {
    const auto r = savings_record(test::web_policy(), nullptr).value();
    EXPECT_EQ(r.at("savings").at("cpuRequestReduction").as_string(), "250m");
    EXPECT_EQ(r.at("savings").at("estimatedMonthlySavings").as_string(), "$5.84");
    EXPECT_EQ(r.at("pricingText").as_string(), "$0.031/core-h, $0.004/GiB-h");
    EXPECT_EQ(r.at("workloads").as_int64(), 1);
}

TEST(SavingsRecord, AStatusThatDoesNotDecodeIsAnError) {
    auto p = test::web_policy();
    p.as_object()["status"].as_object()["recommendations"] = json::array{json::object{{"workload", 3}}};
    const auto got = savings_record(p, nullptr);
    ASSERT_FALSE(got);
    EXPECT_EQ(got.error().code, "invalid_recommendations");
}

// The total sums the quantities, and the money of each policy at its own prices.
TEST(SavingsTotal, SumsEachPolicyAtItsOwnPrices) {
    const auto custom = priced(0.05, 0.01);
    json::array records{savings_record(test::web_policy(), nullptr).value(),
                        savings_record(policy_with("two", {container("app", "1", "500m", "1Gi", "512Mi")}), &custom)
                            .value()};
    const auto t = savings_total(records);
    EXPECT_EQ(t.at("name").as_string(), "TOTAL");
    EXPECT_EQ(t.at("cpuSaved").as_string(), "750m");
    EXPECT_EQ(t.at("memorySaved").as_string(), "576Mi");
    EXPECT_EQ(t.at("percentSaved").as_string(), "50%");  // 750m of 1500m
    EXPECT_NEAR(t.at("estimatedMonthlySavings").as_double(), 5.84 + 21.9, 1e-9);
    EXPECT_EQ(t.at("monthlySavings").as_string(), "$27.74");
    EXPECT_EQ(t.at("policies").as_int64(), 2);
    EXPECT_EQ(savings_total(json::array{}).at("monthlySavings").as_string(), "-");
}

TEST(SavingsOrder, GoKeywordsAndKubectlPaths) {
    json::array
        records{savings_record(policy_with("small", {container("app", "200m", "100m", "64Mi", "64Mi")}), nullptr)
                    .value(),
                savings_record(policy_with("big", {container("app", "2", "1", "64Mi", "64Mi")}), nullptr).value(),
                savings_record(policy_with("mid", {container("app", "1", "500m", "64Mi", "64Mi")}), nullptr).value()};
    struct Case {
        std::string sort_by;
        std::vector<std::size_t> want;
    };
    const Case cases[] = {
        {"", {0, 1, 2}},
        {"savings", {1, 2, 0}},  // the largest savings first
        {"name", {1, 2, 0}},
        {".estimatedMonthlySavings", {0, 2, 1}},  // a JSONPath sorts ascending, as kubectl does
        {"WORKLOADS", {0, 1, 2}},                 // a column header: its field (equal here, so stable)
    };
    for (const auto& c : cases) {
        auto got = savings_order(records, c.sort_by, false);
        ASSERT_TRUE(got) << c.sort_by;
        EXPECT_EQ(got.value(), c.want) << c.sort_by;
    }
    EXPECT_FALSE(savings_order(records, ".nope", false));
}

TEST(SavingsTable, PolicyRowsThenTheTotal) {
    json::array rows{savings_record(test::web_policy(), nullptr).value()};
    rows.push_back(savings_total(rows));
    const auto cols = savings_columns(false);
    const auto t = render_table(rows, cols, {}).value();
    EXPECT_EQ(t,
              "NAME    WORKLOADS   CPU SAVED   MEMORY SAVED   % CPU SAVED   EST. MONTHLY\n"
              "web     1           250m        64Mi           50%           $5.84\n"
              "TOTAL   1           250m        64Mi           50%           $5.84\n");
    TableOptions wide;
    wide.wide = true;
    EXPECT_NE(render_table(rows, cols, wide).value().find("$0.031/core-h, $0.004/GiB-h"), std::string::npos);
    EXPECT_EQ(savings_columns(true).front().header, "NAMESPACE");
}

}  // namespace
}  // namespace attune::cli
