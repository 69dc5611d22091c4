#include "attune/core/followups/hpa_retune.hpp"

#include <gtest/gtest.h>

#include <boost/json.hpp>

#include "test_pods.hpp"

namespace attune::core {
namespace {

using testing::qty;

TEST(HpaRetune, TargetMovesWithTheRequestAndIsCapped) {
    const struct {
        const char* what;
        int base;
        const char* base_request;
        const char* new_request;
        std::optional<const char*> limit;
        int want;
    } cases[] = {
        {"request doubles: target halves", 80, "500m", "1", std::nullopt, 40},
        {"request halves: capped at 100 without a limit", 80, "1", "500m", std::nullopt, 100},
        {"request down 20%: 80 -> 100", 80, "1", "800m", std::nullopt, 100},
        {"request down 10%: 60 -> 67 (rounded)", 60, "1", "900m", std::nullopt, 67},
        {"with a limit 2x the request the cap is 200", 80, "1", "500m", "1", 160},
        {"limit caps below the ratio", 80, "1", "250m", "500m", 200},
        {"never below 1", 1, "100m", "10", std::nullopt, 1},
        {"no request: the base stays", 80, "1", "0", std::nullopt, 80},
    };
    for (const auto& c : cases) {
        std::optional<Quantity> limit;
        if (c.limit) limit = qty(*c.limit);
        EXPECT_EQ(retuned_target(c.base, qty(c.base_request), qty(c.new_request), limit), c.want) << c.what;
    }
}

constexpr const char* kHpa = R"({"metadata":{"name":"web","resourceVersion":"77","annotations":{"attune.io/auto-tune":"true"}},
  "spec":{"metrics":[{"type":"Resource","resource":{"name":"cpu","target":{"type":"Utilization","averageUtilization":80}}},
                     {"type":"Resource","resource":{"name":"memory","target":{"type":"Utilization","averageUtilization":70}}},
                     {"type":"External","external":{"metric":{"name":"queue"},"target":{"type":"Value","value":"10"}}}]}})";

TEST(HpaRetune, PatchRecordsTheBaseAndRewritesOnlyCpuTargets) {
    const auto d = retune_hpa(boost::json::parse(kHpa), qty("500m"), qty("1"), std::nullopt);
    ASSERT_TRUE(std::holds_alternative<HpaRetune>(d)) << std::get<HpaRetuneSkip>(d).message;
    const auto& r = std::get<HpaRetune>(d);
    EXPECT_EQ(r.base_target, 80);
    EXPECT_EQ(r.new_target, 40);
    EXPECT_EQ(boost::json::serialize(r.patch),
              R"({"metadata":{"annotations":{"attune.io/original-target-cpu":"80"},"resourceVersion":"77"},"spec":{"metrics":[)"
              R"({"type":"Resource","resource":{"name":"cpu","target":{"type":"Utilization","averageUtilization":40}}},)"
              R"({"type":"Resource","resource":{"name":"memory","target":{"type":"Utilization","averageUtilization":70}}},)"
              R"({"type":"External","external":{"metric":{"name":"queue"},"target":{"type":"Value","value":"10"}}}]}})");
}

// The base stays the first recorded target: a second retune starts from it,
// not from the already-tuned value.
TEST(HpaRetune, ARecordedBaseIsReused) {
    auto hpa = boost::json::parse(kHpa);
    hpa.at("metadata").at("annotations").as_object()["attune.io/original-target-cpu"] = "80";
    hpa.at("spec").at("metrics").as_array()[0].at("resource").at("target").as_object()["averageUtilization"] = 40;
    const auto d = retune_hpa(hpa, qty("500m"), qty("2"), std::nullopt);
    EXPECT_EQ(std::get<HpaRetune>(d).new_target, 20);
}

TEST(HpaRetune, Skips) {
    auto reason = [](const boost::json::value& h, const char* req = "1") {
        const auto d = retune_hpa(h, qty("500m"), qty(req), std::nullopt);
        return std::holds_alternative<HpaRetuneSkip>(d) ? std::get<HpaRetuneSkip>(d).reason : std::string("retuned");
    };
    auto not_opted = boost::json::parse(kHpa);
    not_opted.at("metadata").at("annotations").as_object()["attune.io/auto-tune"] = "false";
    EXPECT_EQ(reason(not_opted), "not_opted_in");
    auto memory_only = boost::json::parse(kHpa);
    memory_only.at("spec").at("metrics").as_array().erase(memory_only.at("spec").at("metrics").as_array().begin());
    EXPECT_EQ(reason(memory_only), "no_cpu_utilization_target");
    auto bad_base = boost::json::parse(kHpa);
    bad_base.at("metadata").at("annotations").as_object()["attune.io/original-target-cpu"] = "eighty";
    EXPECT_EQ(reason(bad_base), "invalid_original_target");
    EXPECT_EQ(reason(boost::json::parse(kHpa), "500m"), "unchanged");  // 80 x 500m/500m = 80
    EXPECT_EQ(reason(boost::json::parse("[]")), "invalid_hpa");
}

}  // namespace
}  // namespace attune::core
