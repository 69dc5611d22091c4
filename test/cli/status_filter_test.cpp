#include "status_filter.hpp"

#include <boost/json.hpp>

#include <gtest/gtest.h>

namespace attune::cli {
namespace {
namespace json = boost::json;

// A status record (status_records.hpp) with a phase and the given conditions.
json::object record(std::string phase, json::array conditions) {
    return json::object{{"phase", std::move(phase)}, {"conditions", std::move(conditions)}};
}
json::object cond(const char* type, const char* status, const char* reason) {
    return json::object{{"type", type}, {"status", status}, {"reason", reason}};
}

TEST(StatusFilter, GoPluginWordsAndFreeText) {
    const auto monitoring = record("Monitoring", {cond("Ready", "True", "Monitoring")});
    const auto collecting = record("InsufficientData", {cond("Ready", "False", "InsufficientData")});
    const auto none = record("NoWorkloadsFound", {cond("Ready", "False", "NoWorkloadsFound")});
    const auto degraded =
        record("Degraded", {cond("Ready", "True", "Monitoring"), cond("Degraded", "True", "HighRevertRate")});
    const auto recovered =
        record("Monitoring", {cond("Ready", "True", "Monitoring"), cond("Degraded", "False", "Recovered")});
    const auto pending = record("Pending", {});
    const auto unknown = record("Unknown", {cond("Resizing", "False", "Idle")});
    const auto paused = record("Paused", {cond("Ready", "False", "Paused")});
    const auto unavailable = record("PrometheusUnavailable", {cond("Ready", "False", "PrometheusUnavailable")});
    const std::vector<const json::object*> all{&monitoring, &collecting, &none,   &degraded,   &recovered,
                                               &pending,    &unknown,    &paused, &unavailable};
    struct Case {
        const char* filter;
        std::vector<const json::object*> kept;
    };
    const Case cases[] = {
        {"", all},
        {"degraded", {&degraded}},  // Degraded=False (recovered) is not degraded
        {"DEGRADED", {&degraded}},
        {"pending", {&pending, &unknown}},
        {"collecting", {&collecting}},
        {"ready", {&monitoring, &degraded, &recovered}},
        {"noworkloads", {&none}},
        {"paused", {&paused}},
        {"prometheus", {&unavailable}},
        {"monitor", {&monitoring, &degraded, &recovered}},  // free text: the Ready reason
        {"nothing-like-this", {}},
    };
    for (const auto& c : cases) {
        std::vector<const json::object*> kept;
        for (const auto* r : all)
            if (status_matches_filter(*r, c.filter)) kept.push_back(r);
        EXPECT_EQ(kept, c.kept) << "--filter " << c.filter;
    }
}

TEST(StatusFilter, MalformedRecordsMatchNothingSpecific) {
    const json::object odd{{"phase", 3}, {"conditions", "not a list"}};
    EXPECT_TRUE(status_matches_filter(odd, ""));
    EXPECT_FALSE(status_matches_filter(odd, "ready"));
    EXPECT_FALSE(status_matches_filter(odd, "degraded"));
    EXPECT_TRUE(status_matches_filter(odd, "pending"));  // no Ready condition
    EXPECT_FALSE(status_matches_filter(odd, "3"));
}

}  // namespace
}  // namespace attune::cli
