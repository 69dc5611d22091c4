#include "attune/core/resize/hpa_conflict.hpp"

#include <gtest/gtest.h>

#include <boost/json.hpp>

namespace attune::core {
namespace {

HpaView hpa_with(std::vector<HpaMetric> metrics) {
    HpaView h;
    h.name = "web";
    h.target_kind = "Deployment";
    h.target_name = "web";
    h.min_replicas = 1;
    h.metrics = std::move(metrics);
    return h;
}

// HPA conflicts: resource metrics against object and external metrics.
TEST(CheckHpaConflict, OnlyCpuOrMemoryResourceMetricsConflict) {
    struct Case {
        const char* name;
        std::vector<HpaMetric> metrics;
        bool conflict;
    } cases[] = {
        {"Resource cpu", {{"Resource", "cpu"}}, true},
        {"Resource memory", {{"Resource", "memory"}}, true},
        {"ContainerResource cpu", {{"ContainerResource", "cpu"}}, true},
        {"Object only", {{"Object", ""}}, false},
        {"External only", {{"External", ""}}, false},
        {"Pods metric", {{"Pods", ""}}, false},
        {"External plus Resource cpu", {{"External", ""}, {"Resource", "cpu"}}, true},
        {"Resource ephemeral-storage", {{"Resource", "ephemeral-storage"}}, false},
        {"no metrics defaults to 80% CPU", {}, true},
    };
    for (const auto& c : cases) {
        const HpaView hpas[] = {hpa_with(c.metrics)};
        EXPECT_EQ(check_hpa_conflict(hpas, "web", "Deployment").has_value(), c.conflict) << c.name;
        EXPECT_FALSE(check_hpa_conflict(hpas, "other", "Deployment").has_value()) << c.name;
        EXPECT_FALSE(check_hpa_conflict(hpas, "web", "StatefulSet").has_value()) << c.name;
    }
}

}  // namespace
}  // namespace attune::core
