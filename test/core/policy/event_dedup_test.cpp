#include "attune/core/policy/event_dedup.hpp"

#include <gtest/gtest.h>

namespace attune::core {
namespace {

using std::chrono::seconds;
const Timestamp kT0{seconds(1'767'225'600)};

TEST(EventDedup, TheSameEventPassesOncePerHour) {
    struct Row {
        const char* what;
        const char* uid;
        const char* reason;
        const char* message;
        seconds after;
        bool admitted;
    };
    // Every row follows the first admission of (u1, PolicyConflict, "m") at kT0.
    const Row rows[] = {
        {"same, a second later", "u1", "PolicyConflict", "m", seconds(1), false},
        {"same, 59m59s later", "u1", "PolicyConflict", "m", seconds(3599), false},
        {"same, an hour later", "u1", "PolicyConflict", "m", seconds(3600), true},
        {"another policy", "u2", "PolicyConflict", "m", seconds(1), true},
        {"another reason", "u1", "HPAConflict", "m", seconds(1), true},
        {"another message", "u1", "PolicyConflict", "m2", seconds(1), true},
    };
    for (const auto& r : rows) {
        SCOPED_TRACE(r.what);
        EventDedup d;
        ASSERT_TRUE(d.admit("u1", "PolicyConflict", "m", kT0));
        EXPECT_EQ(d.admit(r.uid, r.reason, r.message, kT0 + r.after), r.admitted);
    }
}

TEST(EventDedup, AnAdmissionStartsANewWindow) {
    EventDedup d;
    ASSERT_TRUE(d.admit("u", "r", "m", kT0));
    ASSERT_TRUE(d.admit("u", "r", "m", kT0 + seconds(3600)));
    EXPECT_FALSE(d.admit("u", "r", "m", kT0 + seconds(3601)));
}

TEST(EventDedup, FieldsDoNotRunIntoEachOther) {
    EventDedup d;
    ASSERT_TRUE(d.admit("ab", "c", "m", kT0));
    EXPECT_TRUE(d.admit("a", "bc", "m", kT0));
}

TEST(EventDedup, StaysBoundedAndForgetsExpiredEntriesFirst) {
    EventDedup d(3);
    d.admit("u", "r", "old", kT0);
    d.admit("u", "r", "a", kT0 + seconds(3000));
    d.admit("u", "r", "b", kT0 + seconds(3100));
    // "old" has expired by now: it goes, the live ones stay.
    d.admit("u", "r", "c", kT0 + seconds(3700));
    EXPECT_EQ(d.size(), 3u);
    EXPECT_FALSE(d.admit("u", "r", "a", kT0 + seconds(3701)));
    // Full of live entries: the oldest goes.
    d.admit("u", "r", "d", kT0 + seconds(3702));
    EXPECT_EQ(d.size(), 3u);
    EXPECT_TRUE(d.admit("u", "r", "a", kT0 + seconds(3703)));
}

TEST(EventDedup, SuppressWarningsNamesReasons) {
    EXPECT_TRUE(suppresses("HPAConflict", "HPAConflict"));
    EXPECT_TRUE(suppresses("PolicyConflict, HPAConflict", "HPAConflict"));
    EXPECT_TRUE(suppresses(" WorkloadOptOut ,x", "WorkloadOptOut"));
    EXPECT_FALSE(suppresses("HPAConflictX", "HPAConflict"));
    EXPECT_FALSE(suppresses("hpaconflict", "HPAConflict"));
    EXPECT_FALSE(suppresses("", "HPAConflict"));
    EXPECT_FALSE(suppresses(",,", ""));
}

}  // namespace
}  // namespace attune::core
