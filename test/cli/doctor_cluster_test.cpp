// doctor's cluster rows: the version stance per minor, pods/resize, and one
// row per Capabilities decision with the three-way declaredFeatures result
// and its source, computed by the same core::decide_capabilities the
// manager runs.
#include "doctor_cluster.hpp"

#include <gtest/gtest.h>

#include <algorithm>

namespace attune::cli {
namespace {

const core::ApiResourcesProbe kResize{{"pods", "pods/resize"}, ""};
const core::OpenApiProbe kOpenApi{true, false, ""};
const std::string kFeature(core::kInPlacePodLevelResourcesFeature);

core::NodeProbe node(std::string name, std::optional<std::vector<std::string>> features) {
    core::NodeProbe n;
    n.ready = true;
    n.name = std::move(name);
    n.declared_features = std::move(features);
    return n;
}
core::NodeListProbe listed(std::vector<core::NodeProbe> n) {
    core::NodeListProbe p;
    p.nodes = std::move(n);
    return p;
}

core::Capabilities caps(const std::string& v, const core::NodeListProbe& nodes, const core::OpenApiProbe& o = kOpenApi) {
    auto c = core::decide_capabilities({v, ""}, kResize, o, nodes);
    EXPECT_TRUE(c.ok());
    return c.ok() ? c.value() : core::Capabilities{};
}

const DoctorRow* find(const std::vector<DoctorRow>& rows, std::string_view name) {
    auto it = std::find_if(rows.begin(), rows.end(), [&](const DoctorRow& r) { return r.name == name; });
    return it == rows.end() ? nullptr : &*it;
}

bool has(const std::string& s, const std::string& part) { return s.find(part) != std::string::npos; }

TEST(DoctorVersionRow, StancePerMinor) {
    struct Case {
        const char* version;
        DoctorStatus status;
        const char* in_detail;
    } cases[] = {
        {"v1.31.4", DoctorStatus::Fail, "needs 1.32 or newer"},
        {"v1.32.9", DoctorStatus::Ok, "InPlacePodVerticalScaling=true"},
        {"v1.33.13", DoctorStatus::Ok, "memory-limit decreases stay clamped"},
        {"v1.34.4", DoctorStatus::Ok, "not resizable in place"},
        {"v1.35.4", DoctorStatus::Ok, "GA"},
        {"v1.36.3", DoctorStatus::Ok, "pod-level in-place resize on by default"},
        {"v1.37.2", DoctorStatus::Ok, "HPA scale-to-zero"},
        {"v1.38.0", DoctorStatus::Warn, "newer than Attune has tested"},
        {"garbage", DoctorStatus::Fail, "cannot parse"},
    };
    for (const auto& c : cases) {
        const auto r = kubernetes_version_row({c.version, ""});
        EXPECT_EQ(r.status, c.status) << c.version;
        EXPECT_TRUE(r.required);
        EXPECT_TRUE(has(r.detail, c.in_detail)) << c.version << ": " << r.detail;
    }
    EXPECT_EQ(kubernetes_version_row({"", "connection refused"}).status, DoctorStatus::Fail);
}

TEST(DoctorPodsResizeRow, AdvertisedOrFail) {
    EXPECT_EQ(pods_resize_row(kResize, {"v1.35.4", ""}).status, DoctorStatus::Ok);
    const auto missing = pods_resize_row(core::ApiResourcesProbe{{"pods"}, ""}, {"v1.32.9", ""});
    EXPECT_EQ(missing.status, DoctorStatus::Fail);
    EXPECT_TRUE(missing.required);
    EXPECT_TRUE(has(missing.detail, "InPlacePodVerticalScaling=true")) << missing.detail;
    EXPECT_EQ(pods_resize_row(core::ApiResourcesProbe{{}, "timeout"}, {"v1.35.4", ""}).status, DoctorStatus::Fail);
}

TEST(DoctorCapabilityRows, NoPodLevelRowsOn1_32) {
    const auto n = listed({node("a", std::nullopt)});
    const auto rows = capability_rows(caps("v1.32.9", n), kOpenApi, n);
    EXPECT_EQ(find(rows, "pod-level resources"), nullptr);
    EXPECT_EQ(find(rows, "pod-level resize"), nullptr);
    ASSERT_NE(find(rows, "sidecar resize"), nullptr);
    EXPECT_TRUE(has(find(rows, "sidecar resize")->detail, "1.32"));
    EXPECT_TRUE(has(find(rows, "memory limit decrease")->detail, "clamped"));
}

// The three-way rule, each way, with its source in the text.
TEST(DoctorCapabilityRows, PodLevelResizeThreeWay) {
    struct Case {
        const char* name;
        const char* version;
        core::NodeListProbe nodes;
        DoctorStatus status;
        std::vector<std::string> in_detail;
    } cases[] = {
        {"declared on 1.36",
         "v1.36.3",
         listed({node("a", std::vector{kFeature}), node("b", std::vector{kFeature})}),
         DoctorStatus::Ok,
         {"on: 2 of 2 Ready node(s) declare InPlacePodLevelResourcesVerticalScaling"}},
        {"gate off",
         "v1.36.3",
         listed({node("a", std::vector<std::string>{"InPlacePodVerticalScalingInitContainers"})}),
         DoctorStatus::Ok,
         {"off: 1 of 1 Ready node(s) declare features without", "the gate is off"}},
        {"nobody declares, 1.36",
         "v1.36.3",
         listed({node("a", std::vector<std::string>{}), node("b", std::nullopt)}),
         DoctorStatus::Ok,
         {"on: no Ready node declares features", "v1.36.3 >= 1.36 (fallback)"}},
        {"nobody declares, 1.35",
         "v1.35.4",
         listed({node("a", std::nullopt)}),
         DoctorStatus::Ok,
         {"off: no Ready node declares features", "v1.35.4 < 1.36 (fallback)"}},
        {"mixed: a silent node",
         "v1.36.3",
         listed({node("a", std::vector{kFeature}), node("quiet", std::vector<std::string>{})}),
         DoctorStatus::Warn,
         {"on: 1 of 2 Ready node(s) declare", "but not on quiet"}},
        {"mixed: a node without the name",
         "v1.36.3",
         listed({node("a", std::vector{kFeature}), node("other", std::vector<std::string>{"X"})}),
         DoctorStatus::Warn,
         {"but not on other"}},
    };
    for (const auto& c : cases) {
        const auto rows = capability_rows(caps(c.version, c.nodes), kOpenApi, c.nodes);
        const auto* r = find(rows, "pod-level resize");
        ASSERT_NE(r, nullptr) << c.name;
        EXPECT_EQ(r->status, c.status) << c.name << ": " << r->detail;
        EXPECT_FALSE(r->required);
        for (const auto& part : c.in_detail) EXPECT_TRUE(has(r->detail, part)) << c.name << ": " << r->detail;
    }
}

TEST(DoctorCapabilityRows, ForbiddenNodesFallBackAndSayWhy) {
    core::NodeListProbe n;
    n.error = "403 Forbidden";
    n.error_status = 403;
    const auto c = caps("v1.36.3", n);
    ASSERT_TRUE(c.in_place_pod_level_resources);
    const auto rows = capability_rows(c, kOpenApi, n);
    const auto* r = find(rows, "pod-level resize");
    ASSERT_NE(r, nullptr);
    EXPECT_EQ(r->status, DoctorStatus::Warn);
    EXPECT_TRUE(has(r->detail, "on: nodes could not be listed (forbidden), so the git version decides: v1.36.3 >= 1.36 (fallback)"))
        << r->detail;
}

// The rows follow the decision they describe: never a second rule.
TEST(DoctorCapabilityRows, MatchTheCapabilitiesDecision) {
    for (const char* v : {"v1.33.13", "v1.34.4", "v1.35.4", "v1.36.3", "v1.37.2"}) {
        const auto n = listed({node("a", std::nullopt)});
        const auto c = caps(v, n);
        const auto rows = capability_rows(c, kOpenApi, n);
        auto starts = [&](const char* row, const char* word) { return find(rows, row)->detail.rfind(word, 0) == 0; };
        EXPECT_EQ(starts("pod-level resize", "on:"), c.in_place_pod_level_resources) << v;
        EXPECT_EQ(starts("memory limit decrease", "in place:"), c.allow_in_place_memory_limit_decrease) << v;
        EXPECT_EQ(starts("HPA scale-to-zero", "on:"), c.hpa_scale_to_zero) << v;
        EXPECT_EQ(starts("sidecar resize", "in place:"), c.in_place_sidecar_resize) << v;
        EXPECT_EQ(starts("pod-level resources", "on:"), c.pod_level_resources_field) << v;
    }
}

TEST(DoctorCapabilityRows, OpenApiFailureIsAFallback) {
    const auto n = listed({});
    const core::OpenApiProbe broken{false, false, "500 Internal Server Error"};
    const auto rows = capability_rows(caps("v1.35.4", n, broken), broken, n);
    const auto* r = find(rows, "pod-level resources");
    ASSERT_NE(r, nullptr);
    EXPECT_EQ(r->status, DoctorStatus::Warn);
    EXPECT_TRUE(has(r->detail, "on: OpenAPI unavailable")) << r->detail;
    EXPECT_TRUE(has(find(rows, "HPA scale-to-zero")->detail, "off")) << find(rows, "HPA scale-to-zero")->detail;
}

}  // namespace
}  // namespace attune::cli
