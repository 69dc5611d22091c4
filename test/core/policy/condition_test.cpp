#include "attune/core/policy/condition.hpp"

#include <gtest/gtest.h>

#include <boost/json.hpp>

namespace attune::core {
namespace {

using namespace std::chrono;

const Timestamp t0 = sys_days(2026y / December / 1);

TEST(Condition, TransitionTimeMovesOnlyWhenTheStatusChanges) {
    std::vector<Condition> cs;
    EXPECT_TRUE(set_condition(cs, {"Resizing", "True", "InProgress", "m", t0, 1}));
    EXPECT_FALSE(set_condition(cs, {"Resizing", "True", "InProgress", "m", t0 + 1h, 1}));  // no change at all
    EXPECT_TRUE(set_condition(cs, {"Resizing", "True", "InProgress", "new message", t0 + 2h, 2}));
    EXPECT_EQ(cs[0].last_transition_time, t0);
    EXPECT_EQ(cs[0].message, "new message");
    EXPECT_TRUE(set_condition(cs, {"Resizing", "False", "Idle", "", t0 + 3h, 2}));
    EXPECT_EQ(cs[0].last_transition_time, t0 + 3h);
    EXPECT_TRUE(remove_condition(cs, "Resizing"));
    EXPECT_FALSE(remove_condition(cs, "Resizing"));
}

TEST(Condition, JsonRoundTripAndErrors) {
    const std::vector<Condition> cs{{"Degraded", "True", "HighRevertRate", "m", t0, 3}};
    EXPECT_EQ(boost::json::serialize(conditions_json(cs)),
              R"([{"type":"Degraded","status":"True","reason":"HighRevertRate","message":"m",)"
              R"("lastTransitionTime":"2026-12-01T00:00:00Z","observedGeneration":3}])");
    EXPECT_EQ(decode_conditions(conditions_json(cs)).value(), cs);
    EXPECT_EQ(decode_conditions(boost::json::parse(R"([{"status":"True"}])")).error().code, "invalid_conditions");
    EXPECT_FALSE(decode_conditions(boost::json::parse(R"([{"type":"A","lastTransitionTime":"x"}])")).ok());
}

}  // namespace
}  // namespace attune::core
