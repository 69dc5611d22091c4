#include "attune/core/resize/pod_eligibility.hpp"

#include <gtest/gtest.h>

#include "test_pods.hpp"

namespace attune::core {
namespace {

using testing::pod_from_json;

constexpr const char* kSettled = R"({"metadata":{"namespace":"shop","name":"web-1","generation":2%s},
  "spec":{"containers":[{"name":"app","resources":{"requests":{"cpu":"500m"}}}]},
  "status":{"phase":"%s"%s,"containerStatuses":[{"name":"app","resources":{"requests":{"cpu":"%s"}}}]}})";

Pod pod(const char* meta, const char* phase, const char* status_extra, const char* applied_cpu) {
    char buf[2048];
    std::snprintf(buf, sizeof buf, kSettled, meta, phase, status_extra, applied_cpu);
    return pod_from_json(buf);
}

EligibilityContext ctx(StringMap workload = {}, std::optional<StringMap> ns = StringMap{}) {
    return EligibilityContext{std::move(workload), std::move(ns)};
}

TEST(PodEligibility, Table) {
    struct Case {
        const char* name;
        Pod pod;
        EligibilityContext ctx;
        const char* reason;
    } cases[] = {
        {"Running and settled is eligible", pod("", "Running", "", "500m"), ctx(), ""},
        {"Pending phase", pod("", "Pending", "", "500m"), ctx(), "not_running"},
        {"Succeeded phase", pod("", "Succeeded", "", "500m"), ctx(), "not_running"},
        {"deleting", pod(R"(,"deletionTimestamp":"2026-12-01T10:00:00Z")", "Running", "", "500m"), ctx(), "deleting"},
        {"pod opted out", pod(R"(,"annotations":{"attune.io/skip":"true"})", "Running", "", "500m"), ctx(), "opted_out"},
        {"skip must be exactly true", pod(R"(,"annotations":{"attune.io/skip":"True"})", "Running", "", "500m"), ctx(), ""},
        {"workload opted out", pod("", "Running", "", "500m"), ctx({{"attune.io/skip", "true"}}), "opted_out"},
        {"namespace frozen", pod("", "Running", "", "500m"), ctx({}, StringMap{{"attune.io/freeze", "true"}}),
         "namespace_frozen"},
        {"namespace unknown fails closed", pod("", "Running", "", "500m"), ctx({}, std::nullopt), "namespace_unknown"},
        {"startup boost still on the pod",
         pod(R"(,"annotations":{"attune.io/startup-boost-at":"2026-12-01T10:00:00Z"})", "Running", "", "500m"), ctx(),
         "startup_boost"},
        {"runtime not caught up: in progress", pod("", "Running", "", "250m"), ctx(), "resize_in_progress"},
        {"kubelet deferred",
         pod("", "Running", R"(,"conditions":[{"type":"PodResizePending","status":"True","reason":"Deferred"}])", "250m"),
         ctx(), "resize_deferred"},
        {"kubelet infeasible",
         pod("", "Running", R"(,"conditions":[{"type":"PodResizePending","status":"True","reason":"Infeasible"}])", "250m"),
         ctx(), "resize_infeasible"},
        {"InProgress condition", pod("", "Running", R"(,"conditions":[{"type":"PodResizeInProgress","status":"True"}])", "500m"),
         ctx(), "resize_in_progress"},
    };
    for (const auto& c : cases) {
        const auto e = check_pod_eligibility(c.pod, c.ctx);
        EXPECT_EQ(e.reason, c.reason) << c.name << ": " << e.message;
        EXPECT_EQ(e.eligible, std::string(c.reason).empty()) << c.name;
        if (!e.eligible) {
            EXPECT_FALSE(e.message.empty()) << c.name;
        }
    }
}

}  // namespace
}  // namespace attune::core
