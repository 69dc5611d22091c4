#include "attune/core/lifecycle/lifecycle_status.hpp"

#include <gtest/gtest.h>

#include <boost/json.hpp>

#include "lifecycle_sample.hpp"
#include "test_pods.hpp"

namespace attune::core {
namespace {

using namespace std::chrono;
namespace json = boost::json;

const Timestamp kT0 = testing::kSampleTime;

LifecycleStatusEntry full_entry() { return testing::sample_lifecycle_entry(); }

// The shape the lifecycle contract fixes for the webhook's deferred
// persistence (docs/lifecycle.md).
TEST(LifecycleStatus, EncodesTheContractShape) {
    const auto v = encode_lifecycle_entry(full_entry());
    const auto& o = v.as_object();
    EXPECT_EQ(o.at("workload"), "web");
    EXPECT_EQ(o.at("kind"), "Deployment");
    EXPECT_EQ(o.at("phase"), "ValidatedAwaitingPersistence");
    EXPECT_EQ(o.at("currentRevision"), "rev-3f2a9c1e7b4d0000");
    EXPECT_EQ(o.at("validatedRevision"), "rev-3f2a9c1e7b4d0000");
    EXPECT_EQ(o.at("failedRevisions"), json::array({"rev-1111111111111111"}));
    EXPECT_EQ(o.at("step"), 2);
    EXPECT_EQ(o.at("stepStartedAt"), "2026-12-01T10:00:00Z");
    EXPECT_EQ(o.at("baseline"), json::parse(R"({"containers":[{"name":"app","resources":{
        "requests":{"cpu":"500m","memory":"256Mi"},"limits":{"cpu":"1","memory":"512Mi"}}}]})"));
    EXPECT_EQ(o.at("candidate"), json::parse(R"({"containers":[{"name":"app","resources":{
        "requests":{"cpu":"200m","memory":"192Mi"},"limits":{"cpu":"1","memory":"512Mi"}}}]})"));
    EXPECT_EQ(o.at("pods"), json::parse(R"([
        {"name":"web-abc","state":"Applied","since":"2026-12-01T10:00:30Z","uid":"uid-abc"},
        {"name":"web-def","state":"Deferred","since":"2026-12-01T10:00:45Z","uid":"uid-def"}])"));
    EXPECT_EQ(o.at("handledRevalidationToken"), "t1");
    EXPECT_EQ(o.at("message").as_string().subview().substr(0, 9), "validated");
    // Additions (the contract allows adding fields, not renaming).
    EXPECT_EQ(o.at("attemptStartedAt"), "2026-12-01T09:40:00Z");
    EXPECT_EQ(o.at("stepAppliedAt"), "2026-12-01T10:00:50Z");
    EXPECT_EQ(o.at("stepReadyAt"), "2026-12-01T10:00:55Z");
    EXPECT_EQ(o.at("source"), "Manual");
    EXPECT_EQ(o.at("lastAnalysis"), json::parse(R"({"step":2,"passed":true,"explanation":"no pod throttled",
        "evaluatedAt":"2026-12-01T10:06:00Z"})"));
    EXPECT_EQ(o.at("attempt"), 3);
}

TEST(LifecycleStatus, RoundTripsEveryField) {
    const auto e = full_entry();
    auto back = decode_lifecycle_entry(encode_lifecycle_entry(e), "e");
    ASSERT_TRUE(back.ok()) << back.error().message;
    EXPECT_EQ(back.value(), e);
    // Through the text, as the apiserver stores it.
    auto text = decode_lifecycle_entry(json::parse(json::serialize(encode_lifecycle_entry(e))), "e");
    ASSERT_TRUE(text.ok());
    EXPECT_EQ(text.value(), e);
}

TEST(LifecycleStatus, OptionalFieldsAreOmittedAndDecodeAsUnset) {
    LifecycleStatusEntry e;
    e.workload = "db";
    e.kind = "StatefulSet";
    e.current_revision = "rev-0";
    const auto v = encode_lifecycle_entry(e);
    for (const char* absent : {"validatedRevision", "failedRevisions", "stepStartedAt", "handledRevalidationToken",
                               "message", "attemptStartedAt", "stepAppliedAt", "stepReadyAt", "source", "lastAnalysis"})
        EXPECT_FALSE(v.as_object().contains(absent)) << absent;
    EXPECT_EQ(decode_lifecycle_entry(v, "e").value(), e);
}

// Bounded: maxItems 100 workloads sorted by kind then workload, 100 pods,
// 20 failed revisions (oldest dropped).
TEST(LifecycleStatus, Bounds) {
    std::vector<LifecycleStatusEntry> entries;
    for (int i = 0; i < 120; ++i) {
        LifecycleStatusEntry e;
        e.kind = i % 2 ? "StatefulSet" : "Deployment";
        e.workload = "w" + std::to_string(1000 + i);
        entries.push_back(e);
    }
    const auto v = encode_lifecycle_status(entries);
    const auto& list = v.at("workloads").as_array();
    ASSERT_EQ(list.size(), kMaxLifecycleWorkloads);
    EXPECT_EQ(list.front().at("kind"), "Deployment");
    EXPECT_EQ(list.front().at("workload"), "w1000");
    EXPECT_EQ(list[59].at("workload"), "w1118");  // the 60 Deployments first
    EXPECT_EQ(list[60].at("kind"), "StatefulSet");
    EXPECT_EQ(list[60].at("workload"), "w1001");

    LifecycleStatusEntry e;
    e.workload = "web";
    e.kind = "Deployment";
    for (int i = 0; i < 150; ++i) e.pods.push_back({"p" + std::to_string(i), "", ResizeState::Pending, kT0});
    for (int i = 0; i < 25; ++i) add_failed_revision(e.failed_revisions, "rev-" + std::to_string(i));
    ASSERT_EQ(e.failed_revisions.size(), kMaxFailedRevisions);
    EXPECT_EQ(e.failed_revisions.front(), "rev-5");
    EXPECT_EQ(e.failed_revisions.back(), "rev-24");
    add_failed_revision(e.failed_revisions, "rev-24");  // present: no duplicate
    EXPECT_EQ(e.failed_revisions.size(), kMaxFailedRevisions);
    e.message = std::string(1020, 'x') + "\xC3\xA9\xC3\xA9\xC3\xA9";  // a 2-byte character across the cut
    const auto ev = encode_lifecycle_entry(e);
    const auto message = ev.at("message").as_string();
    EXPECT_EQ(message.size(), 1020u + 3);
    EXPECT_TRUE(message.ends_with("x..."));
    EXPECT_EQ(ev.at("pods").as_array().size(), kMaxLifecyclePods);
    EXPECT_EQ(ev.at("failedRevisions").as_array().size(), kMaxFailedRevisions);
}

TEST(LifecycleStatus, DecodesTheListAndFindsAnEntry) {
    auto r = decode_lifecycle_status(encode_lifecycle_status({full_entry()}));
    ASSERT_TRUE(r.ok());
    ASSERT_EQ(r.value().size(), 1u);
    EXPECT_NE(find_lifecycle_entry(r.value(), "Deployment", "web"), nullptr);
    EXPECT_EQ(find_lifecycle_entry(r.value(), "StatefulSet", "web"), nullptr);
    EXPECT_TRUE(decode_lifecycle_status(json::value(nullptr)).value().empty());
    EXPECT_TRUE(decode_lifecycle_status(json::parse("{}")).value().empty());
}

TEST(LifecycleStatus, DecodeErrorsNameThePath) {
    struct Case {
        const char* json;
        const char* want;
    } cases[] = {
        {R"({"workloads":[{"kind":"Deployment","phase":"Persisted"}]})", "status.lifecycle.workloads[0].workload: required"},
        {R"({"workloads":[{"workload":"w","kind":"Deployment","phase":"Done"}]})",
         "status.lifecycle.workloads[0].phase: \"Done\" is not one of ValidationRunning"},
        {R"({"workloads":[{"workload":"w","kind":"Deployment"}]})", "status.lifecycle.workloads[0].phase: required"},
        {R"({"workloads":[{"workload":"w","kind":"Deployment","phase":"Failed","stepStartedAt":"yesterday"}]})",
         "status.lifecycle.workloads[0].stepStartedAt: invalid RFC 3339 time \"yesterday\""},
        {R"({"workloads":[{"workload":"w","kind":"Deployment","phase":"Failed","pods":[{"name":"p","state":"Done"}]}]})",
         "status.lifecycle.workloads[0].pods[0].state: unknown resize state \"Done\""},
        {R"({"workloads":[{"workload":"w","kind":"Deployment","phase":"Failed",
             "candidate":{"containers":[{"name":"app","resources":{"requests":{"cpu":"lots"}}}]}}]})",
         "status.lifecycle.workloads[0].candidate.containers[0].resources"},
        {R"({"workloads":[{"workload":"w","kind":"Deployment","phase":"Failed",
             "baseline":{"containers":[{"name":"app"},{"name":"app"}]}}]})",
         "status.lifecycle.workloads[0].baseline.containers[1].name: duplicate container \"app\""},
        {R"({"workloads":[{"workload":"w","kind":"Deployment","phase":"Failed","step":-1}]})",
         "status.lifecycle.workloads[0].step: must not be negative"},
        {R"({"workloads":{}})", "status.lifecycle.workloads: expected an array"},
    };
    for (const auto& c : cases) {
        auto r = decode_lifecycle_status(json::parse(c.json));
        ASSERT_FALSE(r.ok()) << c.json;
        EXPECT_EQ(r.error().code, "invalid_lifecycle_status");
        EXPECT_NE(r.error().message.find(c.want), std::string::npos) << r.error().message;
    }
}

TEST(LifecycleStatus, PhaseNames) {
    EXPECT_EQ(lifecycle_phase_name(LifecyclePhase::ValidationRunning), "ValidationRunning");
    EXPECT_EQ(lifecycle_phase_name(LifecyclePhase::PausedAtStep), "PausedAtStep");
    EXPECT_EQ(lifecycle_phase_name(LifecyclePhase::ValidatedAwaitingPersistence), "ValidatedAwaitingPersistence");
    EXPECT_EQ(lifecycle_phase_name(LifecyclePhase::ValidatedWithoutPersistence), "ValidatedWithoutPersistence");
    EXPECT_EQ(lifecycle_phase_name(LifecyclePhase::Persisted), "Persisted");
    EXPECT_EQ(lifecycle_phase_name(LifecyclePhase::Failed), "Failed");
    EXPECT_TRUE(is_validating(LifecyclePhase::PausedAtStep));
    EXPECT_FALSE(is_validating(LifecyclePhase::ValidatedAwaitingPersistence));
}

}  // namespace
}  // namespace attune::core
