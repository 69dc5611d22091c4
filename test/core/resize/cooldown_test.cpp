#include "attune/core/resize/cooldown.hpp"

#include <gtest/gtest.h>

#include <boost/json.hpp>

namespace attune::core {
namespace {

using namespace std::chrono;

TEST(Cooldown, DoublesPerConsecutiveRevertUpToSixteen) {
    const struct {
        int reverts;
        int multiplier;
        seconds effective;
    } cases[] = {{0, 1, 1h}, {1, 2, 2h}, {2, 4, 4h}, {3, 8, 8h}, {4, 16, 16h}, {9, 16, 16h}, {-1, 1, 1h}};
    for (const auto& c : cases) {
        const auto s = cooldown_state(kDefaultCooldown, c.reverts);
        EXPECT_EQ(s.backoff_multiplier, c.multiplier) << c.reverts;
        EXPECT_EQ(s.effective, c.effective) << c.reverts;
    }
}

TEST(Cooldown, ActiveUntilTheAnchorPlusTheEffectiveCooldown) {
    const Timestamp now = sys_days(2026y / December / 1) + 12h;
    const auto s = cooldown_state(1h, 1);  // 2h
    const struct {
        const char* what;
        std::optional<std::string> anchor;
        bool active;
        seconds remaining;
    } cases[] = {
        {"never resized", std::nullopt, false, 0s},
        {"resized 30m ago", "2026-12-01T11:30:00Z", true, 90min},
        {"exactly at the end", "2026-12-01T10:00:00Z", false, 0s},
        {"long ago", "2026-11-01T00:00:00Z", false, 0s},
        {"future anchor (skew) never waits longer than one cooldown", "2026-12-02T00:00:00Z", true, 2h},
    };
    for (const auto& c : cases) {
        const auto r = check_cooldown(s, c.anchor, now);
        EXPECT_EQ(r.active, c.active) << c.what;
        EXPECT_EQ(r.remaining, c.remaining) << c.what;
        EXPECT_FALSE(r.anchor_invalid) << c.what;
    }
    EXPECT_FALSE(check_cooldown(cooldown_state(0s, 3), std::string("2026-12-01T11:59:00Z"), now).active);
}

TEST(Cooldown, AnInvalidAnchorFailsClosedAndIsReported) {
    const auto r = check_cooldown(cooldown_state(1h, 0), std::string("yesterday"),
                                  sys_days(2026y / December / 1) + 12h);
    EXPECT_TRUE(r.active);
    EXPECT_TRUE(r.anchor_invalid);
    EXPECT_NE(r.message.find("attune.io/last-resize-time"), std::string::npos);
}

TEST(Cooldown, StatusJson) {
    EXPECT_EQ(boost::json::serialize(cooldown_status_json(cooldown_state(1h, 2))),
              R"({"effectiveCooldown":"4h0m0s","backoffMultiplier":4,"consecutiveReverts":2})");
}

}  // namespace
}  // namespace attune::core
