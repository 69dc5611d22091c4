// preview rows: the executor's decision (core::decide_resize and its inputs)
// for each pod of a policy's recommended workloads, over plain API objects.
#include "preview_report.hpp"
#include "status_fixture.hpp"

#include <gtest/gtest.h>

namespace attune::cli {
namespace {
namespace json = boost::json;

const core::Timestamp kNow = core::parse_timestamp("2026-12-01T12:00:00Z").value();

json::value pod(const std::string& name, const std::string& node, const char* phase = "Running") {
    const json::object res{{"requests", json::object{{"cpu", "500m"}, {"memory", "256Mi"}}},
                           {"limits", json::object{{"cpu", "1"}, {"memory", "512Mi"}}}};
    return json::object{{"metadata", json::object{{"name", name},
                                                  {"namespace", "shop"},
                                                  {"uid", name + "-uid"},
                                                  {"labels", json::object{{"app", "web"}}}}},
                        {"spec",
                         json::object{{"nodeName", node},
                                      {"containers", json::array{json::object{{"name", "app"}, {"resources", res}}}}}},
                        {"status", json::object{{"phase", phase},
                                                {"qosClass", "Burstable"},
                                                {"containerStatuses", json::array{json::object{{"name", "app"},
                                                                                               {"ready", true},
                                                                                               {"restartCount", 0},
                                                                                               {"resources", res}}}}}}};
}

json::value node(const char* cpu) {
    return json::object{{"metadata", json::object{{"name", "n1"}}},
                        {"status", json::object{{"allocatable", json::object{{"cpu", cpu}, {"memory", "8Gi"}}},
                                                {"conditions",
                                                 json::array{json::object{{"type", "Ready"}, {"status", "True"}}}}}}};
}

core::Capabilities caps() {
    core::Capabilities c;
    c.major = 1;
    c.minor = 36;
    c.pods_resize = true;
    c.allow_in_place_memory_limit_decrease = true;
    c.in_place_sidecar_resize = true;
    return c;
}

// The policy web (fixture) recommending cpu `cpu` and memory `memory` requests for app.
json::value policy(const char* cpu, const char* memory) {
    auto p = test::web_policy();
    auto w = test::web_recommendation();
    w.containers[0].recommended.cpu_request = test::q(cpu);
    w.containers[0].recommended.memory_request = test::q(memory);
    auto& st = p.as_object()["status"].as_object();
    st["recommendations"] = json::array{core::workload_recommendation_json("web", "Deployment", w, true)};
    st["resizeHistory"] = json::array{};
    st["idleWorkloads"] = json::array{};
    return p;
}

PreviewInputs inputs(json::value pol, int pods = 2) {
    PreviewInputs in;
    in.policy = std::move(pol);
    in.effective = core::EffectivePolicy{};
    in.effective->namespace_ = "shop";
    in.effective->name = "web";
    in.caps = caps();
    PreviewWorkload w;
    w.object.value = json::object{{"metadata", json::object{{"name", "web"}, {"namespace", "shop"}}}};
    w.pods.value.emplace();
    for (int i = 0; i < pods; ++i) w.pods.value->push_back(pod("web-" + std::to_string(i), "n1"));
    in.workloads.emplace("Deployment/web", std::move(w));
    in.namespace_annotations.value.emplace();
    in.limit_ranges.value.emplace();
    in.quotas.value.emplace();
    PreviewNode n;
    n.object.value = node("4");
    n.pods.value.emplace();
    in.nodes.emplace("n1", std::move(n));
    in.now = kNow;
    return in;
}

// "pod action reason cpu memory" per row.
std::vector<std::string> summary(const PreviewResult& r) {
    std::vector<std::string> out;
    for (const auto& row : r.rows) {
        auto text = [&](const char* k) {
            const auto& v = row.at(k);
            return v.is_string() ? std::string(v.as_string()) : std::string("-");
        };
        out.push_back(text("pod") + " " + text("action") + " " + text("reason") + " " + text("cpu") + " " +
                      text("memory"));
    }
    return out;
}

TEST(PreviewPolicy, WhatAutoWouldDoPerPod) {
    struct Case {
        const char* name;
        std::function<PreviewInputs()> in;
        std::vector<std::string> want;
    };
    const Case cases[] = {
        {"decreases go ahead on every pod (no gate holds a decrease but the cooldown and the schedule)",
         [] { return inputs(policy("250m", "192Mi")); },
         {"web-0 resize - 500m/1000m -> 250m/1000m 256Mi/512Mi -> 192Mi/512Mi",
          "web-1 resize - 500m/1000m -> 250m/1000m 256Mi/512Mi -> 192Mi/512Mi"}},
        {"an increase: the first pod takes the one slot (maxConcurrentResizes 1), the next waits",
         [] { return inputs(policy("750m", "256Mi")); },
         {"web-0 resize - 500m/1000m -> 750m/1000m 256Mi/512Mi",
          "web-1 defer max_concurrent_resizes 500m/1000m -> 750m/1000m 256Mi/512Mi"}},
        {"the cooldown since the last resize holds every change",
         [] {
             auto p = policy("250m", "192Mi");
             p.as_object()["metadata"].as_object()["annotations"] =
                 json::object{{"attune.io/last-resize-time", "2026-12-01T11:50:00Z"}};
             return inputs(p, 1);
         },
         {"web-0 hold cooldown 500m/1000m -> 250m/1000m 256Mi/512Mi -> 192Mi/512Mi"}},
        {"an increase past the node's room",
         [] {
             auto in = inputs(policy("750m", "256Mi"), 1);
             in.nodes["n1"].object.value = node("600m");
             return in;
         },
         {"web-0 hold node_capacity 500m/1000m -> 750m/1000m 256Mi/512Mi"}},
        {"an increase when the node's other pods could not be listed: unknown, not guessed",
         [] {
             auto in = inputs(policy("750m", "256Mi"), 1);
             in.nodes["n1"].pods.value.reset();
             in.nodes["n1"].pods.error = "pods is forbidden";
             return in;
         },
         {"web-0 unknown - 500m/1000m -> 750m/1000m 256Mi/512Mi"}},
        {"...while a decrease needs no node room",
         [] {
             auto in = inputs(policy("250m", "256Mi"), 1);
             in.nodes["n1"].pods.value.reset();
             in.nodes["n1"].pods.error = "pods is forbidden";
             return in;
         },
         {"web-0 resize - 500m/1000m -> 250m/1000m 256Mi/512Mi"}},
        {"a paused policy",
         [] {
             auto in = inputs(policy("250m", "192Mi"), 1);
             in.effective->paused = true;
             return in;
         },
         {"web-0 hold paused 500m/1000m -> 250m/1000m 256Mi/512Mi -> 192Mi/512Mi"}},
        {"an idle workload",
         [] {
             auto p = policy("250m", "192Mi");
             p.as_object()["status"].as_object()["idleWorkloads"] = json::array{
                 json::object{{"workload", "web"}, {"kind", "Deployment"}, {"reason", "WorkloadReplicasZero"}}};
             return inputs(p, 1);
         },
         {"web-0 hold idle 500m/1000m -> 250m/1000m 256Mi/512Mi -> 192Mi/512Mi"}},
        {"a pod that is not running, beside one at its recommendation already",
         [] {
             auto in = inputs(policy("500m", "256Mi"), 1);
             in.workloads["Deployment/web"].pods.value->push_back(pod("web-9", "n1", "Pending"));
             return in;
         },
         {"web-0 none no_change 500m/1000m 256Mi/512Mi", "web-9 skip not_running 500m/1000m 256Mi/512Mi"}},
        {"the QoS class must not change: a RequestsAndLimits target that equals requests and limits",
         [] {
             auto p = policy("1", "512Mi");
             auto in = inputs(p, 1);
             in.effective->cpu.controlled_values = core::ControlledValues::RequestsAndLimits;
             return in;
         },
         {"web-0 hold InPlaceResizeWouldChangeQoSClass 500m/1000m 256Mi/512Mi"}},
        {"a workload that could not be read",
         [] {
             auto in = inputs(policy("250m", "192Mi"));
             in.workloads["Deployment/web"].object.value.reset();
             in.workloads["Deployment/web"].object.error = "deployments.apps \"web\" is forbidden";
             return in;
         },
         {"- unknown workload_unread - -"}},
    };
    for (const auto& c : cases) {
        auto got = preview_policy(c.in());
        ASSERT_TRUE(got) << c.name << ": " << got.error().message;
        EXPECT_EQ(summary(got.value()), c.want) << c.name;
    }
}

TEST(PreviewPolicy, RowsCarryExactValuesAndWhatWasUnavailable) {
    auto in = inputs(policy("750m", "256Mi"), 1);
    in.nodes["n1"].pods.value.reset();
    in.nodes["n1"].pods.error = "pods is forbidden";
    const auto r = preview_policy(in).value();
    ASSERT_EQ(r.rows.size(), 1u);
    const auto& row = r.rows[0];
    EXPECT_EQ(row.at("current").at("cpuRequest").as_string(), "500m");
    EXPECT_EQ(row.at("proposed").at("cpuRequest").as_string(), "750m");
    EXPECT_EQ(row.at("proposed").at("memoryLimit").as_string(), "512Mi");
    EXPECT_EQ(row.at("node").as_string(), "n1");
    ASSERT_EQ(row.at("unavailable").as_array().size(), 1u);
    EXPECT_NE(std::string(row.at("unavailable").at(0).as_string()).find("pods is forbidden"), std::string::npos);
}

TEST(PreviewPolicy, APolicyWithoutSettingsOrRecommendationsHasNoRows) {
    auto in = inputs(policy("250m", "192Mi"));
    in.effective.reset();
    in.config_error = "spec.cpu.minAllowed exceeds maxAllowed";
    auto r = preview_policy(in).value();
    EXPECT_TRUE(r.rows.empty());
    ASSERT_EQ(r.notes.size(), 1u);
    EXPECT_NE(r.notes[0].find("minAllowed exceeds"), std::string::npos);
    auto none = inputs(test::web_policy("Recommend", false));
    r = preview_policy(none).value();
    EXPECT_TRUE(r.rows.empty());
    EXPECT_NE(r.notes.at(0).find("no recommendations yet"), std::string::npos);
}

TEST(PreviewColumns, Headers) {
    std::vector<std::string> h;
    for (const auto& c : preview_columns(false))
        if (!c.wide_only) h.push_back(c.header);
    EXPECT_EQ(h, (std::vector<std::string>{"POLICY", "WORKLOAD", "POD", "CONTAINER", "CPU", "MEMORY", "ACTION",
                                           "REASON", "MESSAGE"}));
}

}  // namespace
}  // namespace attune::cli
