#include "attune/core/resize/resize_history.hpp"

#include <gtest/gtest.h>

#include <boost/json.hpp>

#include "test_pods.hpp"

namespace attune::core {
namespace {

using namespace std::chrono;
using testing::rl;

HistoryEntry entry(HistoryResult r, HistoryMethod m = HistoryMethod::InPlace, int minute = 0) {
    HistoryEntry e;
    e.timestamp = sys_days(2026y / December / 1) + minutes(minute);
    e.workload = "web";
    e.container = "app";
    e.from = "500m";
    e.to = "250m";
    e.resource = HistoryResource::Cpu;
    e.method = m;
    e.result = r;
    return e;
}

TEST(ResizeHistory, KeepsTheNewestFifty) {
    std::vector<HistoryEntry> h;
    for (int i = 0; i < 60; ++i) append_history(h, entry(HistoryResult::Success, HistoryMethod::InPlace, i));
    ASSERT_EQ(h.size(), 50u);
    EXPECT_EQ(h.front().timestamp, sys_days(2026y / December / 1) + 10min);  // 0..9 dropped
    EXPECT_EQ(h.back().timestamp, sys_days(2026y / December / 1) + 59min);
}

TEST(ResizeHistory, ConsecutiveRevertsCountBackToTheLastSuccess) {
    using R = HistoryResult;
    struct Case {
        const char* what;
        std::vector<HistoryEntry> h;
        int want;
    } cases[] = {
        {"empty", {}, 0},
        {"success last", {entry(R::Reverted), entry(R::Success)}, 0},
        {"two reverts after a success", {entry(R::Success), entry(R::Reverted), entry(R::Reverted)}, 2},
        {"template entries neither count nor stop",
         {entry(R::Reverted), entry(R::TemplatePatched, HistoryMethod::TemplatePersistence), entry(R::Reverted)},
         2},
        {"a failed resize does not stop the run", {entry(R::Reverted), entry(R::Failed), entry(R::Reverted)}, 2},
        {"a held resize does not stop the run", {entry(R::Reverted), entry(R::Held), entry(R::Reverted)}, 2},
    };
    for (const auto& c : cases) EXPECT_EQ(count_consecutive_reverts(c.h), c.want) << c.what;
}

TEST(ResizeHistory, HighRevertRateIsThreeOfTheLastFive) {
    using R = HistoryResult;
    EXPECT_FALSE(high_revert_rate(std::vector<HistoryEntry>{entry(R::Reverted), entry(R::Reverted)}));
    EXPECT_TRUE(high_revert_rate(std::vector<HistoryEntry>{entry(R::Reverted), entry(R::Reverted), entry(R::Reverted)}));
    EXPECT_TRUE(high_revert_rate(std::vector<HistoryEntry>{entry(R::Reverted), entry(R::Success), entry(R::Reverted),
                                                           entry(R::Success), entry(R::Reverted)}));
    // The oldest of six falls out of the window.
    EXPECT_FALSE(high_revert_rate(std::vector<HistoryEntry>{entry(R::Reverted), entry(R::Reverted), entry(R::Success),
                                                            entry(R::Success), entry(R::Success), entry(R::Reverted)}));
}

TEST(ResizeHistory, JsonMatchesTheStatusSchemaAndRoundTrips) {
    HistoryEntry e = entry(HistoryResult::Reverted);
    e.reason = "oomkill";
    e.resource = HistoryResource::CpuAndMemory;
    const auto v = history_entry_json(e);
    EXPECT_EQ(boost::json::serialize(v),
              R"({"timestamp":"2026-12-01T00:00:00Z","workload":"web","container":"app","from":"500m","to":"250m",)"
              R"("resource":"cpu+memory","method":"InPlace","result":"Reverted","reason":"oomkill"})");
    const std::vector<HistoryEntry> h{e, entry(HistoryResult::Success), entry(HistoryResult::Held)};
    EXPECT_EQ(history_json(h)[2].at("result").as_string(), "Held");
    const auto back = decode_history(history_json(h));
    ASSERT_TRUE(back.ok()) << back.error().message;
    EXPECT_EQ(back.value(), h);
}

TEST(ResizeHistory, BadStatusIsAnErrorNamingTheField) {
    for (auto [json, path] : {std::pair{R"({})", "resizeHistory"},
                              {R"([{"timestamp":"nope","resource":"cpu","method":"InPlace","result":"Success"}])",
                               "resizeHistory[0].timestamp"},
                              {R"([{"timestamp":"2026-12-01T00:00:00Z","resource":"gpu","method":"InPlace","result":"Success"}])",
                               "resizeHistory[0].resource"},
                              {R"([{"timestamp":"2026-12-01T00:00:00Z","resource":"cpu","method":"InPlace","result":"Maybe"}])",
                               "resizeHistory[0].result"}}) {
        const auto r = decode_history(boost::json::parse(json));
        ASSERT_FALSE(r.ok()) << json;
        EXPECT_EQ(r.error().code, "invalid_history");
        EXPECT_EQ(r.error().message.rfind(path, 0), 0u) << r.error().message;
    }
}

TEST(ResizeHistory, ChangedResourcesAndDescriptions) {
    const ResourceRequirements a{rl({{"cpu", "500m"}, {"memory", "256Mi"}}), rl({{"cpu", "1"}})};
    ResourceRequirements cpu_only = a;
    cpu_only.requests["cpu"] = testing::qty("250m");
    ResourceRequirements both = cpu_only;
    both.requests["memory"] = testing::qty("128Mi");
    EXPECT_EQ(changed_resources(a, a), std::nullopt);
    EXPECT_EQ(changed_resources(a, cpu_only), HistoryResource::Cpu);
    EXPECT_EQ(changed_resources(a, both), HistoryResource::CpuAndMemory);
    EXPECT_EQ(describe_resources(a, HistoryResource::Cpu), "500m/1");
    EXPECT_EQ(describe_resources(a, HistoryResource::Memory), "256Mi");
    EXPECT_EQ(describe_resources(both, HistoryResource::CpuAndMemory), "cpu 250m/1, memory 128Mi");
    const ResourceRequirements raw{rl({{"cpu", "1"}, {"memory", "245354614"}}), rl({{"memory", "512Mi"}})};
    EXPECT_EQ(describe_resources(raw, HistoryResource::CpuAndMemory, NumberStyle::Readable),
              "cpu 1000m, memory 234Mi/512Mi");
    EXPECT_EQ(describe_resources(ResourceRequirements{}, HistoryResource::Cpu, NumberStyle::Readable), "-");
}

// What the CLI's history table prints for status' own from/to texts: the
// same words, the numbers as people read them.
TEST(ResizeHistory, ReadableHistoryTextRewritesOnlyTheQuantities) {
    const struct {
        const char* resource;
        const char* text;
        const char* want;
    } cases[] = {
        {"cpu", "500m/1", "500m/1000m"},
        {"cpu", "-/1", "-/1000m"},
        {"memory", "245354614", "234Mi"},
        {"memory", "256Mi/1536Mi", "256Mi/1.5Gi"},
        {"cpu+memory", "cpu 1, memory 245354614/512Mi", "cpu 1000m, memory 234Mi/512Mi"},
        {"cpu+memory", "cpu -, memory 1073741824", "cpu -, memory 1Gi"},
        {"template", "app: cpu 250m/1, memory 128Mi; sidecar: cpu 0.1, memory -",
         "app: cpu 250m/1000m, memory 128Mi; sidecar: cpu 100m, memory -"},
        {"template", "apply-time", "apply-time"},  // a persistence mode, no numbers
        {"cpu+memory", "", ""},
        {"cpu", "not a quantity", "not a quantity"},
    };
    for (const auto& c : cases) EXPECT_EQ(readable_history_text(c.resource, c.text), c.want) << c.text;
}

}  // namespace
}  // namespace attune::core
