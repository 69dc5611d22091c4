// status, recommendations and history records from a status the core's
// encoders wrote, and their tables.
#include "status_records.hpp"
#include "status_fixture.hpp"

#include <gtest/gtest.h>

namespace attune::cli {
namespace {
namespace json = boost::json;

TEST(StatusRecord, FromAFullStatus) {
    const auto r = status_record(test::web_policy(), nullptr);
    EXPECT_EQ(r.at("namespace").as_string(), "shop");
    EXPECT_EQ(r.at("name").as_string(), "web");
    EXPECT_EQ(r.at("mode").as_string(), "Auto");
    EXPECT_EQ(r.at("phase").as_string(), "Monitoring");
    EXPECT_EQ(r.at("workloads").at("discovered").as_int64(), 3);
    EXPECT_EQ(r.at("workloads").at("resized").as_int64(), 1);
    EXPECT_EQ(r.at("workloads").at("deferred").as_int64(), 1);
    EXPECT_EQ(r.at("idle").as_int64(), 1);
    EXPECT_EQ(r.at("idleWorkloads").at(0).at("reason").as_string(), "WorkloadReplicasZero");
    EXPECT_EQ(r.at("conditionSummary"), (json::array{"Ready=True", "ResizeBlocked=True"}));
    EXPECT_EQ(r.at("message").as_string(), "1 workload has recommendations");
}

TEST(StatusRecord, Phases) {
    auto paused = test::web_policy();
    paused.as_object()["spec"].as_object()["paused"] = true;
    EXPECT_EQ(status_record(paused, nullptr).at("phase").as_string(), "Paused");
    EXPECT_EQ(status_record(test::web_policy("Recommend", false), nullptr).at("phase").as_string(), "Pending");
    auto only_idle = test::web_policy("Auto", false);
    only_idle.as_object()["status"] = json::object{{"idleWorkloads", json::array{}}};
    EXPECT_EQ(status_record(only_idle, nullptr).at("phase").as_string(), "Unknown");
    auto degraded = test::web_policy();
    degraded.as_object()["status"].as_object()["conditions"].as_array().push_back(
        json::object{{"type", "Degraded"}, {"status", "True"}, {"reason", "HighRevertRate"}});
    EXPECT_EQ(status_record(degraded, nullptr).at("phase").as_string(), "Degraded");
    // Counters absent from the status read as 0.
    EXPECT_EQ(status_record(only_idle, nullptr).at("workloads").at("infeasible").as_int64(), 0);
}

TEST(StatusRecord, TheEffectiveModeWins) {
    core::EffectivePolicy e;
    e.update_strategy.type = core::UpdateMode::OneShot;
    EXPECT_EQ(status_record(test::web_policy("Auto"), &e).at("mode").as_string(), "OneShot");
    auto no_type = test::web_policy();
    no_type.as_object()["spec"].as_object().erase("updateStrategy");
    EXPECT_EQ(status_record(no_type, nullptr).at("mode").as_string(), "Recommend");
}

TEST(StatusTable, ColumnsNarrowAndWide) {
    const json::array recs{status_record(test::web_policy(), nullptr)};
    TableOptions o;
    auto t = render_table(recs, status_columns(false), o);
    ASSERT_TRUE(t.ok());
    EXPECT_EQ(t.value(),
              "NAME   MODE   PHASE        WORKLOADS   RESIZED   DEFERRED   INFEASIBLE   IDLE   CONDITIONS\n"
              "web    Auto   Monitoring   3           1         1          0            1      Ready=True,ResizeBlocked=True\n");
    o.wide = true;
    auto w = render_table(recs, status_columns(true), o);
    ASSERT_TRUE(w.ok());
    EXPECT_NE(w.value().find("NAMESPACE"), std::string::npos);
    EXPECT_NE(w.value().find("1 workload has recommendations"), std::string::npos);
}

TEST(RecommendationRecords, PerContainerWithArrows) {
    const auto recs = recommendation_records(test::web_policy(), "");
    ASSERT_EQ(recs.size(), 1u);
    const auto& r = recs[0].as_object();
    EXPECT_EQ(r.at("target").as_string(), "Deployment/web");
    EXPECT_EQ(r.at("container").as_string(), "app");
    EXPECT_EQ(r.at("cpuRequest").as_string(), "500m -> 250m");
    EXPECT_EQ(r.at("memoryRequest").as_string(), "256Mi -> 192Mi");
    EXPECT_EQ(r.at("current").at("cpuRequest").as_string(), "500m");
    EXPECT_EQ(r.at("recommended").at("memoryRequest").as_string(), "192Mi");
    EXPECT_DOUBLE_EQ(r.at("confidence").as_double(), 0.93);
    EXPECT_EQ(r.at("confidenceText").as_string(), "0.93");
    EXPECT_EQ(r.at("dataPoints").as_int64(), 120);
    EXPECT_FALSE(r.at("stale").as_bool());
    EXPECT_EQ(recommendation_records(test::web_policy(), "deployment/web").size(), 1u);
    EXPECT_EQ(recommendation_records(test::web_policy(), "deploy/web").size(), 1u);
    EXPECT_EQ(recommendation_records(test::web_policy(), "web").size(), 1u);
    EXPECT_TRUE(recommendation_records(test::web_policy(), "statefulset/web").empty());
    EXPECT_TRUE(recommendation_records(test::web_policy("Auto", false), "").empty());

    auto t = render_table(recs, recommendation_columns(false), TableOptions{});
    ASSERT_TRUE(t.ok());
    EXPECT_EQ(t.value(),
              "POLICY   WORKLOAD         CONTAINER   CPU REQUEST    MEMORY REQUEST   CONFIDENCE   DATA POINTS\n"
              "web      Deployment/web   app         500m -> 250m   256Mi -> 192Mi   93%          120\n");
}

// The estimator's raw bytes and an unrounded confidence: the table shows
// them as people read them, the record (-o json|yaml) keeps them exact.
TEST(RecommendationRecords, TheTableIsReadableTheRecordExact) {
    auto policy = test::web_policy();
    auto& c = policy.at_pointer("/status/recommendations/0/containers/0").as_object();
    c["current"].as_object()["cpuRequest"] = "1";
    c["recommended"].as_object()["memoryRequest"] = "245354614";
    c["recommended"].as_object()["memoryLimit"] = "1610612736";
    c["confidence"] = 4.1335978835978834e-05;
    const auto recs = recommendation_records(policy, "");
    ASSERT_EQ(recs.size(), 1u);
    EXPECT_EQ(recs[0].at("recommended").at("memoryRequest").as_string(), "245354614");
    EXPECT_EQ(recs[0].at("memoryRequest").as_string(), "256Mi -> 245354614");
    EXPECT_DOUBLE_EQ(recs[0].at("confidence").as_double(), 4.1335978835978834e-05);
    TableOptions o;
    o.wide = true;
    auto t = render_table(recs, recommendation_columns(false), o);
    ASSERT_TRUE(t.ok());
    EXPECT_EQ(
        t.value(),
        "POLICY   WORKLOAD         CONTAINER   CPU REQUEST     MEMORY REQUEST   CPU LIMIT        MEMORY LIMIT     "
        "CONFIDENCE   DATA POINTS   STALE   UPDATED\n"
        "web      Deployment/web   app         1000m -> 250m   256Mi -> 234Mi   1000m -> 1000m   512Mi -> 1.5Gi   "
        "0.0041%      120           false   2026-12-01T10:00:00Z\n");
    c["confidence"] = "not a number";
    auto nan_table = render_table(recommendation_records(policy, ""), recommendation_columns(false), TableOptions{});
    ASSERT_TRUE(nan_table.ok());
    EXPECT_NE(nan_table.value().find("   0%   "), std::string::npos) << "a confidence status does not hold reads as 0";
}

TEST(HistoryRecords, OldestFirstAndFiltered) {
    auto all = history_records(test::web_policy(), "");
    ASSERT_TRUE(all.ok());
    ASSERT_EQ(all.value().size(), 3u);
    EXPECT_EQ(all.value()[0].at("timestamp").as_string(), "2026-12-01T09:00:00Z");
    EXPECT_EQ(all.value()[2].at("result").as_string(), "Reverted");
    EXPECT_EQ(all.value()[2].at("reason").as_string(), "oomkill");
    auto web = history_records(test::web_policy(), "web");
    ASSERT_TRUE(web.ok());
    EXPECT_EQ(web.value().size(), 2u);
    auto kinded = history_records(test::web_policy(), "deployment/web");
    ASSERT_TRUE(kinded.ok());
    EXPECT_EQ(kinded.value().size(), 2u);

    // The table: status' own from/to texts with their numbers readable; the
    // records keep them as status holds them.
    auto policy = test::web_policy();
    core::HistoryEntry both = test::entry("2026-12-01T11:00:00Z", "web", core::HistoryResult::Success, "");
    both.resource = core::HistoryResource::CpuAndMemory;
    both.from = "cpu 1, memory 268435456/512Mi";
    both.to = "cpu 250m, memory 245354614/512Mi";
    policy.as_object()["status"].as_object()["resizeHistory"] = core::history_json(std::vector{both});
    auto one = history_records(policy, "");
    ASSERT_TRUE(one.ok());
    EXPECT_EQ(one.value()[0].at("to").as_string(), "cpu 250m, memory 245354614/512Mi");
    TableOptions o;
    o.no_headers = true;
    auto t = render_table(one.value(), history_columns(false), o);
    ASSERT_TRUE(t.ok());
    EXPECT_EQ(t.value(),
              "2026-12-01T11:00:00Z   web   web   app   cpu+memory   cpu 1000m, memory 256Mi/512Mi   "
              "cpu 250m, memory 234Mi/512Mi   Success   <none>\n");

    auto broken = test::web_policy();
    broken.as_object()["status"].as_object()["resizeHistory"] = json::array{json::object{{"timestamp", "yesterday"}}};
    auto bad = history_records(broken, "");
    ASSERT_FALSE(bad.ok());
    EXPECT_EQ(bad.error().code, "invalid_history");
}

}  // namespace
}  // namespace attune::cli
