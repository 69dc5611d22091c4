#include "attune/core/recommend/workload_baseline.hpp"

#include <gtest/gtest.h>

#include <boost/json/parse.hpp>

#include "test_pods.hpp"

namespace attune::core {
namespace {

using testing::pod_from_json;
using testing::rl;

Pod running(const char* name, const char* cpu, const char* phase = "Running", const char* deleting = "") {
    std::string j = std::string(R"({"metadata":{"name":")") + name + R"(")" +
                    (*deleting ? std::string(R"(,"deletionTimestamp":")") + deleting + "\"" : "") +
                    R"(},"spec":{"containers":[{"name":"app","resources":{"requests":{"cpu":")" + cpu +
                    R"("}}},{"name":"istio-proxy","resources":{"requests":{"cpu":"10m"}}}],)"
                    R"("initContainers":[{"name":"log","restartPolicy":"Always","resources":{"requests":{"cpu":"5m"}}},)"
                    R"({"name":"setup","resources":{"requests":{"cpu":"1"}}}]},"status":{"phase":")" +
                    phase + R"("}})";
    return pod_from_json(j);
}

TEST(WorkloadBaseline, TheTemplateOfEveryKind) {
    const char* spec = R"({"containers":[{"name":"app","resources":{"requests":{"cpu":"250m"}}}]})";
    struct Row {
        const char* kind;
        std::string json;
        bool ok;
    };
    const Row rows[] = {
        {"Deployment", std::string(R"({"spec":{"template":{"spec":)") + spec + "}}}", true},
        {"StatefulSet", std::string(R"({"spec":{"template":{"spec":)") + spec + "}}}", true},
        {"Job", std::string(R"({"spec":{"template":{"spec":)") + spec + "}}}", true},
        {"CronJob", std::string(R"({"spec":{"jobTemplate":{"spec":{"template":{"spec":)") + spec + "}}}}}", true},
        {"CronJob", std::string(R"({"spec":{"template":{"spec":)") + spec + "}}}", false},
        {"Pod", std::string(R"({"spec":{"template":{"spec":)") + spec + "}}}", false},
        {"Deployment",
         R"({"spec":{"template":{"spec":{"containers":[{"name":"app","resources":{"requests":{"cpu":"x"}}}]}}}})",
         false},
    };
    for (const auto& r : rows) {
        SCOPED_TRACE(std::string(r.kind) + " " + r.json);
        auto p = decode_pod_template(r.kind, boost::json::parse(r.json));
        ASSERT_EQ(p.ok(), r.ok) << (p.ok() ? "" : p.error().message);
        if (!r.ok) {
            EXPECT_EQ(p.error().code, "invalid_workload");
            continue;
        }
        ASSERT_EQ(p.value().containers.size(), 1u);
        EXPECT_EQ(p.value().containers[0].resources.requests, rl({{"cpu", "250m"}}));
    }
}

TEST(WorkloadBaseline, OnlyARunningPodNotBeingDeletedCanHoldTheBaseline) {
    const struct {
        const char* phase;
        bool deleting;
        bool can;
    } rows[] = {
        {"Running", false, true},    {"Running", true, false}, {"Pending", false, false},
        {"Succeeded", false, false}, {"Failed", false, false}, {"", false, false},
    };
    for (const auto& r : rows)
        EXPECT_EQ(can_hold_baseline(r.phase, r.deleting), r.can) << r.phase << " deleting=" << r.deleting;
}

TEST(WorkloadBaseline, ThePodIsTheSmallestRunningNameNotBeingDeleted) {
    const std::vector<Pod> pods = {running("web-c", "300m"), running("web-a", "100m", "Pending"),
                                   running("web-b", "200m", "Running", "2026-01-01T00:00:00Z"),
                                   running("web-d", "400m")};
    ASSERT_NE(baseline_pod(pods), nullptr);
    EXPECT_EQ(baseline_pod(pods)->name, "web-c");
    EXPECT_EQ(baseline_pod(std::span<const Pod>(pods.data() + 1, 2)), nullptr);
}

TEST(WorkloadBaseline, LiveValuesWinOverTheTemplateAndExcludedContainersLeave) {
    const std::vector<std::string> excluded = {"istio-proxy"};
    const Pod tmpl = running("template", "999m", "");
    const std::vector<Pod> pods = {running("web-a", "120m")};

    auto live = workload_baseline(pods, &tmpl, excluded);
    ASSERT_EQ(live.containers.size(), 2u);  // app and the native sidecar; not setup, not istio-proxy
    EXPECT_EQ(live.containers.at("app").requests, rl({{"cpu", "120m"}}));
    EXPECT_EQ(live.containers.at("log").requests, rl({{"cpu", "5m"}}));

    auto from_template = workload_baseline({}, &tmpl, excluded);
    EXPECT_EQ(from_template.containers.at("app").requests, rl({{"cpu", "999m"}}));
    EXPECT_TRUE(workload_baseline({}, nullptr, excluded).containers.empty());
}

}  // namespace
}  // namespace attune::core
